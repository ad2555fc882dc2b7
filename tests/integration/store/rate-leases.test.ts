// Rate leases (shared/store/rate-batches.ts) against a real redis-server: a
// client far from its limit is granted units ahead by its own call, reserved
// in Redis, and its next requests are allowed at once without a call each;
// a client near its limit (or under a limit below 1000 a period) never is;
// and leases never let a client past its limit.
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { FallbackStore } from '../../../shared/store/fallback.js';
import { MAX_LEASE } from '../../../shared/store/rate-batches.js';
import { RedisStore } from '../../../shared/store/redis.js';
import type { RateCheck, Store } from '../../../shared/store/types.js';
import { commandCalls, startRedis } from '../../helpers/redis.js';

const redis = await startRedis(t);
const DAY_MS = 86_400_000;

async function redisStore(test: Test, prefix: string): Promise<RedisStore> {
  // What is judged is what the calls decide, not how fast: a busy machine's slow command must not fail the test.
  const store = new RedisStore({ url: redis.url, prefix, commandTimeoutMs: 10_000 });
  test.teardown(() => store.close());
  if (!(await store.whenReady(5000))) throw new Error('RedisStore did not connect');
  return store;
}

/** How many requests the leased path allows in a row, now. */
function drainLease(store: Store, checks: readonly RateCheck[]): number {
  let allowed = 0;
  while (store.checkRateLeased?.(checks) !== undefined) allowed++;
  return allowed;
}

const rateCalls = async (): Promise<number> => {
  const calls = await commandCalls(redis);
  return (calls.evalsha ?? 0) + (calls.eval ?? 0);
};

t.test('a client far from its limit: units leased ahead by its call, sized by its demand, used without a call', async (t) => {
  const shared = await redisStore(t, 'lease-fallback:');
  const fallback = new FallbackStore({ shared, logger: pino({ level: 'silent' }) });
  t.teardown(() => fallback.close());
  await fallback.started;
  for (const [name, store] of [['RedisStore', await redisStore(t, 'lease:')], ['FallbackStore over it', fallback]] as const) {
    const checks: readonly RateCheck[] = [{ policy: 'general', key: `chaos:general:${name}`, limit: 1_000_000, periodMs: DAY_MS }];
    t.equal(store.checkRateLeased?.(checks), undefined, `${name}: nothing leased before a first call`);
    t.equal((await store.checkRate(checks)).remaining, 999_999, `${name}: the first call decides its own request only`);
    t.equal(drainLease(store, checks), 0, `${name}: and leases nothing (no demand seen yet)`);
    // The next call asks twice the demand seen (one request) ahead: two units. (Calls are counted around it, so
    // that the lease is used at once: a unit unused for LEASE_MS is dropped.)
    const before = await rateCalls();
    await store.checkRate(checks);
    t.equal(drainLease(store, checks), 2, `${name}: two units leased by the second call`);
    t.equal(await rateCalls(), before + 1, `${name}: used without a call`);
    // Reserved in Redis: the next decision counts them (1 + 1 + 2 spent, then this one).
    t.equal((await store.checkRate(checks)).remaining, 999_995, `${name}: the leased units were spent in Redis`);
    t.equal(drainLease(store, checks), 2, `${name}: a lease again, sized by the demand since (one request and two units)`);
    // A burst of 40 in one turn: one call, with the lease asked before it; the next is sized by the burst.
    const burst = await Promise.all(Array.from({ length: 40 }, () => store.checkRate(checks)));
    t.ok(burst.every((d) => d.allowed), `${name}: the burst allowed`);
    t.equal(drainLease(store, checks), 6, `${name}: the lease asked with the burst, sized before it (twice 1 + 2)`);
    // Requests that reach the store's queue while units are leased (not asked through checkRateLeased) take them, without a call.
    const calls = await rateCalls();
    await store.checkRate(checks);
    const queued = await Promise.all(Array.from({ length: 10 }, () => store.checkRate(checks)));
    t.ok(queued.every((d) => d.allowed), `${name}: queued requests allowed`);
    t.equal(await rateCalls(), calls + 1, `${name}: from the lease, without a call`);
    t.equal(drainLease(store, checks), 84 - 10, `${name}: the rest of a lease sized by the burst (twice 40 + 2)`);
    const bigger = await Promise.all(Array.from({ length: 200 }, () => store.checkRate(checks)));
    t.ok(bigger.every((d) => d.allowed), `${name}: a burst of 200 allowed`);
    drainLease(store, checks);
    await store.checkRate(checks);
    t.equal(drainLease(store, checks), MAX_LEASE, `${name}: after a burst of 200, the cap`);
  }
});

t.test('a client under a small limit, or near any limit, is decided one call per request', async (t) => {
  const store = await redisStore(t, 'lease-small:');
  const small: readonly RateCheck[] = [{ policy: 'general', key: 'chaos:general:small', limit: 900, periodMs: DAY_MS }];
  for (let i = 0; i < 5; i++) await Promise.all(Array.from({ length: 20 }, () => store.checkRate(small)));
  t.equal(drainLease(store, small), 0, 'a limit below 1000 a period: never leased');
  const decisions = await Promise.all(Array.from({ length: 3 }, () => store.checkRate(small)));
  t.same(decisions.map((d) => d.remaining), [799, 798, 797], 'each request counted as its own call');
});

t.test('leases never let a client past its limit: exactly the limit allowed, then refused', async (t) => {
  const store = await redisStore(t, 'lease-exact:');
  const limit = 20_000;
  // A day's period: the few units that refill while the test runs are at most one or two.
  const checks: readonly RateCheck[] = [{ policy: 'general', key: 'chaos:general:exact', limit, periodMs: DAY_MS }];
  let allowed = 0;
  let leased = 0;
  let refused = false;
  const before = await rateCalls();
  while (!refused) {
    const fromLease = drainLease(store, checks);
    leased += fromLease;
    allowed += fromLease;
    const wave = await Promise.all(Array.from({ length: 50 }, () => store.checkRate(checks)));
    allowed += wave.filter((d) => d.allowed).length;
    refused = wave.some((d) => !d.allowed);
  }
  allowed += drainLease(store, checks);
  const calls = (await rateCalls()) - before;
  t.ok(allowed >= limit - 1 && allowed <= limit + 2, `allowed ${allowed} of a limit of ${limit}`);
  t.ok(leased > limit / 20, `${leased} allowed from leases`);
  t.ok(calls < (limit - leased) / 10, `${calls} script calls for ${allowed - leased} requests decided in Redis`);
  t.equal(drainLease(store, checks), 0, 'nothing leased once refused');
});
