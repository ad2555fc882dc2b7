// Real HTTP/2 clients against the chaos host's /h2/* lies over prior
// knowledge: curl (--http2-prior-knowledge; its exit code), nghttp (Debian
// nghttp2-client; "not processed") and Node's http2.connect (the stream's
// error, RST code and the GOAWAY it saw). Each cell checks the documented
// failure; /status/200 over the same client is the honest baseline that must
// not fail (the node:http2 twins on control are not built yet). docs/http2.md.
import t from 'tap';
import { h2Facts, h2Get, type H2Facts } from '../../../scripts/scorecard/h2-node.js';
import { startChaos } from '../../helpers/servers.js';
import { runClient } from '../../helpers/process.js';

const { port } = await startChaos(t, { idleTimeoutMs: 2000 });
const base = `http://127.0.0.1:${port}`;

const run = (file: string, args: readonly string[]): Promise<{ code: number; output: string }> => runClient(file, args, 15_000);

/** What Node's stream must report (scripts/scorecard/h2-node.ts): its status, first error, RST code, the GOAWAY's debug data, body bytes. */
type NodeCell = Partial<H2Facts>;

/** Node's http2.connect, as the scorecard drives it; 8 s at most. */
const nodeGet = async (path: string): Promise<H2Facts> => h2Facts(await h2Get(base, path, { ms: 8000 }));

/** path → curl's exit code, whether nghttp processes it, what Node's stream reports. */
const CELLS: readonly (readonly [path: string, curl: number, nghttpProcessed: boolean, node: NodeCell])[] = [
  ['/h2/rst', 92, false, { error: 'ERR_HTTP2_STREAM_ERROR', rstCode: 2, bytes: 6 }],
  ['/h2/goaway?mode=zero', 16, false, { rstCode: 7, goaway: 'chaos:zero' }],
  ['/h2/goaway?mode=increasing', 52, false, { error: 'ERR_HTTP2_ERROR' }],
  ['/h2/settings?mode=max-frame-invalid', 52, false, { error: 'ERR_HTTP2_ERROR' }],
  ['/h2/settings?mode=enable-push-1', 52, false, { error: 'ERR_HTTP2_ERROR' }],
  ['/h2/frames?mode=oversize-data', 18, false, { error: 'ERR_HTTP2_ERROR', bytes: 0 }],
  ['/h2/frames?mode=data-after-end-stream', 0, true, { status: 200, rstCode: 0 }],
  ['/h2/frames?mode=unknown-type', 0, true, { status: 200, rstCode: 0 }],
  ['/h2/headers?mode=uppercase', 92, false, { error: 'ERR_HTTP2_STREAM_ERROR', rstCode: 1 }],
  ['/h2/headers?mode=no-status', 92, false, { rstCode: 1 }],
  ['/h2/headers?mode=content-length-lie', 92, false, { rstCode: 1 }],
  ['/h2/headers?mode=hpack-bad-index', 52, false, { error: 'ERR_HTTP2_ERROR' }],
];

t.test('curl --http2-prior-knowledge', async (t) => {
  t.equal((await run('curl', ['-sS', '--http2-prior-knowledge', '-o', '/dev/null', `${base}/status/200`])).code, 0, 'baseline /status/200');
  for (const [path, exit] of CELLS) t.equal((await run('curl', ['-sS', '--http2-prior-knowledge', '-o', '/dev/null', `${base}${path}`])).code, exit, path);
});

t.test('nghttp (nghttp2-client)', async (t) => {
  const processed = async (path: string): Promise<boolean> => !/not processed/.test((await run('nghttp', ['-n', `${base}${path}`])).output);
  t.ok(await processed('/status/200'), 'baseline /status/200');
  for (const [path, , ok] of CELLS) t.equal(await processed(path), ok, path);
});

t.test('Node http2.connect', async (t) => {
  t.match(await nodeGet('/status/200'), { status: 200, rstCode: 0 }, 'baseline /status/200');
  for (const [path, , , node] of CELLS) t.match(await nodeGet(path), node, path);
});

// The HTTP/2 walk (ordinary.test.ts) once reported streams that had closed as hangs: its deadline was never cleared
// and rewrote a finished outcome when a busy machine made the walk outlast it (issue 28). h2Get's outcome is final.
t.test('h2Get: a finished request stays finished past its deadline; a stream still open at the deadline is timedOut', async (t) => {
  const quick = await h2Get(base, '/status/200', { ms: 2000, settleMs: 0 });
  const msAtResolve = quick.ms;
  await new Promise((resolve) => setTimeout(resolve, 2500));
  t.equal(quick.timedOut, undefined, 'not rewritten as a timeout when its deadline passes');
  t.equal(quick.ms, msAtResolve, 'its duration kept');
  t.ok(quick.ended && quick.status === 200, 'END_STREAM read, 200');
  const held = await h2Get(base, '/h2/stall?after=4', { ms: 500 });
  t.equal(held.timedOut, true, '/h2/stall: still open at 500 ms');
  t.notOk(held.ended, 'no END_STREAM');
  t.equal(held.body.length, 4);
});
