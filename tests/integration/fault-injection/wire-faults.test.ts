// The wire-fault endpoints of the fault-injection family (/reset, /empty,
// /garbage, /chunked, /keepalive-lie, /fail-first) on real sockets: the raw
// client sees exactly what each sends and how the connection ends, within its
// documented bound; curl shows the exit code a user meets; each control twin
// answers the well-formed version.
import { execFile } from 'node:child_process';
import http from 'node:http';
import t from 'tap';
import { CHUNKED_MODES, chunkedParts, garbageBytes, resetBody } from '../../../shared/content/fault-injection/index.js';
import { JUNK_EXTENSIONS } from '../../../services/chaos/faults/chunked-corrupt.js';
import { RESET_AFTER_MS } from '../../../services/chaos/faults/reset-at.js';
import { RawConn } from '../../helpers/conn.js';
import { exchange, json } from '../../helpers/final-response.js';
import { get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';

const config = testConfig({ RATE_LIMIT_GENERAL: '0' });
const chaos = (await startChaos(t, { config })).port;
const control = (await startHttp(t, 'control', config)).port;

/** Every fault here ends the connection within this bound on loopback (docs/fault-injection.md: 1 s). */
const BOUND_MS = 1000;

/** curl's exit code and what it printed on stderr. */
function curl(args: readonly string[]): Promise<{ code: number; stderr: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-sS', '--max-time', '10', ...args], { encoding: 'latin1', timeout: 15_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(error);
      else resolve({ code: error ? Number(error.code) : 0, stderr, stdout });
    });
  });
}

t.test('/reset: a TCP reset at each phase, within the bound', async (t) => {
  const before = await rawExchange(chaos, get('/reset'));
  t.equal(before.end, 'reset', 'default before-head: a reset');
  t.equal(before.data.length, 0, '…and not a byte before it');
  t.ok(before.elapsedMs < BOUND_MS, `in ${before.elapsedMs.toFixed(0)} ms`);

  const afterHead = await rawExchange(chaos, get('/reset?phase=after-head'));
  t.equal(afterHead.end, 'reset', 'after-head: a reset');
  const head = parseHead(afterHead.data);
  t.equal(head.status, 200);
  t.equal(head.header('content-length'), String(512 + 1024), 'the head declares a body');
  t.equal(head.header('x-chaos-reset-phase'), 'after-head');
  t.equal(head.header('x-chaos-category'), 'fault-injection');
  t.equal(head.rest.length, 0, 'no body byte after the head');
  t.ok(afterHead.elapsedMs < BOUND_MS);

  for (const after of [0, 1, 512, 20_000]) {
    const mid = await rawExchange(chaos, get(`/reset?phase=mid-body&after=${after}`));
    t.equal(mid.end, 'reset', `mid-body after=${after}: a reset`);
    const h = parseHead(mid.data);
    t.equal(h.header('content-length'), String(after + 1024));
    t.equal(h.header('x-chaos-reset-after'), String(after));
    t.same(h.rest, resetBody(after).subarray(0, after), `exactly ${after} body bytes, then the reset`);
    t.ok(mid.elapsedMs < BOUND_MS + RESET_AFTER_MS, `in ${mid.elapsedMs.toFixed(0)} ms`);
  }

  const clamped = parseHead((await rawExchange(chaos, get('/reset?phase=after-head&after=99999'))).data);
  t.equal(clamped.header('x-chaos-clamped'), 'after=65536');

  for (const phase of ['before-head', 'after-head', 'mid-body']) {
    const r = await curl([`http://127.0.0.1:${chaos}/reset?phase=${phase}`]);
    t.equal(r.code, 56, `curl ${phase}: exit 56`);
    t.match(r.stderr, /Connection reset by peer|Recv failure/, `curl ${phase}: ${r.stderr.trim()}`);
  }
});

t.test('/empty: the request is read, then a FIN with zero bytes', async (t) => {
  const r = await rawExchange(chaos, get('/empty'));
  t.equal(r.end, 'fin');
  t.equal(r.data.length, 0);
  t.ok(r.elapsedMs < BOUND_MS);
  // A request with a body: the body is read first, and still nothing comes back.
  const post = await rawExchange(chaos, ['GET /empty HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n', 'hello']);
  t.equal(post.end, 'fin');
  t.equal(post.data.length, 0);
  const c = await curl([`http://127.0.0.1:${chaos}/empty`]);
  t.equal(c.code, 52, 'curl: exit 52');
  t.match(c.stderr, /Empty reply from server/);
});

t.test('/garbage: n seeded bytes that are not HTTP, then a FIN', async (t) => {
  const r = await rawExchange(chaos, get('/garbage'));
  t.equal(r.end, 'fin');
  t.same(r.data, garbageBytes('42', 1024), 'default: 1024 bytes of seed 42');
  t.notOk(r.data.toString('latin1').startsWith('HTTP/'), 'not an HTTP response');
  const a = await rawExchange(chaos, get('/garbage?n=300&seed=abc'));
  const b = await rawExchange(chaos, get('/garbage?n=300&seed=abc'));
  t.equal(a.data.length, 300);
  t.same(a.data, b.data, 'the same seed, the same bytes');
  t.notSame(a.data, (await rawExchange(chaos, get('/garbage?n=300&seed=abd'))).data, 'another seed, other bytes');
  t.equal((await rawExchange(chaos, get('/garbage?n=0'))).data.length, 1, 'n=0 is clamped to 1');
  const big = await rawExchange(chaos, get('/garbage?n=999999'));
  t.equal(big.data.length, 65_536, 'n is clamped to 65536');
  t.ok(big.elapsedMs < BOUND_MS);
  const head = await rawExchange(chaos, get('/garbage?n=10', {}, 'HEAD'));
  t.equal(head.data.length, 10, 'HEAD gets the garbage too: nothing is framed');
  const c = await curl([`http://127.0.0.1:${chaos}/garbage`]);
  t.not(c.code, 0, `curl fails (exit ${c.code}: ${c.stderr.trim()})`);

  const twin = await exchange(control, get('/garbage?n=300&seed=abc'));
  t.equal(twin.response.status, 200);
  t.equal(twin.response.header('content-type'), 'application/octet-stream');
  t.same(twin.body, a.data, 'control: the same bytes, framed by Content-Length');
});

t.test('/chunked: each lie on the wire', async (t) => {
  const parts = (mode: string): Buffer[] => [...chunkedParts(mode)];
  const chunks = (mode: string, ext = ''): string => parts(mode).map((p) => `${p.length.toString(16)}${ext}\r\n${p.toString('latin1')}\r\n`).join('');
  const expected: Record<string, (mode: string) => string> = {
    'bad-size': (m) => chunks(m).replace(/^[0-9a-f]+/, 'zz') + '0\r\n\r\n',
    'size-too-large': (m) => `${((parts(m)[0] as Buffer).length + 1024).toString(16)}\r\n${(parts(m)[0] as Buffer).toString('latin1')}`,
    'missing-terminator': (m) => chunks(m),
    'junk-extensions': (m) => chunks(m, JUNK_EXTENSIONS) + '0\r\n\r\n',
    'junk-trailers': (m) => `${chunks(m)}0\r\nthis is not a field\r\nX Chaos Trailer: space in the name\r\n: empty name\r\n\r\n`,
    'cl-and-te': (m) => chunks(m) + '0\r\n\r\n',
  };
  t.same(Object.keys(expected), [...CHUNKED_MODES]);
  for (const mode of CHUNKED_MODES) {
    const r = await rawExchange(chaos, get(`/chunked?mode=${mode}`));
    t.equal(r.end, 'fin', `${mode}: closed after the body`);
    t.ok(r.elapsedMs < BOUND_MS);
    const head = parseHead(r.data);
    t.equal(head.header('transfer-encoding'), 'chunked', `${mode}: Transfer-Encoding: chunked`);
    t.equal(head.header('x-chaos-chunked-mode'), mode);
    const length = parts(mode).reduce((n, p) => n + p.length, 0);
    t.equal(head.header('content-length'), mode === 'cl-and-te' ? String(length) : undefined, `${mode}: Content-Length only with cl-and-te`);
    t.equal(head.rest.toString('latin1'), (expected[mode] as (m: string) => string)(mode), `${mode}: the body bytes`);
  }
  const c = await curl([`http://127.0.0.1:${chaos}/chunked?mode=bad-size`]);
  t.equal(c.code, 56, 'curl bad-size: exit 56');
  t.match(c.stderr, /chunk|Recv failure/i);
  for (const [mode, code] of [['size-too-large', 18], ['missing-terminator', 18], ['junk-extensions', 0], ['cl-and-te', 0]] as const) {
    const r = await curl(['-o', '/dev/null', `http://127.0.0.1:${chaos}/chunked?mode=${mode}`]);
    t.equal(r.code, code, `curl ${mode}: exit ${code} ${r.stderr.trim()}`);
  }
  // How a malformed trailer section fails depends on curl's version (43 with curl 8).
  const trailers = await curl(['-o', '/dev/null', `http://127.0.0.1:${chaos}/chunked?mode=junk-trailers`]);
  t.not(trailers.code, 0, `curl junk-trailers: exit ${trailers.code} ${trailers.stderr.trim()}`);

  // The twin: node's own chunked framing of the same three parts.
  const twin = await rawExchange(control, get('/chunked?mode=junk-trailers'), { until: (d) => d.includes('\r\n0\r\n\r\n') });
  const th = parseHead(twin.data);
  t.equal(th.status, 200);
  t.equal(th.header('transfer-encoding'), 'chunked');
  t.equal(th.header('content-length'), undefined);
  t.equal(th.rest.toString('latin1'), chunks('junk-trailers') + '0\r\n\r\n', 'control: a correct chunked body');
  const decoded = await new Promise<string>((resolve, reject) => {
    http.get(`http://127.0.0.1:${control}/chunked`, (res) => {
      let text = '';
      res.setEncoding('latin1');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve(text));
    }).on('error', reject);
  });
  t.same(JSON.parse(decoded), { endpoint: '/chunked', mode: 'bad-size', chunks: 3 }, 'control: node decodes it');
});

t.test('/keepalive-lie: a keep-alive promise, then a FIN; the next request is never answered', async (t) => {
  const conn = await RawConn.open(chaos);
  t.teardown(() => conn.destroy());
  conn.write(get('/keepalive-lie'));
  t.equal(await conn.waitEnd(BOUND_MS), 'fin', 'closed right after the response');
  const head = parseHead(conn.received);
  t.equal(head.status, 200);
  t.equal(head.header('connection'), 'keep-alive');
  t.equal(head.header('keep-alive'), 'timeout=60');
  t.same(JSON.parse(head.rest.toString()), { endpoint: '/keepalive-lie', keep_alive: true });
  t.equal(head.rest.length, Number(head.header('content-length')), 'the response itself is complete');

  // Pipelined: the second request is lost with the connection.
  const r = await rawExchange(chaos, [get('/keepalive-lie'), get('/json')]);
  t.equal(r.end, 'fin');
  t.equal(r.data.toString('latin1').match(/HTTP\/1\.1 /g)?.length, 1, 'one response, the pipelined one never comes');
  // Even after Connection: close the lie stands.
  const closing = parseHead((await rawExchange(chaos, get('/keepalive-lie', { Connection: 'close' }))).data);
  t.same(closing.headers('connection'), ['keep-alive']);

  // The twin keeps its promise: two requests on one connection.
  const twin = await RawConn.open(control);
  t.teardown(() => twin.destroy());
  twin.write(get('/keepalive-lie'));
  t.ok(await twin.waitFor((d) => d.includes('"chaos_would"')));
  twin.write(get('/keepalive-lie'));
  t.ok(await twin.waitFor((d) => d.toString('latin1').split('HTTP/1.1 200').length === 3), 'control: the second request is answered too');
  t.equal(twin.ended, undefined, 'control: still open');
  t.match(twin.text, /\r\nKeep-Alive: timeout=\d+\r\n/);
});

t.test('/fail-first: n failures with Retry-After, then 200 until the record expires', async (t) => {
  const seen: [number, string | undefined, string | undefined, string | undefined][] = [];
  for (let i = 0; i < 5; i++) {
    const ex = await exchange(chaos, get('/fail-first?id=ff-a'));
    const r = ex.response;
    seen.push([r.status, r.header('retry-after'), r.header('x-chaos-fail-first-attempt'), r.header('x-chaos-fail-first-remaining')]);
  }
  t.same(seen, [
    [503, '1', '1', '2'],
    [503, '1', '2', '1'],
    [503, '1', '3', '0'],
    [200, undefined, '4', '0'],
    [200, undefined, '5', '0'],
  ]);
  const custom = await exchange(chaos, get('/fail-first?id=ff-b&n=1&status=429'));
  t.equal(custom.response.status, 429);
  t.match(json(custom), { endpoint: '/fail-first', id: 'ff-b', attempt: 1, failed: true, status: 429, fail_first: 1 });
  t.equal((await exchange(chaos, get('/fail-first?id=ff-b&n=1&status=429'))).response.status, 200, 'then 200');
  t.equal((await exchange(chaos, get('/fail-first?id=ff-c'))).response.status, 503, 'another id starts its own count');
  // ttl=1: after a second the count starts again.
  t.equal((await exchange(chaos, get('/fail-first?id=ff-d&n=1&ttl=1'))).response.status, 503);
  t.equal((await exchange(chaos, get('/fail-first?id=ff-d&n=1&ttl=1'))).response.status, 200);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  t.equal((await exchange(chaos, get('/fail-first?id=ff-d&n=1&ttl=1'))).response.status, 503, 'the record expired: failing again');
  const clamped = await exchange(chaos, get('/fail-first?id=ff-e&status=700'));
  t.equal(clamped.response.status, 599);
  t.equal(clamped.response.header('x-chaos-clamped'), 'status=599');
  t.equal((await exchange(chaos, get('/fail-first'))).response.status, 400, 'id is required');

  for (let i = 0; i < 3; i++) {
    const twin = await exchange(control, get('/fail-first?id=ff-a&n=5'));
    t.equal(twin.response.status, 200, 'control: never fails');
    t.equal(twin.response.header('retry-after'), undefined);
    t.same(json(twin), { endpoint: '/fail-first', id: 'ff-a', attempt: null, failed: false, status: 200, fail_first: 5, ttl: 300 });
  }
});

t.test('control twins of /reset and /empty: complete answers naming the fault', async (t) => {
  for (const phase of ['before-head', 'after-head', 'mid-body']) {
    const ex = await exchange(control, get(`/reset?phase=${phase}&after=7`));
    t.equal(ex.response.status, 200);
    t.equal(ex.response.header('x-chaos-counterpart'), 'http://chaos.test:8080/reset?phase=' + phase + '&after=7');
    t.match(json(ex), { endpoint: '/reset', phase, after: 7, chaos_would: /reset/ });
  }
  const empty = await exchange(control, get('/empty'));
  t.equal(empty.response.status, 200);
  t.match(json(empty), { endpoint: '/empty', chaos_would: /close/ });
});

t.test('/mix: the parts composed, listed in X-Chaos-Mix in order', async (t) => {
  const plain = await exchange(chaos, get('/mix'));
  t.equal(plain.response.status, 200);
  t.equal(plain.response.header('x-chaos-mix'), 'status=200, body=json');
  t.same(json(plain), { endpoint: '/mix', status: 200 });

  const composed = await exchange(chaos, get('/mix?status=418&header=X-One:1&header=X-Two:%20two%20&body=text:hello%20world'));
  const r = composed.response;
  t.equal(r.status, 418);
  t.equal(r.header('x-chaos-mix'), 'status=418, header=X-One, header=X-Two, body=text');
  t.equal(r.header('x-one'), '1');
  t.equal(r.header('x-two'), 'two', 'values are trimmed');
  t.equal(r.header('content-type'), 'text/plain; charset=utf-8');
  t.equal(composed.body.toString(), 'hello world');
  const typed = await exchange(chaos, get('/mix?header=Content-Type:text/x-mine&body=text:hi'));
  t.same(typed.response.headers('content-type'), ['text/x-mine'], 'a Content-Type part replaces the body type');
  const bytes = await exchange(chaos, get('/mix?body=bytes:300'));
  t.equal(bytes.body.length, 300);
  const noBody = await rawExchange(chaos, get('/mix?status=204&body=bytes:10'), { until: (d) => d.includes('\r\n\r\n') });
  const nh = parseHead(noBody.data);
  t.equal(nh.status, 204);
  t.equal(nh.header('content-length'), undefined, '204: no body, no Content-Length');
  t.equal(nh.rest.length, 0);

  const delayed = await rawExchange(chaos, get('/mix?delay=300'), { until: (d) => d.includes('"status":200}') });
  t.ok((delayed.arrivals[0]?.at ?? 0) >= 290, `delay=300: the first byte after ${delayed.arrivals[0]?.at.toFixed(0)} ms`);
  t.ok(delayed.elapsedMs < 300 + BOUND_MS);
  t.equal(parseHead(delayed.data).header('x-chaos-mix'), 'status=200, delay=300, body=json');

  const twin = await rawExchange(control, get('/mix?delay=300&status=503&header=X-One:1&body=text:hello'), { until: (d) => d.includes('hello') });
  t.ok((twin.arrivals[0]?.at ?? 0) >= 290, 'control: the same delay');
  const th = parseHead(twin.data);
  t.equal(th.status, 503);
  t.equal(th.header('x-one'), '1');
  t.equal(th.rest.toString(), 'hello');
  t.equal(th.header('x-chaos-mix'), undefined, 'control: no X-Chaos-Mix');
});

t.test('/mix: each fault, within its bound; the control twin ignores it', async (t) => {
  const q = (fault: string): string => `/mix?body=bytes:100&fault=${fault}`;
  const before = await rawExchange(chaos, get(q('reset-before-head')));
  t.same([before.end, before.data.length], ['reset', 0], 'reset-before-head');
  const mid = await rawExchange(chaos, get(q('reset-mid-body')));
  t.equal(mid.end, 'reset', 'reset-mid-body');
  t.equal(parseHead(mid.data).rest.length, 50, '…after half the body');
  const truncated = await rawExchange(chaos, get(q('truncate:7')));
  t.equal(truncated.end, 'fin');
  t.equal(parseHead(truncated.data).header('content-length'), '100');
  t.equal(parseHead(truncated.data).rest.length, 7, 'truncate:7');
  const empty = await rawExchange(chaos, get(q('empty')));
  t.same([empty.end, empty.data.length], ['fin', 0], 'empty');
  const junk = await rawExchange(chaos, get(q('garbage')));
  t.equal(junk.end, 'fin');
  t.equal(junk.data.length, 1024, 'garbage: 1024 bytes');
  t.notOk(junk.data.toString('latin1').startsWith('HTTP/'));
  const chunked = await rawExchange(chaos, get(q('chunked-bad-size')));
  t.equal(parseHead(chunked.data).header('transfer-encoding'), 'chunked');
  t.match(parseHead(chunked.data).rest.toString('latin1'), /^zz\r\n/, 'chunked-bad-size');
  for (const r of [before, mid, truncated, empty, junk, chunked]) t.ok(r.elapsedMs < BOUND_MS);

  const slow = await rawExchange(chaos, get('/mix?fault=slow-head:50'), { until: (d) => d.includes('"status":200}') });
  t.ok(slow.arrivals.length >= 5, `slow-head:50: the head in pieces (${slow.arrivals.length} arrivals)`);
  t.ok(slow.elapsedMs >= 9 * 50 - 20 && slow.elapsedMs < 10 * 50 + BOUND_MS, `ten pieces 50 ms apart (${slow.elapsedMs.toFixed(0)} ms)`);
  t.equal(parseHead(slow.data).header('x-chaos-mix'), 'status=200, body=json, fault=slow-head:50');
  const worst = await rawExchange(chaos, get('/mix?fault=slow-head:1000&delay=15000'), { timeoutMs: 200 });
  t.equal(worst.end, 'timeout', 'the longest mix (15 s delay, then 9 s of head) is still under way after 200 ms; its bound is 25 s');

  const c = await curl([`http://127.0.0.1:${chaos}${q('reset-before-head')}`]);
  t.equal(c.code, 56, 'curl: reset-before-head exit 56');

  for (const fault of ['reset-before-head', 'empty', 'garbage', 'truncate:7', 'chunked-bad-size', 'slow-head:1']) {
    const ex = await exchange(control, get(q(fault)));
    t.equal(ex.response.status, 200, `control ${fault}: a complete answer`);
    t.equal(ex.body.length, 100);
  }
});

t.test('/mix: an invalid part is a 400 naming it, with no X-Chaos-*', async (t) => {
  const cases: [string, string, RegExp][] = [
    ['header=NoColon', 'header', /Name:Value/],
    ['header=Bad%20Name:1', 'header', /token/],
    ['header=Content-Length:1', 'header', /set by the service/],
    ['header=X-Chaos-Forged:1', 'header', /set by the service/],
    ['header=X-A:%0Dinjected', 'header', /control character/],
    ['header=X-A:a%0D%0AX-B:%20b', 'header', /control character/],
    [Array.from({ length: 21 }, (_, i) => `header=X-${i}:1`).join('&'), 'header', /21 times; at most 20/],
    ['body=bytes:65537', 'body', /bytes:N/],
    [`body=text:${'a'.repeat(4097)}`, 'body', /at most 4096/],
    ['body=yaml', 'body', /json, bytes:N or text/],
    ['fault=truncate:x', 'fault', /truncate:N/],
    ['fault=slow-head:0', 'fault', /slow-head:MS/],
    ['fault=explode', 'fault', /not a fault/],
  ];
  for (const port of [chaos, control]) {
    for (const [query, param, reason] of cases) {
      const ex = await exchange(port, get(`/mix?${query}`));
      t.equal(ex.response.status, 400, `${query.slice(0, 40)}: 400`);
      t.match(json(ex), { error: 'invalid_parameter', param, reason }, `names ${param}`);
      t.notOk(ex.response.headerLines.some(([name]) => /^x-chaos-/i.test(name)), 'no X-Chaos-*');
    }
  }
  const twenty = await exchange(chaos, get(`/mix?${Array.from({ length: 20 }, (_, i) => `header=X-${i}:${i}`).join('&')}`));
  t.equal(twenty.response.status, 200, '20 headers are fine');
  t.equal(twenty.response.header('x-19'), '19');
});
