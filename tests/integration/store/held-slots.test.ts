// Held-response slots across Redis faults (issue 25, defect 8), on a real
// redis-server: each replica writes its own lease (slot-leases.ts), so the
// count corrects itself. Redis stopped for 10 s while a replica gives its
// slots back: once it answers again the client holds nothing anywhere (it got
// 429 `held` for the rest of the key's TTL before). Redis killed and restarted
// while a replica holds slots: the restarted Redis learns them again, so the
// cap stays one cap (one client held twice the cap before). And the same
// through two chaos servers: a client that holds nothing after the pause gets
// no 429.
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { FallbackStore } from '../../../shared/store/fallback.js';
import { RedisStore } from '../../../shared/store/redis.js';
import { completeByLength, get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { startChaos, testConfig } from '../../helpers/servers.js';

const silent = pino({ level: 'silent' });
const LONG_TTL_MS = 130_000; // /drip's: the key outlives the test, so only the leases can correct it

/** RedisStores by the FallbackStore over them: a test waits until every replica's client is connected again. */
const sharedOf = new WeakMap<FallbackStore, RedisStore>();

/** A replica's store: FallbackStore over RedisStore, connected, closed at teardown. */
async function replica(test: Test, server: RedisServer, prefix: string): Promise<FallbackStore> {
  const shared = new RedisStore({ url: server.url, prefix });
  const store = new FallbackStore({ shared, logger: silent, probeIntervalMs: 200 });
  sharedOf.set(store, shared);
  test.teardown(() => store.close());
  await store.started;
  if (store.state !== 'up') throw new Error(`replica store is ${store.state}`);
  return store;
}

/** The Redis key of a client's held slots. */
function slotKey(store: FallbackStore, key: string): string {
  return (sharedOf.get(store) as RedisStore).keyOf('slot', key);
}

/** Both replicas use Redis again and their clients are connected (one that met no failure never went down). */
function backOnRedis(...stores: FallbackStore[]): () => boolean {
  return () => stores.every((s) => s.state === 'up' && sharedOf.get(s)?.ready === true);
}

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Takes slots until one is refused (at most `max` tries); how many were granted. */
async function takeAll(store: FallbackStore, key: string, cap: number, max = cap + 2): Promise<number> {
  let granted = 0;
  for (let i = 0; i < max; i++) {
    if (!(await store.acquireSlot(key, cap, LONG_TTL_MS))) break;
    granted++;
  }
  return granted;
}

function inspector(test: Test, server: RedisServer): Redis {
  const client = new Redis(server.url, { maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  test.teardown(() => client.disconnect());
  return client;
}

t.test('Redis stopped 10 s while a replica gives its slots back: afterwards the client holds nothing, on every replica', async (t) => {
  const redis = await startRedis(t);
  const a = await replica(t, redis, 'held-stop:');
  const b = await replica(t, redis, 'held-stop:');
  const key = 'held:chaos:10.0.0.1';
  const cap = 4;
  t.equal(await takeAll(a, key, cap, cap), cap, 'replica a holds the whole cap');
  t.equal(await b.acquireSlot(key, cap, LONG_TTL_MS), false, 'b sees the cap taken');

  redis.pause();
  const paused = Date.now();
  try {
    // Every response ends while Redis is stopped: the first release times out, the rest skip Redis.
    for (let i = 0; i < cap; i++) await a.releaseSlot(key);
    t.equal(a.state, 'down', 'a answered locally');
    // Meanwhile b's client comes and goes locally too.
    t.equal(await b.acquireSlot(key, cap, LONG_TTL_MS), true, 'b decides locally (limits per process)');
    await b.releaseSlot(key);
    await sleep(Math.max(0, 10_000 - (Date.now() - paused)));
  } finally {
    redis.resume();
  }
  await waitUntil(backOnRedis(a, b), 'both replicas back on Redis');
  const client = inspector(t, redis);
  // The leases are rewritten as the probes find Redis again: nothing is held.
  const deadline = Date.now() + 5000;
  let leases = await client.hgetall(slotKey(a, key));
  while (Object.keys(leases).length > 0 && Date.now() < deadline) {
    await sleep(50);
    leases = await client.hgetall(slotKey(a, key));
  }
  t.same(leases, {}, 'no lease left on Redis');
  t.equal(await takeAll(b, key, cap), cap, 'b: the whole cap again, no 429 for the key\'s TTL');
  t.equal(await a.acquireSlot(key, cap, LONG_TTL_MS), false, 'and the cap is one cap again');
});

t.test('Redis killed and restarted empty while a replica holds slots: the cap stays one cap', async (t) => {
  const redis = await startRedis(t);
  const a = await replica(t, redis, 'held-kill:');
  const b = await replica(t, redis, 'held-kill:');
  const key = 'held:chaos:10.0.0.2';
  const cap = 4;
  t.equal(await takeAll(a, key, 3, 3), 3, 'a holds 3 of 4 on Redis');
  await redis.kill();
  t.equal(await a.acquireSlot(key, cap, LONG_TTL_MS), true, 'Redis gone: a takes the 4th from its own count');
  t.equal(await a.acquireSlot(key, cap, LONG_TTL_MS), false, 'its own count already holds the cap');
  t.equal(a.state, 'down');
  await redis.restart();
  await waitUntil(backOnRedis(a, b), 'both replicas back on Redis');
  // a's resync tells the empty Redis what a holds; b may ask right after.
  const client = inspector(t, redis);
  const deadline = Date.now() + 5000;
  let leases = await client.hgetall(slotKey(a, key));
  while (Object.keys(leases).length === 0 && Date.now() < deadline) {
    await sleep(50);
    leases = await client.hgetall(slotKey(a, key));
  }
  t.same(Object.values(leases).map((v) => v.split(':')[0]), ['4'], 'the restarted Redis holds a\'s four');
  t.ok((await client.pttl(slotKey(a, key))) > 60_000, 'with the lease\'s life, not a fresh default');
  t.equal(await b.acquireSlot(key, cap, LONG_TTL_MS), false, 'b: the cap is taken (it could take 4 more before: twice the cap)');
  await a.releaseSlot(key);
  await a.releaseSlot(key);
  t.equal(await takeAll(b, key, cap), 2, 'two given back on a are two for b');
  for (let i = 0; i < 2; i++) await a.releaseSlot(key);
  for (let i = 0; i < 2; i++) await b.releaseSlot(key);
  t.same(await client.hgetall(slotKey(a, key)), {}, 'all given back: the key is gone');
});

t.test('a refused acquire overtaken by a release: the lease written last is the truth', async (t) => {
  const redis = await startRedis(t);
  const a = await replica(t, redis, 'held-race:');
  const b = await replica(t, redis, 'held-race:');
  const key = 'held:chaos:10.0.0.3';
  t.equal(await b.acquireSlot(key, 2, LONG_TTL_MS), true);
  t.equal(await a.acquireSlot(key, 2, LONG_TTL_MS), true);
  // Sent together: the acquire (told a holds 1) is refused; the release (a holds 1-1 = 0… counting
  // the pending acquire: 1) went after it. a then writes its real count, 0.
  const [refused] = await Promise.all([a.acquireSlot(key, 2, LONG_TTL_MS), a.releaseSlot(key)]);
  t.equal(refused, false);
  const client = inspector(t, redis);
  const deadline = Date.now() + 2000;
  let leases = await client.hgetall(slotKey(a, key));
  while (Object.keys(leases).length !== 1 && Date.now() < deadline) {
    await sleep(20);
    leases = await client.hgetall(slotKey(a, key));
  }
  t.equal(Object.keys(leases).length, 1, 'only b\'s lease is left');
  t.equal(await a.acquireSlot(key, 2, LONG_TTL_MS), true, 'a can take the slot it gave back');
});

t.test('through two chaos servers: after a 10 s pause a client that holds nothing gets no 429', async (t) => {
  const redis = await startRedis(t);
  const config = testConfig({ MAX_HELD_PER_IP: '3' });
  const storeA = new FallbackStore({ shared: new RedisStore({ url: redis.url, prefix: 'held-http:' }), logger: silent, probeIntervalMs: 200 });
  const storeB = new FallbackStore({ shared: new RedisStore({ url: redis.url, prefix: 'held-http:' }), logger: silent, probeIntervalMs: 200 });
  await Promise.all([storeA.started, storeB.started]);
  const a = await startChaos(t, { config, store: storeA });
  const b = await startChaos(t, { config, store: storeB });
  const ask = async (port: number, path: string): Promise<number> =>
    parseHead((await rawExchange(port, get(path), { until: completeByLength, timeoutMs: 15_000 })).data).status;

  // Three held on a, ending while Redis is stopped.
  const held = [1500, 2000, 2500].map((ms) => ask(a.port, `/slow?ms=${ms}`));
  await sleep(500);
  t.equal(await ask(b.port, '/slow?ms=10'), 429, 'the cap is taken: b refuses the fourth');
  redis.pause();
  try {
    // Any operation meets the pause first (in service, a rate check): a is down, its releases stay local.
    await storeA.countInWindow('meets-the-pause', 60_000);
    t.equal(storeA.state, 'down');
    t.same(await Promise.all(held), [200, 200, 200], 'the held ones finish during the pause');
    await sleep(7_000);
  } finally {
    redis.resume();
  }
  await waitUntil(() => storeA.state === 'up' && storeB.state === 'up', 'both back on Redis');
  await sleep(300);
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) statuses.push(await ask(i % 2 ? a.port : b.port, '/slow?ms=10'));
  t.same(statuses, Array(10).fill(200), '10 of 10 served, on either replica (before: 10 of 10 got 429 held)');
});
