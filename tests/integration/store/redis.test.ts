// The Redis store against a real redis-server (DESIGN §11): the shared case
// list, as memory passes it, for RedisStore and for FallbackStore over it;
// then what only Redis has: every key prefixed and with a TTL, GCRA on the
// server's clock (two stores decide as one), one EVALSHA per operation,
// bounded keys; and the fallback: Redis unreachable at start, killed,
// stopped: answered locally, never slower than the command timeout, one warn
// line per episode, recovered by itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import t, { type Test } from 'tap';
import { FallbackStore, type FallbackReason } from '../../../shared/store/fallback.js';
import { RedisStore } from '../../../shared/store/redis.js';
import type { RateCheck, RateDecision, RateWaiter } from '../../../shared/store/types.js';
import { exchange } from '../../helpers/final-response.js';
import { freePort } from '../../helpers/process.js';
import { get } from '../../helpers/raw.js';
import { commandCalls, startRedis, type RedisServer } from '../../helpers/redis.js';
import { startChaos, testConfig } from '../../helpers/servers.js';
import { runStoreCases } from '../../helpers/store-cases.js';
import { startFakeModel } from '../../helpers/fake-model.js';

const silent = pino({ level: 'silent' });
const redis = await startRedis(t);

/** A connected RedisStore, closed at teardown. */
async function redisStore(test: Test, prefix: string, url = redis.url): Promise<RedisStore> {
  const store = new RedisStore({ url, prefix });
  test.teardown(() => store.close());
  if (!(await store.whenReady(5000))) throw new Error('RedisStore did not connect');
  return store;
}

/** A client to look at the keyspace, closed at teardown. */
function inspector(test: Test, server: RedisServer = redis): Redis {
  const client = new Redis(server.url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  test.teardown(() => client.disconnect());
  return client;
}

/** A logger whose JSON lines are kept. */
function capturingLogger(): { logger: Logger; lines: () => { level: number; msg: string; reason?: string }[] } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return {
    logger: pino({ level: 'info' }, sink),
    lines: () =>
      text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { level: number; msg: string; reason?: string }),
  };
}

runStoreCases(t, 'redis', async () => {
  const store = new RedisStore({ url: redis.url, prefix: 'cases:' });
  if (!(await store.whenReady(5000))) throw new Error('RedisStore did not connect');
  return store;
});

runStoreCases(t, 'redis behind the fallback', async () => {
  const store = new FallbackStore({ shared: new RedisStore({ url: redis.url, prefix: 'fallback-cases:' }), logger: silent });
  await store.started;
  if (store.state !== 'up') throw new Error(`FallbackStore is ${store.state}`);
  return store;
});

t.test('after the cases: every key carries a prefix and a TTL', async (t) => {
  const client = inspector(t);
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await client.scan(cursor, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  t.ok(keys.length > 5, `${keys.length} keys left by the cases`);
  const unprefixed = keys.filter((k) => !k.startsWith('cases:') && !k.startsWith('fallback-cases:'));
  t.same(unprefixed, [], 'every key starts with its store\'s prefix');
  const ttls = await Promise.all(keys.map((k) => client.pttl(k)));
  const lasting = keys.filter((_, i) => (ttls[i] as number) === -1);
  t.same(lasting, [], 'no key without an expiry');
  t.ok(keys.some((k) => /^cases:(rate|window|budget):\{case:[^{}]*\}$/.test(k)), 'keys are <prefix><kind>:{<caller key>} (a hash tag)');
});

t.test('GCRA on the server clock: two stores on one Redis decide as one, whatever their clocks say', async (t) => {
  const a = await redisStore(t, 'two:');
  const b = await redisStore(t, 'two:');
  const check: RateCheck = { policy: 'general', key: `chaos:general:${Math.random()}`, limit: 5, periodMs: 60_000 };
  const realNow = Date.now;
  const decisions = [];
  try {
    for (let i = 0; i < 5; i++) {
      // Store b runs on a replica whose clock is an hour fast: it must not matter.
      Date.now = i % 2 ? () => realNow() + 3_600_000 : realNow;
      decisions.push(await (i % 2 ? b : a).checkRate([check]));
    }
    Date.now = () => realNow() - 3_600_000;
    decisions.push(await b.checkRate([check]));
  } finally {
    Date.now = realNow;
  }
  t.same(decisions.map((d) => d.allowed), [true, true, true, true, true, false], 'five across both, the sixth refused');
  t.same(decisions.map((d) => d.remaining), [4, 3, 2, 1, 0, 0], 'one count');
  const refused = decisions[5];
  t.equal(refused?.policy, 'general');
  t.ok(refused && refused.retryAfterMs > 11_000 && refused.retryAfterMs <= 12_000, `retryAfterMs ${refused?.retryAfterMs}: one interval`);
});

t.test('held-response slots: one count for every replica on the same Redis', async (t) => {
  const a = await redisStore(t, 'slots:');
  const b = await redisStore(t, 'slots:');
  const key = `held:chaos:${Math.random()}`;
  t.equal(await a.acquireSlot(key, 2, 60_000), true);
  t.equal(await b.acquireSlot(key, 2, 60_000), true);
  t.equal(await a.acquireSlot(key, 2, 60_000), false, 'the cap is shared');
  await b.releaseSlot(key);
  t.equal(await a.acquireSlot(key, 2, 60_000), true, "a release on one is seen by the other");
});

t.test('window recovery: refused on one store, allowed on the other once the interval has passed', async (t) => {
  const a = await redisStore(t, 'recover:');
  const b = await redisStore(t, 'recover:');
  const check: RateCheck = { policy: 'infinite', key: `control:infinite:${Math.random()}`, limit: 3, periodMs: 600 };
  for (let i = 0; i < 3; i++) t.equal((await a.checkRate([check])).allowed, true, `burst ${i + 1}`);
  const refused = await b.checkRate([check]);
  t.equal(refused.allowed, false);
  t.equal(refused.policy, 'infinite');
  t.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= 200, `retryAfterMs ${refused.retryAfterMs}: within one interval (200 ms)`);
  await sleep(refused.retryAfterMs + 30);
  t.equal((await b.checkRate([check])).allowed, true, 'allowed again after the interval');
  t.equal((await a.checkRate([check])).allowed, false, 'and only one');
});

t.test('one round trip per operation (one per batch for a burst from one client): one EVALSHA each, nothing else sent', async (t) => {
  const store = await redisStore(t, 'trips:');
  const general: RateCheck = { policy: 'general', key: 'chaos:general:10.0.0.1', limit: 1000, periodMs: 60_000 };
  const infinite: RateCheck = { policy: 'infinite', key: 'chaos:infinite:10.0.0.1', limit: 1000, periodMs: 60_000 };
  // Loads the scripts (the first call may fall back from EVALSHA to EVAL).
  await store.checkRate([general, infinite]);
  await store.countInWindow('retry:x', 60_000);
  await store.consumeBudget('ai-budget:x', 10, 60_000);
  const before = await commandCalls(redis);
  for (let i = 0; i < 50; i++) await store.checkRate([general, infinite]);
  // 50 at once, each with a list of its own: 50 calls.
  await Promise.all(Array.from({ length: 50 }, () => store.checkRate([general, infinite])));
  // 300 at once with one client's list (as the servers pass it, cached per client): batches of at most 256.
  const cached = [general, infinite];
  const burst = await Promise.all(Array.from({ length: 300 }, () => store.checkRate(cached)));
  t.equal(burst.filter((d) => d.allowed).length, 300, 'the burst fits the limit');
  const remaining = burst.map((d) => d.remaining);
  t.ok(
    remaining.every((r, i) => i === 0 || i === 256 || r === (remaining[i - 1] as number) - 1),
    `counted one by one within each batch (${remaining.slice(0, 3).join(', ')}, …, ${remaining.slice(-2).join(', ')})`,
  );
  for (let i = 0; i < 10; i++) await store.countInWindow('retry:x', 60_000);
  for (let i = 0; i < 10; i++) await store.consumeBudget('ai-budget:x', 10, 60_000);
  const after = await commandCalls(redis);
  const delta = (name: string): number => (after[name] ?? 0) - (before[name] ?? 0);
  t.equal(delta('evalsha'), 122, '122 EVALSHA: 120 operations (two policies in one call), and a burst of 300 in 2 batched calls');
  t.equal(delta('eval'), 0, 'no EVAL');
  t.equal(delta('script|load') + delta('script|exists') + delta('script'), 0, 'no SCRIPT LOAD or EXISTS');
  t.equal(delta('ping'), 0);
});

/** A RateWaiter that records what it was handed, and whether that came before the call returned. */
function recordingWaiter(): RateWaiter & { readonly got: (RateDecision | Error)[]; calling: boolean; early: boolean; settled(): Promise<void> } {
  let wake: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (wake = resolve));
  const waiter = {
    got: [] as (RateDecision | Error)[],
    calling: false,
    early: false,
    rateDecided(decision: RateDecision): void {
      waiter.early ||= waiter.calling;
      waiter.got.push(decision);
      wake();
    },
    rateFailed(error: unknown): void {
      waiter.early ||= waiter.calling;
      waiter.got.push(error as Error);
      wake();
    },
    settled: () => done,
  };
  return waiter;
}

t.test('checkRateFor: the decisions checkRate gives, to a waiter, one batch per turn, never during the call', async (t) => {
  const store = await redisStore(t, 'waiters:');
  const fallback = new FallbackStore({ shared: await redisStore(t, 'waiters-fallback:'), logger: silent });
  t.teardown(() => fallback.close());
  await fallback.started;
  for (const [name, s] of [['RedisStore', store], ['FallbackStore over it', fallback]] as const) {
    const check: RateCheck = { policy: 'general', key: `chaos:general:${name}`, limit: 3, periodMs: 60_000 };
    const checks = [check];
    const waiters = Array.from({ length: 5 }, () => recordingWaiter());
    for (const waiter of waiters) {
      waiter.calling = true;
      s.checkRateFor(checks, waiter);
      waiter.calling = false;
    }
    await Promise.all(waiters.map((w) => w.settled()));
    t.same(waiters.map((w) => w.early), [false, false, false, false, false], `${name}: nothing handed on during the call`);
    t.same(waiters.map((w) => w.got.length), [1, 1, 1, 1, 1], `${name}: each waiter told once`);
    const decisions = waiters.map((w) => w.got[0] as RateDecision);
    t.same(decisions.map((d) => d.allowed), [true, true, true, false, false], `${name}: a burst of 3, then refused`);
    t.same(decisions.map((d) => d.remaining), [2, 1, 0, 0, 0], `${name}: counted one by one`);
    t.equal(decisions[3]?.policy, 'general');
    t.ok((decisions[3]?.retryAfterMs ?? 0) > 19_000, `${name}: refused with the interval to wait (${decisions[3]?.retryAfterMs} ms)`);
  }
  await store.close();
  const late = recordingWaiter();
  late.calling = true;
  store.checkRateFor([{ policy: 'general', key: 'k', limit: 1, periodMs: 60_000 }], late);
  late.calling = false;
  await late.settled();
  t.equal(late.early, false, 'a closed store answers after the call too');
  t.match(late.got[0], { code: 'ERR_CHAOS_STORE_CLOSED' }, 'with StoreClosedError');
});

t.test('a batch replays each request as its own call would: remaining and reset per request, two policies', async (t) => {
  const store = await redisStore(t, 'replay:');
  // The loose policy's interval is not a whole number of milliseconds (60000 / 11): its TAT carries fractions.
  const tight: RateCheck = { policy: 'tight', key: 'chaos:tight:10.2.2.2', limit: 8, periodMs: 1000 };
  const loose: RateCheck = { policy: 'loose', key: 'chaos:loose:10.2.2.2', limit: 11, periodMs: 60_000 };
  const checks = [loose, tight];
  const burst = await Promise.all(Array.from({ length: 9 }, () => store.checkRate(checks)));
  t.same(burst.map((d) => d.allowed), [true, true, true, true, true, true, true, true, false], 'the tighter policy allows 8 of 9');
  t.same(burst.slice(0, 8).map((d) => d.remaining), [7, 6, 5, 4, 3, 2, 1, 0], 'remaining: the tightest policy, one less each');
  // resetMs: the later of the two policies' full replenishment, k intervals of the loose one after the first request.
  burst.slice(0, 8).forEach((d, k) => {
    const expected = Math.ceil(((k + 1) * 60_000) / 11);
    t.ok(Math.abs(d.resetMs - expected) <= 1, `request ${k + 1}: resetMs ${d.resetMs} (about ${expected})`);
  });
  const refused = burst[8] as RateDecision;
  t.equal(refused.policy, 'tight');
  t.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= 125, `refused until one interval passes (${refused.retryAfterMs} ms)`);
  t.ok(refused.resetMs > 875 && refused.resetMs <= 1000, `and replenished within the period (${refused.resetMs} ms)`);
});

t.test('while a rate call is out, later checks wait for it and then go as one call', async (t) => {
  // A command timeout past the 150 ms Redis is kept busy below.
  const store = new RedisStore({ url: redis.url, prefix: 'window:', commandTimeoutMs: 2000 });
  t.teardown(() => store.close());
  t.ok(await store.whenReady(5000), 'connected');
  const busy = inspector(t);
  const check: RateCheck = { policy: 'general', key: 'chaos:general:10.3.3.3', limit: 100, periodMs: 60_000 };
  const checks = [check];
  await store.checkRate(checks); // loads the script
  const before = await commandCalls(redis);
  // Redis busy for 150 ms (a script runs alone): the next call is out that long.
  const spin = `local s = redis.call('TIME') repeat local n = redis.call('TIME') until (n[1] - s[1]) * 1000000 + (n[2] - s[2]) > 150000 return 1`;
  const spinning = busy.eval(spin, 0);
  await sleep(20);
  const first = store.checkRate(checks);
  await sleep(20);
  // Ten more, each in a turn of its own, while the first is out.
  const later: Promise<RateDecision>[] = [];
  for (let i = 0; i < 10; i++) {
    later.push(store.checkRate(checks));
    await new Promise((resolve) => setImmediate(resolve));
  }
  const decisions = [await first, ...(await Promise.all(later))];
  await spinning;
  const after = await commandCalls(redis);
  t.equal((after.evalsha ?? 0) - (before.evalsha ?? 0), 2, 'two calls: the first, then the ten that waited for it, together');
  t.same(
    decisions.map((d) => d.remaining),
    [98, 97, 96, 95, 94, 93, 92, 91, 90, 89, 88],
    'decided in the order they asked, one by one',
  );
});

t.test('fallback checkRateFor: Redis killed: each waiter gets a local decision, counted as a fallback', async (t) => {
  const server = await startRedis(t);
  const reasons: FallbackReason[] = [];
  const store = new FallbackStore({ shared: new RedisStore({ url: server.url }), logger: silent, probeIntervalMs: 60_000, onFallback: (r) => reasons.push(r) });
  t.teardown(() => store.close());
  await store.started;
  t.equal(store.state, 'up');
  await server.kill();
  const check: RateCheck = { policy: 'general', key: 'chaos:general:10.9.9.9', limit: 2, periodMs: 60_000 };
  const checks = [check];
  const waiters = Array.from({ length: 3 }, () => recordingWaiter());
  for (const waiter of waiters) store.checkRateFor(checks, waiter);
  await Promise.all(waiters.map((w) => w.settled()));
  t.equal(store.state, 'down');
  t.same(
    waiters.map((w) => (w.got[0] instanceof Error ? 'error' : (w.got[0] as RateDecision).allowed)),
    [true, true, false],
    'no failure: the local limiter decides (2 allowed, then refused)',
  );
  t.equal(reasons.length, 3, 'each answered locally is counted');
});

t.test('keys stay bounded: a long caller key is hashed; the prefix is honoured', async (t) => {
  const store = await redisStore(t, 'bounded:');
  const long = `retry:${'x'.repeat(10_000)}`;
  t.equal(await store.countInWindow(long, 60_000), 1);
  t.equal(await store.countInWindow(long, 60_000), 2, 'the same long key is the same record');
  t.equal(await store.countInWindow(`${long}y`, 60_000), 1, 'another long key is another record');
  const client = inspector(t);
  const keys = await client.keys('bounded:*');
  t.equal(keys.length, 2);
  for (const key of keys) t.ok(key.length < 80, `${key.length} characters: ${key}`);
  const other = await redisStore(t, 'other-prefix:');
  t.equal(await other.countInWindow(long, 60_000), 1, 'another prefix is another keyspace');
  t.equal((await client.keys('other-prefix:window:*')).length, 1);
});

t.test('fallback: Redis unreachable at start: a warn line, answers from memory, then recovers by itself', async (t) => {
  const port = await freePort();
  const { logger, lines } = capturingLogger();
  const reasons: FallbackReason[] = [];
  const store = new FallbackStore({
    shared: new RedisStore({ url: `redis://:s3cret@127.0.0.1:${port}` }),
    logger,
    onFallback: (reason) => reasons.push(reason),
    probeIntervalMs: 100,
  });
  t.teardown(() => store.close());
  await store.started;
  t.equal(store.state, 'down');
  t.same(lines().map((l) => [l.level, l.msg]), [[40, 'Redis unreachable at start: serving from local memory (limits per process) and retrying']]);
  const started = performance.now();
  t.equal(await store.countInWindow('retry:a', 60_000), 1);
  t.equal(await store.countInWindow('retry:a', 60_000), 2, 'local state');
  t.equal((await store.checkRate([{ policy: 'general', key: 'k', limit: 1, periodMs: 60_000 }])).allowed, true);
  t.equal((await store.checkRate([{ policy: 'general', key: 'k', limit: 1, periodMs: 60_000 }])).allowed, false, 'a per-process limiter');
  t.ok(performance.now() - started < 100, 'answered at once');
  t.same(reasons, ['unavailable', 'unavailable', 'unavailable', 'unavailable'], 'each local answer counted');
  // Redis comes up on that port: the store finds it.
  const late = await startRedisOn(t, port);
  await until(() => store.state === 'up', 5000);
  t.equal(store.state, 'up', 'recovered');
  t.equal(await store.countInWindow('retry:a', 60_000), 1, 'Redis answers now (it never saw the local records)');
  t.equal(await late.command('DBSIZE').then((r) => r.trim()), ':1');
  const logged = lines();
  t.equal(logged.length, 2);
  t.match(logged[1], { level: 30, msg: 'Redis is back: state is shared again' });
  t.notMatch(JSON.stringify(logged), /s3cret/, 'the URL (and its password) is never logged');
});

t.test('fallback: Redis killed, then restarted: no failure, no wait, one warn line, recovery', async (t) => {
  const server = await startRedis(t);
  const { logger, lines } = capturingLogger();
  const store = new FallbackStore({ shared: new RedisStore({ url: server.url }), logger, probeIntervalMs: 100 });
  t.teardown(() => store.close());
  await store.started;
  t.equal(store.state, 'up');
  const check: RateCheck = { policy: 'general', key: 'chaos:general:10.1.1.1', limit: 1000, periodMs: 60_000 };
  await server.kill();
  const slowest = await hammer(store, check, 600);
  t.ok(slowest < 300, `slowest operation while Redis is dead: ${slowest.toFixed(0)} ms`);
  t.equal(store.state, 'down');
  await server.restart();
  await until(() => store.state === 'up', 5000);
  t.equal(store.state, 'up', 'back by itself');
  t.equal(await store.countInWindow('after', 60_000), 1);
  t.equal((await server.command('DBSIZE')).trim(), ':1', 'writes reach Redis again');
  const logged = lines();
  t.same(
    logged.map((l) => [l.level, l.msg]),
    [
      [30, 'Redis store connected: state is shared with the other replicas'],
      [40, 'Redis unavailable: serving from local memory (limits per process) until it is back'],
      [30, 'Redis is back: state is shared again'],
    ],
    'one warn line for the episode, one when it ends',
  );
  // Refused at once, or (a command already on the dying socket) timed out.
  t.match(logged[1]?.reason, /^(unavailable|timeout)$/);
});

t.test('fallback: Redis stopped (SIGSTOP), then continued: no operation waits past the command timeout', async (t) => {
  const server = await startRedis(t);
  const { logger, lines } = capturingLogger();
  const store = new FallbackStore({ shared: new RedisStore({ url: server.url }), logger, probeIntervalMs: 100 });
  t.teardown(() => store.close());
  await store.started;
  const check: RateCheck = { policy: 'general', key: 'chaos:general:10.1.1.2', limit: 1000, periodMs: 60_000 };
  server.pause();
  const slowest = await hammer(store, check, 600);
  t.ok(slowest < 400, `slowest operation while Redis is stopped: ${slowest.toFixed(0)} ms (command timeout 100 ms)`);
  t.equal(store.state, 'down');
  server.resume();
  await until(() => store.state === 'up', 5000);
  t.equal(store.state, 'up', 'back by itself');
  t.same(
    lines().map((l) => [l.level, l.reason]),
    [
      [30, undefined],
      [40, 'timeout'],
      [30, undefined],
    ],
    'one warn line (timeout), one when it ends',
  );
});

/** Four concurrent loops of checkRate for `ms`; resolves with the slowest call in ms; fails on any rejection. */
async function hammer(store: FallbackStore, check: RateCheck, ms: number): Promise<number> {
  const end = performance.now() + ms;
  let slowest = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < end) {
        const start = performance.now();
        const d = await store.checkRate([check]);
        if (!d.allowed) throw new Error('refused: the local limiter should allow these');
        slowest = Math.max(slowest, performance.now() - start);
        await sleep(5);
      }
    }),
  );
  return slowest;
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition() && performance.now() < deadline) await sleep(20);
}

/** A redis-server on a given port (one that was unreachable a moment ago). */
function startRedisOn(test: Test, port: number): Promise<RedisServer> {
  return startRedis(test, { port });
}

t.test('/semantic-drift?ai=true: a store that cannot be read is a fallback, never a 5xx; behind the fallback the local budget answers', async (t) => {
  const model = await startFakeModel(t);
  const config = testConfig({ AI_BASE_URL: model.baseUrl, AI_MODEL: 'm', AI_DAILY_BUDGET: '1' });
  const dead = `redis://127.0.0.1:${await freePort()}`;

  // A bare RedisStore on a dead port: consumeBudget rejects.
  const bare = await startChaos(t, { config, store: new RedisStore({ url: dead }) });
  const unreadable = await exchange(bare.port, get('/semantic-drift?ai=true'));
  t.equal(unreadable.response.status, 200, 'never a 5xx');
  t.equal(unreadable.response.header('x-chaos-ai-source'), 'fallback');
  t.equal(unreadable.response.header('x-chaos-ai-fallback-reason'), 'ai-error', 'the store could not be read');
  t.equal(model.calls(), 0, 'no model call without a budget');

  // The service's own store (FallbackStore): the local budget grants one call, then is spent.
  const fallback = new FallbackStore({ shared: new RedisStore({ url: dead }), logger: silent });
  await fallback.started;
  const served = await startChaos(t, { config, store: fallback });
  const granted = await exchange(served.port, get('/semantic-drift?ai=true'));
  t.equal(granted.response.header('x-chaos-ai-fallback-reason'), 'invalid-json', 'granted locally: the model was asked');
  const spent = await exchange(served.port, get('/semantic-drift?ai=true'));
  t.equal(spent.response.status, 200);
  t.equal(spent.response.header('x-chaos-ai-fallback-reason'), 'budget-exhausted', 'the local budget is spent');
  t.equal(model.calls(), 1);
});

t.test('a unix socket REDIS_URL: an absolute path or unix:///path', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-redis-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const socket = join(dir, 'redis.sock');
  await startRedis(t, { unixSocket: socket });
  for (const url of [socket, `unix://${socket}`]) {
    const store = await redisStore(t, 'unix:', url);
    t.equal(await store.countInWindow(`via:${url}`, 60_000), 1, url);
    t.equal(await store.countInWindow(`via:${url}`, 60_000), 2);
  }
});
