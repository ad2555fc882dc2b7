// Real HTTP/2 clients against the second pass of /h2/* lies (stall, the
// never-ack and header-table-shrink-lie SETTINGS, flow control, the stalled
// upload, server push) over prior knowledge: curl's exit code, what nghttp
// printed, what Node's http2.connect saw. Each cell checks what was measured
// and is published in docs/http2.md ("What clients did"). The cells of a
// client run at once: the held ones end at MAX_RESPONSE_MS (12 s here; the
// never-ack body 11 s, after nghttp's 10 s SETTINGS timeout).
import { writeFileSync } from 'node:fs';
import type http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { h2Facts, h2Get, type H2Facts } from '../../../scripts/scorecard/h2-node.js';
import { startChaos, testConfig } from '../../helpers/servers.js';
import { runClient } from '../../helpers/process.js';

const { port } = await startChaos(t, { idleTimeoutMs: 20_000, config: testConfig({ MAX_RESPONSE_MS: '12000' }) });
const base = `http://127.0.0.1:${port}`;
const upload = join(tmpdir(), `h2-upload-${process.pid}.bin`);
writeFileSync(upload, Buffer.alloc(200_000));

const run = (file: string, args: readonly string[]): Promise<{ code: number; output: string }> => runClient(file, args, 30_000);

/** What Node's stream must report (scripts/scorecard/h2-node.ts): its status, first error, RST code, the GOAWAY's debug data, body bytes, pushes. */
type NodeCell = Partial<H2Facts>;

/** Node's http2.connect, as the scorecard drives it, with a 200,000-byte POST body for the upload lies; 25 s at most. */
const nodeGet = async (path: string, post: boolean, settings: http2.Settings = {}): Promise<H2Facts> =>
  h2Facts(await h2Get(base, path, { settings, ms: 25_000, ...(post ? { method: 'POST', body: Buffer.alloc(200_000) } : {}) }));

interface Cell {
  readonly path: string;
  /** A 200,000-byte POST body (the upload lies). */
  readonly post?: boolean;
  /** curl's exit code. */
  readonly curl: number;
  /** nghttp's extra arguments and what its -v output must show. */
  readonly nghttp: readonly [args: readonly string[], shows: RegExp];
  readonly node: NodeCell;
  readonly nodeSettings?: http2.Settings;
}

const NOT_PROCESSED = /not processed/;
const CELLS: readonly Cell[] = [
  { path: '/h2/stall?after=4', curl: 18, nghttp: [[], /connection lifetime reached[\s\S]*not processed/], node: { status: 200, bytes: 4, rstCode: 8, goaway: 'connection lifetime reached' } },
  { path: '/h2/settings?mode=never-ack', curl: 0, nghttp: [[], /SETTINGS_TIMEOUT[\s\S]*not processed/], node: { status: 200, bytes: 47, rstCode: 0 } },
  { path: '/h2/settings?mode=header-table-shrink-lie', curl: 52, nghttp: [['-c', '256'], NOT_PROCESSED], node: { error: 'ERR_HTTP2_ERROR', bytes: 0 } },
  { path: '/h2/flow?mode=window-overflow', curl: 18, nghttp: [[], /Flow control error[\s\S]*not processed/], node: { status: 200, error: 'ERR_HTTP2_ERROR', bytes: 0 } },
  { path: '/h2/flow?mode=exceed-window', curl: 0, nghttp: [[], /^(?![\s\S]*not processed)/], node: { status: 200, bytes: 65_536, rstCode: 0 } },
  { path: '/h2/flow?mode=zero-window-forever&ms=2000', post: true, curl: 52, nghttp: [[], /window_size_increment == 0[\s\S]*not processed/], node: { error: 'ERR_HTTP2_ERROR', bytes: 0 } },
  { path: '/h2/upload-stall?ms=2000', post: true, curl: 0, nghttp: [[], /x-chaos-stall-ms: 2000(?![\s\S]*not processed)/], node: { status: 200, bytes: 54, rstCode: 0 } },
  { path: '/h2/push?mode=when-disabled', curl: 18, nghttp: [['--no-push'], /push disabled[\s\S]*not processed/], node: { status: 200, error: 'ERR_HTTP2_ERROR', bytes: 0 }, nodeSettings: { enablePush: false } },
  { path: '/h2/push?mode=even-parent', curl: 18, nghttp: [[], /PUSH_PROMISE: invalid stream_id[\s\S]*not processed/], node: { status: 200, error: 'ERR_HTTP2_ERROR', bytes: 0 } },
  { path: '/h2/push?mode=push-then-rst', curl: 18, nghttp: [[], /INTERNAL_ERROR[\s\S]*total=2, processed=1/], node: { status: 200, pushes: 1, rstCode: 0 } },
];

t.test('curl --http2-prior-knowledge', async (t) => {
  const codes = await Promise.all(CELLS.map(async ({ path, post }) => {
    const body = post ? ['--data-binary', `@${upload}`] : [];
    return (await run('curl', ['-sS', '--http2-prior-knowledge', ...body, '-o', '/dev/null', `${base}${path}`])).code;
  }));
  CELLS.forEach(({ path, curl }, i) => t.equal(codes[i], curl, path));
});

t.test('nghttp (nghttp2-client)', async (t) => {
  const outputs = await Promise.all(CELLS.map(async ({ path, post, nghttp: [args] }) => {
    const body = post ? ['-d', upload] : [];
    return (await run('nghttp', ['-nv', ...args, ...body, `${base}${path}`])).output;
  }));
  CELLS.forEach(({ path, nghttp: [, shows] }, i) => t.match(outputs[i], shows, path));
});

t.test('Node http2.connect', async (t) => {
  const outcomes = await Promise.all(CELLS.map(({ path, post, nodeSettings }) => nodeGet(path, post === true, nodeSettings)));
  CELLS.forEach(({ path, node }, i) => t.match(outcomes[i], node, path));
  t.match(await nodeGet('/h2/push?mode=when-disabled', false), { status: 200, pushes: 1, rstCode: 0 }, 'push enabled (Node\'s default): the promise is legal and taken');
});
