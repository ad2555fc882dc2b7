// The in-memory store: the shared Store semantics (real time), then what only
// memory has: an injected clock for exact GCRA figures, the key caps, sweeping
// and what close() releases.
import t from 'tap';
import { MemoryStore } from '../../shared/store/memory.js';
import { runStoreCases } from '../helpers/store-cases.js';
import { retryStoreKey, failFirstStoreKey } from '../../shared/content/fault-injection/index.js';

runStoreCases(t, 'memory', () => new MemoryStore());

function clock(start = 1_000_000): { now: () => number; advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

t.test('countInWindow: window starts at the first call and is not extended', async (t) => {
  const c = clock();
  const store = new MemoryStore({ now: c.now });
  t.equal(await store.countInWindow('a', 60_000), 1);
  c.advance(30_000);
  t.equal(await store.countInWindow('a', 60_000), 2);
  t.equal(await store.countInWindow('a', 60_000), 3);
  t.equal(await store.countInWindow('b', 60_000), 1, 'keys are separate');
  c.advance(30_000);
  t.equal(await store.countInWindow('a', 60_000), 1, 'expired 60 s after the first call: a new cycle');
});

t.test('stays bounded under many keys', async (t) => {
  const store = new MemoryStore({ maxEntries: 1000 });
  for (let i = 0; i < 50_000; i++) await store.countInWindow(`id-${i}`, 60_000);
  t.equal(store.size, 1000);
  t.equal(await store.countInWindow('id-49999', 60_000), 2, 'the newest survive');
  t.equal(await store.countInWindow('id-0', 60_000), 1, 'the oldest were evicted');
});

t.test('checkRate: GCRA allows a burst of limit, then refuses, then refills', async (t) => {
  const c = clock();
  const store = new MemoryStore({ now: c.now });
  const check = { policy: 'general', key: 'general:1.2.3.4', limit: 60, periodMs: 60_000 };
  for (let i = 0; i < 60; i++) {
    const d = await store.checkRate([check]);
    if (!d.allowed) t.fail(`request ${i + 1} refused`);
  }
  const refused = await store.checkRate([check]);
  t.equal(refused.allowed, false);
  t.equal(refused.policy, 'general');
  t.equal(refused.retryAfterMs, 1000, 'one emission interval');
  c.advance(1000);
  t.equal((await store.checkRate([check])).allowed, true, 'one more after an interval');
  t.equal((await store.checkRate([check])).allowed, false);
});

t.test('consumeBudget', async (t) => {
  const c = clock();
  const store = new MemoryStore({ now: c.now });
  t.equal(await store.consumeBudget('ai', 2, 1000), true);
  t.equal(await store.consumeBudget('ai', 2, 1000), true);
  t.equal(await store.consumeBudget('ai', 2, 1000), false);
  c.advance(1000);
  t.equal(await store.consumeBudget('ai', 2, 1000), true, 'a new period');
  t.equal(await store.consumeBudget('none', 0, 1000), false, 'budget 0 allows nothing');
});

t.test('ten times the cap in ids: bounded, and the day\'s budget is never crowded out', async (t) => {
  // The default cap is 200,000 a kind; a tenth of it with a tenth of the ids is the same overflow in a tenth of the time.
  const c = clock();
  const cap = 20_000;
  const store = new MemoryStore({ now: c.now, maxEntries: cap });
  for (let i = 0; i < 3; i++) t.equal(await store.consumeBudget('ai-budget:2026-11-22', 3, 86_400_000), true);
  t.equal(await store.consumeBudget('ai-budget:2026-11-22', 3, 86_400_000), false, 'budget spent');
  for (let i = 0; i < 10 * cap; i++) {
    await store.countInWindow(`retry:${i}`, 60_000);
    if (i % 4 === 0) await store.checkRate([{ policy: 'general', key: `general:10.${i}`, limit: 60, periodMs: 60_000 }]);
  }
  t.ok(store.size <= 2 * cap + 100, `bounded: ${store.size} keys`);
  t.equal(await store.consumeBudget('ai-budget:2026-11-22', 3, 86_400_000), false, 'still spent after 12.5 times the cap in other keys');
});

t.test('expired entries are swept as new ones arrive', async (t) => {
  const c = clock();
  const store = new MemoryStore({ now: c.now });
  for (let i = 0; i < 100_000; i++) await store.countInWindow(`old:${i}`, 60_000);
  t.equal(store.size, 100_000);
  c.advance(10 * 60_000);
  for (let i = 0; i < 20_000; i++) await store.countInWindow(`new:${i}`, 60_000);
  t.equal(store.size, 20_000, 'every expired entry went as new ones came (8 per write at most)');
});

t.test('close drops every key; the in-process answer refuses too', async (t) => {
  const store = new MemoryStore();
  await store.countInWindow('w', 60_000);
  await store.checkRate([{ policy: 'general', key: 'g', limit: 5, periodMs: 60_000 }]);
  await store.consumeBudget('b', 5, 60_000);
  t.equal(store.size, 3);
  await store.close();
  t.equal(store.size, 0, 'nothing held after close');
  t.throws(() => store.checkRateNow([{ policy: 'general', key: 'g', limit: 5, periodMs: 60_000 }]), { code: 'ERR_CHAOS_STORE_CLOSED', name: 'StoreClosedError' });
  await t.rejects(store.countInWindow('w', 60_000), { message: /store is closed: countInWindow after close\(\)/ }, 'the error names the operation');
  t.equal(store.size, 0, 'a refused call writes nothing');
});

t.test('client-chosen ids are stored as fixed-size digests', async (t) => {
  const short = retryStoreKey('a');
  const long = retryStoreKey('x'.repeat(128));
  t.equal(short.length, long.length, 'the key does not grow with the id');
  t.not(retryStoreKey('a'), retryStoreKey('b'), 'distinct ids, distinct keys');
  t.equal(retryStoreKey('a'), retryStoreKey('a'));
  t.not(failFirstStoreKey('a'), retryStoreKey('a'), 'kinds never collide');
  t.ok(long.length < 64);
});

