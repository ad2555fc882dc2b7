// The control host over HTTP/2 (issue 28): prior knowledge on the node:http
// port goes to node:http2 (the preface sniffed, even split across packets;
// anything else stays HTTP/1.1), the /h2/* twins answer what their chaos
// twins break, done right (Node http2.connect checks the body, RST code,
// GOAWAY, SETTINGS, pushes), the ordinary twins run over HTTP/2 through the
// compatibility API (every catalog example, status for status against
// HTTP/1.1), and the bounds hold (per-IP cap, advertised SETTINGS, the
// connection's life). docs/http2.md.
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import t, { type Test } from 'tap';
import { serviceRegistries } from '../../../services/registries.js';
import { buildCatalog } from '../../../shared/catalog/catalog.js';
import { transportMask, transportBit } from '../../../shared/registry/transports.js';
import { h2Get, type H2Outcome } from '../../../scripts/scorecard/h2-node.js';
import { startHttp, testConfig } from '../../helpers/servers.js';

const config = testConfig({ MAX_CONNECTIONS_PER_IP: '6' });
const { port } = await startHttp(t, 'control', config);
const origin = `http://127.0.0.1:${port}`;

interface Http1Outcome {
  status: number;
  version: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function http1(path: string, init: { method?: string; headers?: http.OutgoingHttpHeaders; body?: string } = {}): Promise<Http1Outcome> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers: init.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, version: res.httpVersion, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.setTimeout(8000, () => req.destroy(new Error(`${path}: no answer in 8 s`)));
    req.on('error', reject);
    req.end(init.body);
  });
}

const json = (body: Buffer): Record<string, unknown> => JSON.parse(body.toString()) as Record<string, unknown>;
/** The JSON line a twin's body starts with (filler dots may follow it). */
const head = (body: Buffer): Record<string, unknown> => json(body.subarray(0, body.indexOf('}') + 1));

t.test('one port, two protocols: prior knowledge gets HTTP/2, anything else HTTP/1.1', async (t) => {
  const h2 = await h2Get(origin, '/status/200');
  t.equal(h2.status, 200);
  t.equal(h2.headers['x-chaos-origin'], 'control', 'the control lines, lowercase');
  t.match(h2.headers['x-chaos-counterpart'], /\/status\/200$/);
  t.same(json(h2.body), json((await http1('/status/200')).body), 'the same body as over HTTP/1.1');
  t.equal((await http1('/status/200')).version, '1.1');
  t.equal(h2.remoteSettings?.maxConcurrentStreams, 100, 'SETTINGS_MAX_CONCURRENT_STREAMS advertised');
  t.equal(h2.remoteSettings?.maxHeaderListSize, 16_384, 'SETTINGS_MAX_HEADER_LIST_SIZE advertised');
  t.equal(h2.remoteSettings?.enablePush, false, 'a server says ENABLE_PUSH 0, never 1');
});

/** Writes `parts` with a pause between them; resolves with what came back within `ms`. */
function rawExchange(parts: readonly Buffer[], until: (got: Buffer) => boolean, ms = 3000): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    const finish = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(got);
    };
    const timer = setTimeout(finish, ms);
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (until(got)) finish();
    });
    socket.on('error', finish);
    socket.on('connect', async () => {
      for (const part of parts) {
        socket.write(part);
        await new Promise((r) => setTimeout(r, 60));
      }
    });
  });
}

t.test('the preface is recognised across packets, and a request beginning like it is still HTTP/1.1', async (t) => {
  const preface = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
  const emptySettings = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);
  const got = await rawExchange([preface.subarray(0, 3), preface.subarray(3, 17), Buffer.concat([preface.subarray(17), emptySettings])], (b) => b.length >= 9);
  t.equal(got[3], 4, 'the server preface: a SETTINGS frame');
  t.equal(got.readUInt32BE(5) & 0x7fffffff, 0, 'on stream 0');
  const http1Like = await rawExchange([Buffer.from('P'), Buffer.from('UT /status/200 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n')], (b) => b.includes('\r\n\r\n'));
  t.match(http1Like.toString('latin1'), /^HTTP\/1\.1 /, 'PUT: HTTP/1.1, its first byte held back and given back');
});

t.test('the /h2/* twins over Node http2.connect: whole bodies, no resets, clean GOAWAY, valid SETTINGS', async (t) => {
  const whole = (t: Test, out: H2Outcome, path: string): void => {
    t.equal(out.status, 200, `${path}: 200`);
    t.equal(out.error, undefined, `${path}: no error`);
    t.equal(out.rstCode, 0, `${path}: the stream ends with NO_ERROR`);
    t.equal(out.body.length, Number(out.headers['content-length']), `${path}: the whole body its content-length promises`);
  };
  const rst = await h2Get(origin, '/h2/rst?at=100&code=8');
  whole(t, rst, '/h2/rst');
  t.ok(rst.body.subarray(-100).every((b) => b === 0x2e), 'the `at` bytes the chaos twin cuts after are all there');

  for (const mode of ['zero', 'max-then-close', 'increasing', 'after-response']) {
    const out = await h2Get(origin, `/h2/goaway?mode=${mode}&code=2`, { settleMs: 500 });
    whole(t, out, `/h2/goaway?mode=${mode}`);
    t.match(out.goaway, { code: 0, lastStreamId: 1 }, `${mode}: one GOAWAY after the response, NO_ERROR, naming stream 1`);
  }

  const settings: readonly [string, (s: NonNullable<H2Outcome['remoteSettings']>) => boolean][] = [
    ['max-frame-invalid', (s) => s.maxFrameSize === 16_384],
    ['enable-push-1', (s) => s.enablePush === false],
    ['initial-window-overflow', (s) => s.initialWindowSize === 2 ** 31 - 1],
    ['never-ack', () => true],
    ['header-table-shrink-lie', () => true],
  ];
  for (const [mode, valid] of settings) {
    const out = await h2Get(origin, `/h2/settings?mode=${mode}`, { settleMs: 200 });
    whole(t, out, `/h2/settings?mode=${mode}`);
    t.ok(out.remoteSettings && valid(out.remoteSettings), `${mode}: the server's SETTINGS are valid (${JSON.stringify(out.remoteSettings)})`);
    t.equal(out.goaway, undefined, `${mode}: the connection stays open`);
  }

  const oversize = await h2Get(origin, '/h2/frames?mode=oversize-data&size=40000');
  whole(t, oversize, '/h2/frames?mode=oversize-data');
  t.equal(oversize.body.length, 40_000);
  for (const mode of ['data-after-end-stream', 'continuation-orphan', 'headers-on-closed-stream', 'padding-lie', 'unknown-type']) {
    whole(t, await h2Get(origin, `/h2/frames?mode=${mode}`), `/h2/frames?mode=${mode}`);
  }
  for (const mode of ['uppercase', 'connection-header', 'no-status', 'duplicate-status', 'content-length-lie', 'hpack-bad-index']) {
    const out = await h2Get(origin, `/h2/headers?mode=${mode}`);
    whole(t, out, `/h2/headers?mode=${mode}`);
    t.notOk('connection' in out.headers, `${mode}: no connection field`);
  }

  const stall = await h2Get(origin, '/h2/stall?after=10');
  whole(t, stall, '/h2/stall');
  const upload = await h2Get(origin, '/h2/upload-stall', { method: 'POST', body: Buffer.alloc(200_000, 0x61) });
  whole(t, upload, '/h2/upload-stall');
  t.equal(head(upload.body)['received'], 200_000, 'the whole upload read, past the 65,535 initial window');
  const flow = await h2Get(origin, '/h2/flow?mode=exceed-window', { method: 'PUT', body: Buffer.alloc(100_000, 0x61) });
  whole(t, flow, '/h2/flow');
  t.equal(flow.body.length, 192 * 1024, 'a body three windows long, sent within the windows');
  t.equal(head(flow.body)['received'], 100_000);
});

t.test('/h2/push: a push only where the client allows one, whole', async (t) => {
  const allowed = await h2Get(origin, '/h2/push?mode=push-then-rst', { settings: { enablePush: true }, settleMs: 300 });
  t.equal(allowed.status, 200);
  t.match(allowed.pushes, [{ path: '/status/200', status: 200 }], 'one promised stream, answered');
  t.match(json(allowed.pushes[0]?.body ?? Buffer.from('{}')), { status: 200 }, 'the pushed body is /status/200\'s');
  t.equal(head(allowed.body)['pushed'], true);
  const refused = await h2Get(origin, '/h2/push?mode=when-disabled', { settings: { enablePush: false }, settleMs: 300 });
  t.equal(refused.status, 200);
  t.same(refused.pushes, [], 'ENABLE_PUSH 0: no PUSH_PROMISE');
  t.equal(head(refused.body)['pushed'], false);
});

t.test('over HTTP/1.1: an /h2/* twin is the real 421; /h2/upgrade declines h2c with an ordinary 200', async (t) => {
  const refused = await http1('/h2/rst');
  t.equal(refused.status, 421);
  t.notOk(Object.keys(refused.headers).some((name) => name.startsWith('x-chaos-')), 'a real error: no x-chaos-*');
  t.match(refused.body.toString(), /served over HTTP\/2.*came over HTTP\/1\.1/);
  const upgrade = await http1('/h2/upgrade?mode=no-settings-frame', { headers: { Connection: 'Upgrade, HTTP2-Settings', Upgrade: 'h2c', 'HTTP2-Settings': 'AAMAAABkAAQAoAAAAAIAAAAA' } });
  t.equal(upgrade.status, 200, 'no 101');
  t.equal(upgrade.version, '1.1');
  t.match(head(upgrade.body), { protocol: 'HTTP/1.1', upgrade_asked: 'h2c', upgraded: false });
  const h2 = await h2Get(origin, '/h2/upgrade');
  t.match(head(h2.body), { protocol: 'HTTP/2', upgraded: false });
});

t.test('every control example over HTTP/2 answers as over HTTP/1.1 (or the 421 of an endpoint that is not served over HTTP/2)', async (t) => {
  const catalog = buildCatalog(serviceRegistries().control, config);
  const registry = serviceRegistries().control;
  const h2Bit = transportBit('h2', false);
  const http1Bit = transportBit('http/1.1', false);
  let compared = 0;
  let held = 0;
  for (const endpoint of catalog.categories.flatMap((c) => c.endpoints)) {
    // Held responses (/delay, /drip's twins…) last seconds by design: their transport is the same code path.
    if (endpoint.longest_ms !== undefined) {
      held++;
      continue;
    }
    const url = new URL(endpoint.example.url);
    const target = url.pathname + url.search;
    const method = endpoint.example.method;
    const body = endpoint.example.body;
    const headers = endpoint.example.content_type ? { 'content-type': endpoint.example.content_type } : {};
    const mask = transportMask(registry.endpoints.find((e) => e.id === endpoint.id) ?? {});
    const two = await h2Get(origin, target, { method, headers, ...(body !== undefined ? { body: Buffer.from(body) } : {}) });
    if ((mask & h2Bit) === 0) {
      t.equal(two.status, 421, `${method} ${target}: not served over HTTP/2, the real 421`);
      continue;
    }
    if ((mask & http1Bit) === 0) {
      t.equal(two.status, 200, `${method} ${target}: HTTP/2 only, 200`);
      continue;
    }
    const one = await http1(target, { method, headers, ...(body !== undefined ? { body } : {}) });
    t.equal(two.status, one.status, `${method} ${target}: ${one.status} over both`);
    t.equal(two.error, undefined, `${method} ${target}: no stream or session error`);
    compared++;
  }
  t.ok(compared >= 90, `${compared} endpoints compared (${held} held ones left to their own tests)`);
});

t.test('bounds: the per-IP connection cap counts HTTP/2 connections at accept', async (t) => {
  const capped = await startHttp(t, 'control', testConfig({ MAX_CONNECTIONS_PER_IP: '1' }));
  const refusedBefore = capped.service.caps.refused;
  const holder = net.connect(capped.port, '127.0.0.1');
  await new Promise((resolve) => holder.once('connect', resolve));
  holder.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
  await new Promise((resolve) => setTimeout(resolve, 100));
  const second = await h2Get(`http://127.0.0.1:${capped.port}`, '/status/200', { ms: 3000 });
  t.equal(second.status, undefined, 'the second connection is closed before any answer');
  t.equal(capped.service.caps.refused, refusedBefore + 1, 'refused by the per-IP cap at accept');
  holder.destroy();
});

t.test('bounds: the connection\'s life (MAX_CONNECTION_MS) ends a session with GOAWAY NO_ERROR; a header list past 16 KiB is refused', async (t) => {
  const short = await startHttp(t, 'control', testConfig({ MAX_CONNECTION_MS: '1000' }));
  const session = http2.connect(`http://127.0.0.1:${short.port}`);
  session.on('error', () => undefined);
  const started = performance.now();
  const goaway = await new Promise<{ code: number; ms: number } | undefined>((resolve) => {
    session.once('goaway', (code) => resolve({ code, ms: performance.now() - started }));
    setTimeout(() => resolve(undefined), 6000);
  });
  session.destroy();
  t.equal(goaway?.code, 0, 'GOAWAY NO_ERROR');
  t.ok(goaway !== undefined && goaway.ms >= 900 && goaway.ms < 5000, `after the connection's life (${Math.round(goaway?.ms ?? -1)} ms)`);
  const big = await h2Get(origin, '/status/200', { headers: { 'x-big': 'a'.repeat(20_000) } });
  t.equal(big.status, 431, 'a 20 KB field: the real 431');
  t.notOk(Object.keys(big.headers).some((name) => name.startsWith('x-chaos-')), 'no x-chaos-*');
  t.equal((await h2Get(origin, '/status/200', { headers: { 'x-big': 'a'.repeat(15_000) } })).status, 200, 'within the bound: served');
});
