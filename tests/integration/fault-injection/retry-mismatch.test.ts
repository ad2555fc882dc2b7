// /retry-mismatch on the chaos host, on raw sockets (the record and its
// expiry on an injected clock), and its idempotent control twin.
import t from 'tap';
import { retryBody } from '../../../shared/content/fault-injection/index.js';
import { MemoryStore } from '../../../shared/store/memory.js';
import { chaosHeaderNames, exchange, json } from '../../helpers/final-response.js';
import { fetchJson } from '../../helpers/fetch-json.js';
import { get } from '../../helpers/raw.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

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

t.test('control /retry-mismatch is idempotent: version 1 data every time', async (t) => {
  const { port } = await startHttp(t, 'control');
  const bodies = [];
  for (let i = 0; i < 3; i++) bodies.push((await fetchJson(`http://127.0.0.1:${port}/retry-mismatch?id=order-17`)).body);
  for (const body of bodies) t.same(body, retryBody('order-17', 1));
  t.equal((await fetchJson(`http://127.0.0.1:${port}/retry-mismatch`)).res.status, 400, 'id is required here too');
});
