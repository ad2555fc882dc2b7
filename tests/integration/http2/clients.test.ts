// Real HTTP/2 clients against the chaos host's /h2/* lies over prior
// knowledge: curl (--http2-prior-knowledge; its exit code), nghttp (Debian
// nghttp2-client; "not processed") and Node's http2.connect (the stream's
// error, RST code and the GOAWAY it saw). Each cell checks the documented
// failure; /status/200 over the same client is the honest baseline that must
// not fail (the node:http2 twins on control are not built yet). docs/http2.md.
import http2 from 'node:http2';
import t from 'tap';
import { startChaos } from '../../helpers/servers.js';
import { runClient } from '../../helpers/process.js';

const { port } = await startChaos(t, { idleTimeoutMs: 2000 });
const base = `http://127.0.0.1:${port}`;

const run = (file: string, args: readonly string[]): Promise<{ code: number; output: string }> => runClient(file, args, 15_000);

interface NodeOutcome {
  status?: string;
  error?: string;
  rst?: number;
  goaway?: string;
  bytes: number;
}

function nodeGet(path: string): Promise<NodeOutcome> {
  return new Promise((resolve) => {
    const session = http2.connect(base);
    const out: NodeOutcome = { bytes: 0 };
    session.on('error', () => undefined);
    session.on('goaway', (_code, _last, data) => void (out.goaway = data?.toString()));
    const req = session.request({ ':path': path });
    req.on('response', (headers) => void (out.status = String(headers[':status'])));
    req.on('data', (chunk: Buffer) => void (out.bytes += chunk.length));
    req.on('error', (error: NodeJS.ErrnoException) => void (out.error = error.code));
    const done = (): void => {
      out.rst = req.rstCode;
      session.destroy();
      resolve(out);
    };
    req.on('close', done);
    setTimeout(done, 8000).unref();
    req.end();
  });
}

/** path → curl's exit code, whether nghttp processes it, what Node's stream reports. */
const CELLS: readonly (readonly [path: string, curl: number, nghttpProcessed: boolean, node: Partial<NodeOutcome>])[] = [
  ['/h2/rst', 92, false, { error: 'ERR_HTTP2_STREAM_ERROR', rst: 2, bytes: 6 }],
  ['/h2/goaway?mode=zero', 16, false, { rst: 7, goaway: 'chaos:zero' }],
  ['/h2/goaway?mode=increasing', 52, false, { error: 'ERR_HTTP2_ERROR' }],
  ['/h2/settings?mode=max-frame-invalid', 52, false, { error: 'ERR_HTTP2_ERROR' }],
  ['/h2/settings?mode=enable-push-1', 52, false, { error: 'ERR_HTTP2_ERROR' }],
  ['/h2/frames?mode=oversize-data', 18, false, { error: 'ERR_HTTP2_ERROR', bytes: 0 }],
  ['/h2/frames?mode=data-after-end-stream', 0, true, { status: '200', rst: 0 }],
  ['/h2/frames?mode=unknown-type', 0, true, { status: '200', rst: 0 }],
  ['/h2/headers?mode=uppercase', 92, false, { error: 'ERR_HTTP2_STREAM_ERROR', rst: 1 }],
  ['/h2/headers?mode=no-status', 92, false, { rst: 1 }],
  ['/h2/headers?mode=content-length-lie', 92, false, { rst: 1 }],
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
  t.match(await nodeGet('/status/200'), { status: '200', rst: 0 }, 'baseline /status/200');
  for (const [path, , , node] of CELLS) t.match(await nodeGet(path), node, path);
});
