// The rate-limiting category on real sockets: /rate-limit (raw sockets, and
// curl for the headline lie, as a user sees it), /retry-after-formats and
// /throttle (issue 12: the exact Retry-After and limit lines of every mode, the
// throttle's clock measured from the first call: an early retry is told again,
// the 200 comes once the time has really passed; the 400s), and the control
// twins. The general per-IP limit is a cross-cutting suite: hostile/general-limit.
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import t from 'tap';
import { RETRY_AFTER_MODES, RETRY_AFTER_STATUSES } from '../../shared/content/rate-limiting.js';
import { chaosHeaderNames, exchange, json as exchangeJson } from '../helpers/final-response.js';
import { fetchJson } from '../helpers/fetch-json.js';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from '../helpers/raw.js';
import { startChaos, startHttp } from '../helpers/servers.js';

const run = promisify(execFile);

interface Reply {
  readonly res: ParsedResponse;
  readonly body: Buffer;
  readonly headText: string;
}

async function call(port: number, path: string, method = 'GET', body = '', headers: Readonly<Record<string, string>> = {}): Promise<Reply> {
  const framing: Record<string, string> = body === '' ? {} : { 'Content-Length': String(Buffer.byteLength(body)) };
  const result = await rawExchange(port, get(path, { ...headers, ...framing }, method) + body, { until: completeByLength });
  if (result.end !== 'stopped') throw new Error(`${method} ${path}: no complete response (${result.end})`);
  const res = parseHead(result.data);
  const length = Number(res.header('content-length') ?? 0);
  return { res, body: res.rest.subarray(0, length), headText: result.data.toString('latin1', 0, res.headLength) };
}

function json(reply: Reply): Record<string, unknown> {
  return JSON.parse(reply.body.toString('utf8')) as Record<string, unknown>;
}

function assertParamError(tt: Pick<typeof t, 'equal' | 'same' | 'match'>, reply: Reply, endpoint: string, param: string, error = 'invalid_parameter'): void {
  tt.equal(reply.res.status, 400, `${endpoint} ${param}: 400`);
  tt.same(reply.res.headerLines.filter(([n]) => /^x-chaos-(?!origin|counterpart)/i.test(n)), [], 'no X-Chaos-* lie on a real failure');
  tt.match(json(reply), { endpoint, error, param });
}

const LIMIT_LINES = ['RateLimit-Policy', 'RateLimit', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

function limitLines(res: ParsedResponse): string[] {
  return res.headerLines.filter(([n]) => LIMIT_LINES.some((l) => l.toLowerCase() === n.toLowerCase())).map(([n, v]) => `${n}: ${v}`);
}

t.test('/retry-after-formats: every mode, both statuses, exactly as documented; the twin is correct', async (t) => {
  const { port } = await startChaos(t);
  const { port: control } = await startHttp(t, 'control');
  for (const status of RETRY_AFTER_STATUSES) {
    for (const mode of RETRY_AFTER_MODES) {
      const before = Date.now();
      const r = await call(port, `/retry-after-formats?mode=${mode}&status=${status}`);
      const label = `${mode} ${status}`;
      t.match(r.headText, new RegExp(`^HTTP/1\\.1 ${status} ${status === '429' ? 'Too Many Requests' : 'Service Unavailable'}\\r\\n`), `${label}: status line`);
      t.equal(r.res.header('x-chaos-retry-after-mode'), mode);
      const sent = r.res.headers('retry-after');
      t.equal(sent.length, 1, `${label}: one Retry-After`);
      const value = sent[0] as string;
      t.match(json(r), { endpoint: '/retry-after-formats', mode, status: Number(status), retry_after_header: value, retry_after_seconds: 30 });
      switch (mode) {
        case 'http-date': {
          t.match(value, /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/, `${label}: an IMF-fixdate`);
          const ahead = Date.parse(value) - before;
          t.ok(ahead > 25_000 && ahead <= 31_000, `${label}: about 30 s ahead (${ahead} ms)`);
          break;
        }
        case 'past-date':
          t.ok(Date.parse(value) < before - 3_000_000, `${label}: an hour ago`);
          break;
        case 'negative':
          t.equal(value, '-30');
          break;
        case 'fractional':
          t.equal(value, '1.5');
          break;
        case 'huge':
          t.equal(value, '18446744073709551616');
          t.ok(BigInt(value) > 2n ** 64n - 1n, 'beyond an unsigned 64-bit integer');
          break;
        case 'garbage':
          t.equal(value, 'soon');
          break;
        case 'ratelimit-conflict':
          t.equal(value, '30');
          t.same(limitLines(r.res), [
            'RateLimit-Policy: "default";q=100;w=60',
            'RateLimit: "default";r=50;t=30',
            'X-RateLimit-Limit: 10',
            'X-RateLimit-Remaining: 0',
            'X-RateLimit-Reset: 5',
          ], `${label}: the two conventions disagree`);
          break;
      }
      if (mode !== 'ratelimit-conflict') t.same(limitLines(r.res), [], `${label}: no limit fields`);

      const twin = await call(control, `/retry-after-formats?mode=${mode}&status=${status}`);
      t.equal(twin.res.status, Number(status), `control ${label}: the same status`);
      t.same(twin.res.headers('retry-after'), ['30'], `control ${label}: a correct Retry-After`);
      t.match(json(twin), { mode, retry_after_header: '30', retry_after_seconds: 30 });
      if (mode === 'ratelimit-conflict') {
        t.same(limitLines(twin.res), [
          'RateLimit-Policy: "default";q=100;w=60',
          'RateLimit: "default";r=0;t=30',
          'X-RateLimit-Limit: 100',
          'X-RateLimit-Remaining: 0',
          'X-RateLimit-Reset: 30',
        ], 'control: the two conventions agree');
      }
    }
  }
  const dflt = await call(port, '/retry-after-formats');
  t.equal(dflt.res.status, 429, 'default status 429');
  t.equal(dflt.res.header('x-chaos-retry-after-mode'), 'http-date', 'default mode http-date');
  assertParamError(t, await call(port, '/retry-after-formats?mode=later'), '/retry-after-formats', 'mode');
  assertParamError(t, await call(port, '/retry-after-formats?status=500'), '/retry-after-formats', 'status');
  assertParamError(t, await call(control, '/retry-after-formats?status=500'), '/retry-after-formats', 'status');
});

t.test('/throttle: 503 with a truthful Retry-After until the time has passed since the first call, then 200', async (t) => {
  const { port } = await startChaos(t);
  const { port: control } = await startHttp(t, 'control');
  // The server starts the clock between these two readings: "early" counts
  // from the first, "the second has passed" from the second (a busy machine
  // may take a while to answer).
  const opened = performance.now();
  const first = await call(port, '/throttle?id=early&seconds=1');
  const answered = performance.now();
  t.match(first.headText, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
  t.same(first.res.headers('retry-after'), ['1'], 'Retry-After: the whole second');
  t.equal(first.res.header('x-chaos-throttled'), 'true');
  t.equal(first.res.header('cache-control'), 'no-store');
  t.same(json(first), { endpoint: '/throttle', id: 'early', seconds: 1, throttled: true, elapsed_ms: 0, retry_after: 1 });
  const again = await call(port, '/throttle?id=early&seconds=1');
  if (performance.now() - opened < 900) {
    t.equal(again.res.status, 503, 'an early retry is told again');
    t.same(again.res.headers('retry-after'), ['1'], '…with the time left, rounded up');
    t.ok((json(again).elapsed_ms as number) >= 0, 'measured from the first call');
  }
  t.equal((await call(port, '/throttle?id=other&seconds=1')).res.status, 503, 'another id has its own clock');
  const left = 1000 - (performance.now() - answered);
  if (left > 0) await sleep(left + 30);
  const after = await call(port, '/throttle?id=early&seconds=1');
  t.match(after.headText, /^HTTP\/1\.1 200 OK\r\n/, '200 once the second has passed');
  t.same(after.res.headers('retry-after'), [], 'no Retry-After on the 200');
  t.equal(after.res.header('x-chaos-throttled'), 'false');
  t.match(json(after), { id: 'early', throttled: false, retry_after: null });
  t.equal((await call(port, '/throttle?id=early&seconds=1')).res.status, 200, 'and stays 200');

  // A longer throttle: each early retry is told the true time left, never more than the first said.
  const long = await call(port, '/throttle?id=long&seconds=30');
  t.same(long.res.headers('retry-after'), ['30']);
  await sleep(1100);
  const later = await call(port, '/throttle?id=long&seconds=30');
  t.equal(later.res.status, 503);
  const told = Number(later.res.header('retry-after'));
  t.ok(told <= 29 && told >= 1, `Retry-After ${told}: the clock runs from the first call`);

  const clamped = await call(port, '/throttle?id=c&seconds=0');
  t.equal(clamped.res.header('x-chaos-clamped'), 'seconds=1');
  t.equal((await call(port, '/throttle?id=c2&seconds=99999')).res.header('retry-after'), '3600', 'seconds clamped to 3600');

  for (let i = 0; i < 3; i++) {
    const twin = await call(control, '/throttle?id=early&seconds=1');
    t.equal(twin.res.status, 200, `control call ${i + 1}: never throttled`);
    t.same(twin.res.headers('retry-after'), []);
    t.same(json(twin), { endpoint: '/throttle', id: 'early', seconds: 1, throttled: false, elapsed_ms: null, retry_after: null });
  }
  assertParamError(t, await call(port, '/throttle'), '/throttle', 'id', 'missing_parameter');
  assertParamError(t, await call(port, '/throttle?id='), '/throttle', 'id');
  assertParamError(t, await call(port, `/throttle?id=${'x'.repeat(129)}`), '/throttle', 'id');
  assertParamError(t, await call(port, '/throttle?id=a&seconds=soon'), '/throttle', 'seconds');
  assertParamError(t, await call(control, '/throttle'), '/throttle', 'id', 'missing_parameter');
});

t.test('/throttle takes a POST as a GET (a throttled write, the client exam\'s post-503); other methods are 405', async (t) => {
  const { port } = await startChaos(t);
  const { port: control } = await startHttp(t, 'control');
  const post = await call(port, '/throttle?id=write&seconds=1', 'POST', 'a=1', { 'Content-Type': 'application/x-www-form-urlencoded' });
  t.match(post.headText, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
  t.same(post.res.headers('retry-after'), ['1']);
  t.match(json(post), { id: 'write', throttled: true, retry_after: 1 });
  const twin = await call(control, '/throttle?id=write&seconds=1', 'POST', 'a=1', { 'Content-Type': 'application/x-www-form-urlencoded' });
  t.equal(twin.res.status, 200, 'the twin takes the POST too, never throttled');
  const put = await call(port, '/throttle?id=write', 'PUT', 'a=1');
  t.equal(put.res.status, 405);
  t.equal(put.res.header('allow'), 'GET, POST, HEAD');
});

// ---- /rate-limit -----------------------------------------------------------

t.test('/rate-limit: always 429 with Retry-After and the X-RateLimit trio', async (t) => {
  const { port } = await startChaos(t);
  const ex = await exchange(port, get('/rate-limit'));
  const r = ex.response;
  t.equal(r.status, 429);
  t.equal(r.reason, 'Too Many Requests');
  t.equal(r.header('retry-after'), '60', 'default retry_after 60');
  t.equal(r.header('x-ratelimit-limit'), '60');
  t.equal(r.header('x-ratelimit-remaining'), '0');
  t.equal(r.header('x-ratelimit-reset'), '60');
  t.equal(r.header('x-chaos-rate-limit-lied'), 'false');
  t.equal(r.header('x-chaos-category'), 'rate-limiting', 'chaos, not the real limit (which carries no X-Chaos-*)');
  t.same(exchangeJson(ex), { endpoint: '/rate-limit', retry_after: 60, retry_after_header: 60, lied: false, limit: 60, remaining: 0, reset: 60 });
  for (const seconds of [1, 7, 3600]) {
    const honest = await exchange(port, get(`/rate-limit?retry_after=${seconds}`));
    t.equal(honest.response.status, 429);
    t.equal(honest.response.header('retry-after'), String(seconds), `retry_after=${seconds}`);
    t.equal(honest.response.header('x-ratelimit-reset'), String(seconds));
  }
});

t.test('/rate-limit?lie=true: Retry-After is 1 whatever retry_after says; the body keeps the requested value', async (t) => {
  const { port } = await startChaos(t);
  for (const [query, requested] of [['lie=true', 60], ['lie=true&retry_after=120', 120], ['retry_after=3600&lie=1', 3600]] as const) {
    const ex = await exchange(port, get(`/rate-limit?${query}`));
    t.equal(ex.response.status, 429, query);
    t.equal(ex.response.header('retry-after'), '1', `${query}: the lie`);
    t.equal(ex.response.header('x-chaos-rate-limit-lied'), 'true');
    t.equal(ex.response.header('x-ratelimit-reset'), String(requested), `${query}: X-RateLimit-Reset tells the truth`);
    t.match(exchangeJson(ex), { retry_after: requested, retry_after_header: 1, lied: true });
  }
  const notALie = await exchange(port, get('/rate-limit?lie=true&retry_after=1'));
  t.equal(notALie.response.header('retry-after'), '1');
  t.equal(notALie.response.header('x-chaos-rate-limit-lied'), 'false', 'retry_after=1: the header is true, so not a lie');
  const off = await exchange(port, get('/rate-limit?lie=false&retry_after=5'));
  t.equal(off.response.header('retry-after'), '5');
});

t.test('/rate-limit?lie=true through curl -i shows Retry-After: 1', async (t) => {
  const { port } = await startChaos(t);
  const { stdout } = await run('curl', ['-si', '--max-time', '5', `http://127.0.0.1:${port}/rate-limit?lie=true&retry_after=300`]);
  t.match(stdout, /^HTTP\/1\.1 429 Too Many Requests\r\n/);
  t.match(stdout, /\r\nRetry-After: 1\r\n/);
  t.match(stdout, /\r\nX-Chaos-Rate-Limit-Lied: true\r\n/);
  t.match(stdout, /"retry_after":300/);
});

t.test('/rate-limit bad input: clamped with X-Chaos-Clamped, or 400 without X-Chaos-*', async (t) => {
  const { port } = await startChaos(t);
  const low = await exchange(port, get('/rate-limit?retry_after=0'));
  t.equal(low.response.header('retry-after'), '1');
  t.equal(low.response.header('x-chaos-clamped'), 'retry_after=1');
  const high = await exchange(port, get('/rate-limit?retry_after=99999'));
  t.equal(high.response.header('retry-after'), '3600');
  t.equal(high.response.header('x-chaos-clamped'), 'retry_after=3600');
  for (const query of ['retry_after=abc', 'retry_after=1.5', 'lie=maybe', 'lie=']) {
    const ex = await exchange(port, get(`/rate-limit?${query}`));
    t.equal(ex.response.status, 400, query);
    t.same(chaosHeaderNames(ex.response), [], `${query}: no X-Chaos-*`);
    t.equal(exchangeJson(ex).error, 'invalid_parameter');
  }
});

t.test('control /rate-limit: a 429 whose Retry-After is the truth, lie or not', async (t) => {
  const { port } = await startHttp(t, 'control');
  const { res, body } = await fetchJson(`http://127.0.0.1:${port}/rate-limit?lie=true&retry_after=120`);
  t.equal(res.status, 429);
  t.equal(res.headers.get('retry-after'), '120');
  t.equal(res.headers.get('x-ratelimit-limit'), '60');
  t.equal(res.headers.get('x-ratelimit-remaining'), '0');
  t.equal(res.headers.get('x-ratelimit-reset'), '120');
  t.match(body, { retry_after: 120, retry_after_header: 120, lied: false });
  const { stdout } = await run('curl', ['-si', '--max-time', '5', `http://127.0.0.1:${port}/rate-limit?lie=true`]);
  t.match(stdout, /\r\nRetry-After: 60\r\n/, 'curl sees the true Retry-After');
});
