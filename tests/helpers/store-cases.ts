// The semantics every Store implementation must pass (DESIGN §7), as one case
// list: run against the in-memory store (tests/unit/store-memory.test.ts) and,
// with the Redis issue, against a real redis-server. Real time only, no
// injected clock: where expiry must be seen the windows are a few hundred
// milliseconds, elsewhere periods are long enough that no refill can happen
// during a case. Keys carry a fresh prefix, so cases never meet each other's
// state in a shared database.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Test } from 'tap';
import type { RateCheck, Store } from '../../shared/store/types.js';

/** Waits until `ms` have passed since `since` (a performance.now() reading). */
async function until(since: number, ms: number): Promise<void> {
  const left = since + ms - performance.now();
  if (left > 0) await sleep(left);
}

/** The code of a rejection, or 'resolved' when there was none. */
async function failureCode(operation: () => Promise<unknown>): Promise<unknown> {
  try {
    await operation();
    return 'resolved';
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
}

export function runStoreCases(t: Test, name: string, makeStore: () => Promise<Store> | Store): void {
  /** A fresh store closed at the end of the case, and a key prefix of its own. */
  async function setUp(t: Test): Promise<{ store: Store; key: (suffix: string) => string }> {
    const store = await makeStore();
    t.teardown(() => store.close());
    const prefix = `case:${randomUUID()}:`;
    return { store, key: (suffix) => prefix + suffix };
  }

  t.test(`${name}: countInWindow counts within a window fixed at the first call`, async (t) => {
    const { store, key } = await setUp(t);
    const ttlMs = 400;
    t.equal(await store.countInWindow(key('a'), ttlMs), 1, 'the first call opens a cycle');
    const opened = performance.now();
    await sleep(100);
    t.equal(await store.countInWindow(key('a'), ttlMs), 2);
    t.equal(await store.countInWindow(key('a'), ttlMs), 3);
    t.equal(await store.countInWindow(key('b'), ttlMs), 1, 'keys are separate');
    // 450 ms after the first call: past its window, yet within 400 ms of the
    // later calls, so a window they had extended would still be open.
    await until(opened, 450);
    t.equal(await store.countInWindow(key('a'), ttlMs), 1, 'expired ttl after the first call, not extended: a new cycle');
    t.equal(await store.countInWindow(key('a'), ttlMs), 2, 'the new cycle counts on');
  });

  t.test(`${name}: elapsedSinceFirst measures from the first call; the record is not extended`, async (t) => {
    const { store, key } = await setUp(t);
    // Bounds taken around each call, so a loaded machine widens them instead of failing.
    const before = performance.now();
    t.equal(await store.elapsedSinceFirst(key('a'), 60_000), 0, 'the first call opens a record');
    const after = performance.now();
    await sleep(150);
    const atLeast = performance.now() - after;
    const later = await store.elapsedSinceFirst(key('a'), 60_000);
    const atMost = performance.now() - before;
    t.ok(later >= atLeast - 10 && later <= atMost + 10, `elapsed ${later} ms: between ${Math.round(atLeast)} and ${Math.round(atMost)} ms`);
    t.equal(await store.elapsedSinceFirst(key('b'), 60_000), 0, 'keys are separate');

    const ttlMs = 300;
    const opened = performance.now();
    t.equal(await store.elapsedSinceFirst(key('x'), ttlMs), 0);
    await sleep(100);
    const mid = await store.elapsedSinceFirst(key('x'), ttlMs);
    t.ok(mid > 0 || performance.now() - opened >= ttlMs, 'a later call within the ttl reads the same record');
    await until(opened, ttlMs + 50);
    // Only when the later call read the first record: had it come after the ttl, it opened a new one.
    if (mid > 0) t.equal(await store.elapsedSinceFirst(key('x'), ttlMs), 0, 'expired ttl after the first call, not extended: a new record');
  });

  t.test(`${name}: checkRate allows a burst of limit, then refuses; remaining and resetMs count down`, async (t) => {
    const { store, key } = await setUp(t);
    // One emission interval is 12 s: nothing refills while the case runs.
    const check: RateCheck = { policy: 'general', key: key('general:1.2.3.4'), limit: 5, periodMs: 60_000 };
    for (let i = 1; i <= 5; i++) {
      const d = await store.checkRate([check]);
      t.equal(d.allowed, true, `request ${i} allowed`);
      t.equal(d.policy, undefined, 'no refusing policy');
      t.equal(d.remaining, 5 - i, `remaining after request ${i}`);
      t.equal(d.retryAfterMs, 0);
      t.ok(d.resetMs > i * 12_000 - 1000 && d.resetMs <= i * 12_000, `resetMs ${d.resetMs}: ${i} intervals until replenished`);
    }
    const refused = await store.checkRate([check]);
    t.equal(refused.allowed, false);
    t.equal(refused.policy, 'general');
    t.equal(refused.remaining, 0);
    t.ok(refused.retryAfterMs > 11_000 && refused.retryAfterMs <= 12_000, `retryAfterMs ${refused.retryAfterMs}: one emission interval`);
    t.ok(refused.resetMs > 59_000 && refused.resetMs <= 60_000, `resetMs ${refused.resetMs}: a whole period`);
    for (let i = 0; i < 5; i++) {
      const again = await store.checkRate([check]);
      if (again.allowed || again.retryAfterMs > refused.retryAfterMs || again.resetMs > refused.resetMs) {
        t.fail(`refusal ${i + 2} moved the limit: a refused request must consume nothing`);
      }
    }
    t.pass('refusals consumed nothing');
  });

  t.test(`${name}: a burst asked at once (one client, one checks list) is decided as if one by one`, async (t) => {
    const { store, key } = await setUp(t);
    // Two policies, the endpoint's tighter: 4 of 8 concurrent requests pass, and the
    // refusals name it; a second burst right after is refused alike, and a
    // client with another checks list is not held back by the first.
    const checks: RateCheck[] = [
      // One client's policies share a group (one Redis Cluster slot), as perIpCheck's do.
      { policy: 'general', key: key('g'), group: key('client'), limit: 6, periodMs: 60_000 },
      { policy: 'infinite', key: key('i'), group: key('client'), limit: 4, periodMs: 60_000 },
    ];
    const other: RateCheck[] = [{ policy: 'general', key: key('other'), limit: 2, periodMs: 60_000 }];
    const [burst, others] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, () => store.checkRate(checks))),
      Promise.all([store.checkRate(other), store.checkRate(other), store.checkRate(other)]),
    ]);
    t.same(
      burst.map((d) => d.allowed),
      [true, true, true, true, false, false, false, false],
      'the first 4 in the order asked',
    );
    t.same(
      burst.filter((d) => d.allowed).map((d) => d.remaining),
      [3, 2, 1, 0],
      'remaining counts down by the tighter policy',
    );
    const resets = burst.filter((d) => d.allowed).map((d) => d.resetMs);
    t.ok(
      resets.every((r, i) => r > (i + 1) * 15_000 - 1000 && r <= (i + 1) * 15_000),
      `resetMs ${resets.join(', ')}: one more 15 s interval each`,
    );
    for (const d of burst.filter((d) => !d.allowed)) {
      t.equal(d.policy, 'infinite');
      t.ok(d.retryAfterMs > 14_000 && d.retryAfterMs <= 15_000, `retryAfterMs ${d.retryAfterMs}`);
    }
    t.same(
      others.map((d) => d.allowed),
      [true, true, false],
      'another client, asking in the same turn, has its own budget',
    );
    const again = await Promise.all([store.checkRate(checks), store.checkRate(checks)]);
    t.same(
      again.map((d) => d.allowed),
      [false, false],
      'the refusals consumed nothing, and nothing refilled',
    );
    t.equal((await store.checkRate([checks[0] as RateCheck])).remaining, 1, 'the general policy spent 4 and 1 now: 1 left');
  });

  t.test(`${name}: checkRate refills one request per emission interval`, async (t) => {
    const { store, key } = await setUp(t);
    const check: RateCheck = { policy: 'general', key: key('refill'), limit: 5, periodMs: 1000 };
    for (let i = 0; i < 5; i++) t.equal((await store.checkRate([check])).allowed, true, `burst request ${i + 1}`);
    const refused = await store.checkRate([check]);
    t.equal(refused.allowed, false);
    t.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= 200, `retryAfterMs ${refused.retryAfterMs}: within one interval (200 ms)`);
    await sleep(refused.retryAfterMs + 30);
    t.equal((await store.checkRate([check])).allowed, true, 'one more once retryAfterMs has passed');
    t.equal((await store.checkRate([check])).allowed, false, 'and only one');
  });

  t.test(`${name}: checkRate decides several policies at once; a refusal consumes nothing`, async (t) => {
    const { store, key } = await setUp(t);
    const general: RateCheck = { policy: 'general', key: key('g'), group: key('client'), limit: 60, periodMs: 60_000 };
    const infinite: RateCheck = { policy: 'infinite', key: key('i'), group: key('client'), limit: 10, periodMs: 60_000 };
    const first = await store.checkRate([general, infinite]);
    t.equal(first.allowed, true);
    t.equal(first.remaining, 9, 'remaining of the tightest policy');
    t.ok(first.resetMs > 5000 && first.resetMs <= 6000, `resetMs ${first.resetMs}: the longest replenishment (infinite's 6 s)`);
    for (let i = 2; i <= 10; i++) t.equal((await store.checkRate([general, infinite])).allowed, true, `request ${i}`);
    const d = await store.checkRate([general, infinite]);
    t.equal(d.allowed, false);
    t.equal(d.policy, 'infinite');
    // The general budget was charged 10 times only: 50 more fit.
    let allowed = 0;
    for (let i = 0; i < 60; i++) if ((await store.checkRate([general])).allowed) allowed++;
    t.equal(allowed, 50);
  });

  t.test(`${name}: limit semantics: 0 disables a check, 1 allows one per period`, async (t) => {
    const { store, key } = await setUp(t);
    const off: RateCheck = { policy: 'general', key: key('off'), limit: 0, periodMs: 60_000 };
    for (let i = 0; i < 3; i++) {
      const d = await store.checkRate([off]);
      t.equal(d.allowed, true, 'limit 0 disables');
      t.equal(d.policy, undefined);
    }
    t.equal((await store.checkRate([])).allowed, true, 'no checks: allowed');
    const one: RateCheck = { policy: 'infinite', key: key('one'), limit: 1, periodMs: 60_000 };
    const served = await store.checkRate([off, one]);
    t.equal(served.allowed, true, 'a disabled check beside a live one: the live one decides');
    t.equal(served.remaining, 0);
    const refused = await store.checkRate([off, one]);
    t.equal(refused.allowed, false);
    t.equal(refused.policy, 'infinite');
    t.ok(refused.retryAfterMs > 59_000 && refused.retryAfterMs <= 60_000, `retryAfterMs ${refused.retryAfterMs}: one interval is the whole period`);
  });

  t.test(`${name}: consumeBudget takes up to budget per window, then refuses`, async (t) => {
    const { store, key } = await setUp(t);
    const ttlMs = 300;
    t.equal(await store.consumeBudget(key('ai'), 2, ttlMs), true);
    const opened = performance.now();
    t.equal(await store.consumeBudget(key('ai'), 2, ttlMs), true);
    t.equal(await store.consumeBudget(key('ai'), 2, ttlMs), false, 'budget spent');
    t.equal(await store.consumeBudget(key('ai'), 2, ttlMs), false, 'and stays spent');
    t.equal(await store.consumeBudget(key('none'), 0, ttlMs), false, 'budget 0 allows nothing');
    await until(opened, ttlMs + 50);
    t.equal(await store.consumeBudget(key('ai'), 2, ttlMs), true, 'a new period');
    t.equal(await store.consumeBudget(key('ai'), 2, ttlMs), true);
    t.equal(await store.consumeBudget(key('ai'), 2, ttlMs), false);
  });

  t.test(`${name}: slots: at most limit taken at once, given back on release, lapsing after ttl`, async (t) => {
    const { store, key } = await setUp(t);
    const long = 60_000;
    t.equal(await store.acquireSlot(key('s'), 2, long), true);
    t.equal(await store.acquireSlot(key('s'), 2, long), true);
    t.equal(await store.acquireSlot(key('s'), 2, long), false, 'both slots taken');
    t.equal(await store.acquireSlot(key('other'), 2, long), true, 'another key has its own');
    await store.releaseSlot(key('s'));
    t.equal(await store.acquireSlot(key('s'), 2, long), true, 'a release gives one back');
    t.equal(await store.acquireSlot(key('s'), 2, long), false);
    for (let i = 0; i < 5; i++) await store.releaseSlot(key('s'));
    await store.releaseSlot(key('never-taken'));
    t.equal(await store.acquireSlot(key('s'), 1, long), true, 'releases never go below zero');
    t.equal(await store.acquireSlot(key('s'), 1, long), false);
    t.equal(await store.acquireSlot(key('zero'), 0, long), false, 'limit 0 allows nothing');
    // A lost release: the slots lapse ttl after the last take.
    const ttlMs = 300;
    t.equal(await store.acquireSlot(key('lapse'), 1, ttlMs), true);
    const taken = performance.now();
    t.equal(await store.acquireSlot(key('lapse'), 1, ttlMs), false);
    await until(taken, ttlMs + 50);
    t.equal(await store.acquireSlot(key('lapse'), 1, ttlMs), true, 'free again after the ttl');
  });

  t.test(`${name}: keys are independent`, async (t) => {
    const { store, key } = await setUp(t);
    const rate = (k: string): RateCheck => ({ policy: 'general', key: key(k), limit: 2, periodMs: 60_000 });
    for (let i = 0; i < 2; i++) await store.checkRate([rate('x')]);
    t.equal((await store.checkRate([rate('x')])).allowed, false, 'x is spent');
    t.equal((await store.checkRate([rate('y')])).allowed, true, 'y is not');
    t.equal((await store.checkRate([rate('y')])).remaining, 0, 'y counts on its own');
    t.equal(await store.consumeBudget(key('p'), 1, 60_000), true);
    t.equal(await store.consumeBudget(key('p'), 1, 60_000), false);
    t.equal(await store.consumeBudget(key('q'), 1, 60_000), true, 'another budget key is untouched');
    for (let i = 0; i < 5; i++) await store.countInWindow(key('m'), 60_000);
    t.equal(await store.countInWindow(key('n'), 60_000), 1, 'another window key starts at 1');
  });

  t.test(`${name}: sessions: bounded per owner, expiring after their last use, closed with their events`, async (t) => {
    const { store, key } = await setUp(t);
    const owner = key('10.0.0.1');
    const a = await store.openSession(owner, 'A', 2, 1500);
    const b = await store.openSession(owner, 'B', 2, 60_000);
    t.match(a, /^[A-Za-z0-9_-]{11}\.[0-9a-f]{32}$/, 'a visible-ASCII id');
    t.not(a, b, 'fresh ids');
    t.equal(await store.openSession(owner, 'C', 2, 60_000), undefined, 'a third for the same owner is refused');
    t.type(await store.openSession(key('10.0.0.2'), 'D', 2, 60_000), 'string', 'another owner is counted apart');
    t.equal(await store.touchSession(a as string, 1500), 'A', 'the value, read back');
    t.equal(await store.touchSession(`${(a as string).slice(0, 12)}${'0'.repeat(32)}`, 1500), undefined, 'an unknown id');
    t.equal(await store.touchSession('not an id', 1500), undefined, 'a malformed id');
    // Generous margins: a busy machine may oversleep by hundreds of milliseconds.
    await sleep(900);
    t.equal(await store.touchSession(a as string, 1500), 'A', 'a use pushes the expiry on');
    await sleep(900);
    t.equal(await store.touchSession(a as string, 1500), 'A', 'still live 1800 ms after opening: the expiry slides');
    await sleep(1800);
    t.equal(await store.touchSession(a as string, 1500), undefined, 'expired after 1500 ms unused');
    t.type(await store.openSession(owner, 'E', 2, 60_000), 'string', 'an expired session frees its place');

    const first = await store.appendEvents(b as string, 'post-1', ['one', 'two words'], 3);
    t.equal(first, 1, 'the first event is 1');
    t.equal(await store.appendEvents(b as string, 'get', ['g'], 3), 3, 'numbers rise across streams');
    t.same(await store.eventsAfter(b as string, 'post-1', 0), [{ seq: 1, data: 'one' }, { seq: 2, data: 'two words' }], 'one stream, in order');
    t.same(await store.eventsAfter(b as string, 'post-1', 1), [{ seq: 2, data: 'two words' }], 'after a number: the ones above it');
    t.equal(await store.appendEvents(b as string, 'post-1', ['three'], 3), 4);
    t.same((await store.eventsAfter(b as string, 'post-1', 0)).map((e) => e.seq), [2, 4], 'at most max kept: the oldest dropped');
    t.equal(await store.closeSession(b as string), true, 'closed');
    t.equal(await store.closeSession(b as string), false, 'closing again: not live');
    t.equal(await store.touchSession(b as string, 60_000), undefined, 'gone after close');
    t.equal(await store.appendEvents(b as string, 'post-1', ['late'], 3), 0, 'no events for a closed session');
    t.same(await store.eventsAfter(b as string, 'post-1', 0), [], 'and none kept');
  });

  t.test(`${name}: close is idempotent, and afterwards every operation fails clearly`, async (t) => {
    const { store, key } = await setUp(t);
    t.equal(await store.countInWindow(key('w'), 60_000), 1, 'open: answers');
    await store.close();
    await store.close();
    t.pass('a second close resolves');
    const closed = 'ERR_CHAOS_STORE_CLOSED';
    t.equal(await failureCode(() => store.countInWindow(key('w'), 60_000)), closed, 'countInWindow rejects');
    t.equal(await failureCode(() => store.elapsedSinceFirst(key('f'), 60_000)), closed, 'elapsedSinceFirst rejects');
    t.equal(await failureCode(() => store.checkRate([{ policy: 'general', key: key('r'), limit: 5, periodMs: 60_000 }])), closed, 'checkRate rejects');
    t.equal(await failureCode(() => store.consumeBudget(key('b'), 5, 60_000)), closed, 'consumeBudget rejects');
    t.equal(await failureCode(() => store.openSession(key('o'), 'v', 5, 60_000)), closed, 'openSession rejects');
    if (store.checkRateNow) {
      const now = store.checkRateNow.bind(store);
      t.throws(() => now([{ policy: 'general', key: key('r'), limit: 5, periodMs: 60_000 }]), { code: closed }, 'checkRateNow throws');
    }
  });

  t.test(`${name}: logs open within an owner's cap, take entries up to a bound, and expire whole`, async (t) => {
    const { store, key } = await setUp(t);
    t.equal(await store.appendLog(key('never'), 'x', 10), false, 'a log never opened takes nothing');
    t.equal(await store.readLog(key('never')), undefined);
    t.same(await store.openLog(key('a'), '{"head":1}', 60_000, key('owner'), 2), { opened: true, retryAfterMs: 0 });
    t.same(await store.readLog(key('a')), { head: '{"head":1}', entries: [] }, 'opened empty');
    t.equal(await store.appendLog(key('a'), 'one', 3), true);
    t.equal(await store.appendLog(key('a'), 'two', 3), true);
    t.equal(await store.appendLog(key('a'), 'three', 3), true);
    t.equal(await store.appendLog(key('a'), 'four', 3), false, 'full at the bound');
    t.same(await store.readLog(key('a')), { head: '{"head":1}', entries: ['one', 'two', 'three'] }, 'in append order');

    t.equal((await store.openLog(key('b'), 'h', 60_000, key('owner'), 2)).opened, true, 'a second log of the owner');
    const refused = await store.openLog(key('c'), 'h', 60_000, key('owner'), 2);
    t.equal(refused.opened, false, 'a third is refused');
    t.ok(refused.retryAfterMs > 55_000 && refused.retryAfterMs <= 60_000, `retry after ${refused.retryAfterMs} ms: when the oldest expires`);
    t.equal(await store.readLog(key('c')), undefined, 'the refused log does not exist');
    t.equal((await store.openLog(key('d'), 'h', 60_000, key('other owner'), 2)).opened, true, 'owners are separate');

    const opened = performance.now();
    t.equal((await store.openLog(key('short'), 'h', 300, key('brief owner'), 1)).opened, true);
    t.equal(await store.appendLog(key('short'), 'e', 10), true);
    t.equal((await store.openLog(key('short2'), 'h', 300, key('brief owner'), 1)).opened, false, 'the cap holds while it lives');
    await until(opened, 400);
    t.equal(await store.readLog(key('short')), undefined, 'expired: gone');
    t.equal(await store.appendLog(key('short'), 'late', 10), false, 'expired: takes nothing');
    t.equal((await store.openLog(key('short3'), 'h', 300, key('brief owner'), 1)).opened, true, 'expired: its owner may open another');
  });
}
