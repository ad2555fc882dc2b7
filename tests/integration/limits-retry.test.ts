// /rate-limit and /retry-mismatch on the chaos host, on raw sockets (and curl
// for the headline lie, as a user sees it).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { retryBody } from '../../shared/content/fault-injection/index.js';
import { MemoryStore } from '../../shared/store/memory.js';
import { chaosHeaderNames, exchange, json } from '../helpers/final-response.js';
import { get } from '../helpers/raw.js';
import { startChaos } from '../helpers/servers.js';

const run = promisify(execFile);

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
  t.same(json(ex), { endpoint: '/rate-limit', retry_after: 60, retry_after_header: 60, lied: false, limit: 60, remaining: 0, reset: 60 });
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
    t.match(json(ex), { retry_after: requested, retry_after_header: 1, lied: true });
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
    t.equal(json(ex).error, 'invalid_parameter');
  }
});

t.test('/retry-mismatch: version 1, then 2, then 2 again; same shape, different items; a fresh id starts over', async (t) => {
  const { port } = await startChaos(t);
  const calls = [];
  for (let i = 0; i < 3; i++) calls.push(await exchange(port, get('/retry-mismatch?id=order-17')));
  const [first, second, third] = calls;
  t.same(
    calls.map((c) => c.response.header('x-chaos-retry-replayed')),
    ['false', 'true', 'true'],
    'X-Chaos-Retry-Replayed false, true, true',
  );
  const bodies = calls.map((c) => json(c) as { data: { version: number; items: unknown[] } });
  t.same(
    bodies.map((b) => b.data.version),
    [1, 2, 2],
    'data.version 1, 2, 2',
  );
  t.equal(first?.response.status, 200);
  t.equal(first?.response.header('content-type'), 'application/json');
  t.equal(first?.response.header('cache-control'), 'no-store');
  t.same(bodies[0], retryBody('order-17', 1), 'version 1 data is a pure function of the id');
  t.same(bodies[1], retryBody('order-17', 2), 'so is version 2');
  t.same(bodies[2], bodies[1], 'the third call keeps serving version 2');
  t.notSame(bodies[0]?.data.items, bodies[1]?.data.items, 'different data');
  t.same(shape(bodies[0]), shape(bodies[1]), 'same response shape');
  t.equal(second?.response.header('x-chaos-retry-version'), '2');
  t.equal(third?.response.header('x-chaos-category'), 'fault-injection');

  const fresh = await exchange(port, get('/retry-mismatch?id=order-18'));
  t.equal(fresh.response.header('x-chaos-retry-replayed'), 'false', 'a fresh id starts a new cycle');
  t.equal((json(fresh) as { data: { version: number } }).data.version, 1);
});

/** Keys and value types, recursively (arrays by their first element and length). */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return [value.length, shape(value[0])];
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]));
  return typeof value;
}

t.test('/retry-mismatch: the record expires 60 s after the first call (injected clock)', async (t) => {
  let now = 1_000_000;
  const store = new MemoryStore({ now: () => now });
  const { port } = await startChaos(t, { store });
  const version = async (): Promise<number> => {
    const ex = await exchange(port, get('/retry-mismatch?id=clocked'));
    return (json(ex) as { data: { version: number } }).data.version;
  };
  t.equal(await version(), 1, 't=0: first call');
  now += 30_000;
  t.equal(await version(), 2, 't=30 s: within the window');
  now += 29_999;
  t.equal(await version(), 2, 't=59.999 s: the window counts from the first call, not the last');
  now += 1;
  t.equal(await version(), 1, 't=60 s: expired, a new cycle');
  t.equal(await version(), 2, 'and the new cycle replays again');
  now += 61_000;
  t.equal(await version(), 1, 'expires again 60 s after the new first call');
});

t.test('/retry-mismatch bad input: the id is required, 1 to 128 characters', async (t) => {
  const { port } = await startChaos(t);
  const missing = await exchange(port, get('/retry-mismatch'));
  t.equal(missing.response.status, 400);
  t.match(json(missing), { endpoint: '/retry-mismatch', error: 'missing_parameter', param: 'id', requested: null });
  t.same(chaosHeaderNames(missing.response), []);
  for (const query of ['id=', `id=${'a'.repeat(129)}`, 'id=%E0%A4%A']) {
    const ex = await exchange(port, get(`/retry-mismatch?${query}`));
    t.equal(ex.response.status, 400, `${query.slice(0, 16)}…: 400`);
    t.same(chaosHeaderNames(ex.response), []);
  }
  const longest = await exchange(port, get(`/retry-mismatch?id=${'a'.repeat(128)}`));
  t.equal(longest.response.status, 200, '128 characters are fine');
  // 128 characters that take more bytes: the limit counts characters.
  const wide = await exchange(port, get(`/retry-mismatch?id=${encodeURIComponent('é'.repeat(128))}`));
  t.equal(wide.response.status, 200);
  t.equal(json(wide).id, 'é'.repeat(128));
});
