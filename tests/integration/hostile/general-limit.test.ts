// The real per-IP limit (DESIGN §5, SPEC §8): on every host, past the limit a
// 429 with Retry-After, the IETF RateLimit fields and a problem+json body, and
// no X-Chaos-* line; 0 turns it off; /infinite has its own, separate policy.
import t, { type Test } from 'tap';
import { MemoryStore } from '../../../shared/store/memory.js';
import type { Store } from '../../../shared/store/types.js';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from '../../helpers/raw.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';

const chaosLines = (head: ParsedResponse): string[] => head.headerLines.filter(([n]) => /^x-chaos-/i.test(n)).map(([n]) => n);

async function ask(port: number, path: string): Promise<ParsedResponse> {
  return parseHead((await rawExchange(port, get(path), { until: completeByLength })).data);
}

function expectRefusal(t: Test, head: ParsedResponse, policy: string, limit: number): void {
  t.equal(head.status, 429);
  t.equal(head.header('content-type'), 'application/problem+json');
  t.match(head.header('retry-after') ?? '', /^[1-9]\d*$/, 'Retry-After in whole seconds');
  t.equal(head.header('ratelimit-policy'), `"${policy}";q=${limit};w=60`);
  t.match(head.header('ratelimit') ?? '', new RegExp(`^"${policy}";r=0;t=\\d+$`));
  t.same(chaosLines(head), [], 'a real limit carries no X-Chaos-*');
  const body = JSON.parse(head.rest.toString('utf8').slice(0, Number(head.header('content-length')))) as Record<string, unknown>;
  t.match(body, { status: 429, title: 'Too Many Requests', policy });
  t.match(String(body.detail), /not chaos/);
  t.match(String(body.detail), new RegExp(`RATE_LIMIT_${policy.toUpperCase()}=0 to turn it off`), 'names the switch for self-hosters');
}

for (const host of ['chaos', 'control', 'bots'] as const) {
  t.test(`${host}: the general limit, per IP`, async (t) => {
    let now = 1_000_000;
    const store = new MemoryStore({ now: () => now });
    const config = testConfig({ RATE_LIMIT_GENERAL: '5' });
    const port = host === 'chaos' ? (await startChaos(t, { config, store })).port : (await startHttp(t, host, config, store)).port;
    const path = host === 'chaos' ? '/truncate?at=2' : host === 'control' ? '/truncate?at=2' : '/humans.txt';
    for (let i = 1; i <= 5; i++) {
      const head = await ask(port, i % 2 ? path : '/');
      t.not(head.status, 429, `request ${i} of 5 is served`);
    }
    expectRefusal(t, await ask(port, path), 'general', 5);
    expectRefusal(t, await ask(port, '/no/such/page'), 'general', 5);
    now += 12_000; // one emission interval (60 s / 5)
    t.not((await ask(port, path)).status, 429, 'one more after an interval');
    t.equal((await ask(port, path)).status, 429);
  });
}

/** A store that answers only asynchronously, as Redis will: the chaos connection must wait for it. */
function roundTripStore(): Store {
  const inner = new MemoryStore();
  return {
    countInWindow: (key, ttl) => inner.countInWindow(key, ttl),
    elapsedSinceFirst: (key, ttl) => inner.elapsedSinceFirst(key, ttl),
    checkRate: (checks) => new Promise((resolve) => setTimeout(() => resolve(inner.checkRateNow(checks)), 5)),
    consumeBudget: (key, budget, ttl) => inner.consumeBudget(key, budget, ttl),
    acquireSlot: (key, limit, ttl) => inner.acquireSlot(key, limit, ttl),
    releaseSlot: (key) => inner.releaseSlot(key),
    openSession: (owner, value, limit, ttl) => inner.openSession(owner, value, limit, ttl),
    touchSession: (id, ttl) => inner.touchSession(id, ttl),
    closeSession: (id) => inner.closeSession(id),
    appendEvents: (id, stream, data, max) => inner.appendEvents(id, stream, data, max),
    eventsAfter: (id, stream, after) => inner.eventsAfter(id, stream, after),
    openLog: (key, head, ttl, owner, max) => inner.openLog(key, head, ttl, owner, max),
    appendLog: (key, entry, max) => inner.appendLog(key, entry, max),
    readLog: (key) => inner.readLog(key),
    close: () => inner.close(),
  };
}

t.test('pipelined requests past the limit keep their order (in-memory and round-trip stores)', async (t) => {
  for (const store of [new MemoryStore(), roundTripStore()]) {
    const port = (await startChaos(t, { config: testConfig({ RATE_LIMIT_GENERAL: '2' }), store })).port;
    const r = await rawExchange(port, get('/truncate?at=1', { Connection: 'keep-alive' }).replace('/truncate?at=1', '/slow?ms=0') + get('/slow?ms=0') + get('/slow?ms=0'), {
      until: (d) => (d.toString('latin1').match(/HTTP\/1\.1 /g) ?? []).length >= 3 && completeByLength(d.subarray(d.lastIndexOf('HTTP/1.1 '))),
    });
    const statuses = (r.data.toString('latin1').match(/HTTP\/1\.1 (\d{3})/g) ?? []).map((s) => s.slice(9));
    t.same(statuses, ['200', '200', '429'], 'two served, then the refusal, in order');
  }
});

t.test('0 turns the limit off', async (t) => {
  const port = (await startChaos(t, { config: testConfig({ RATE_LIMIT_GENERAL: '0' }) })).port;
  for (let i = 0; i < 80; i++) {
    const head = await ask(port, '/truncate?at=1');
    if (head.status === 429) t.fail(`request ${i + 1} refused with the limit off`);
  }
  t.pass('80 requests, none refused');
});

t.test('/infinite has its own limit, separate from the general one', async (t) => {
  const config = testConfig({ RATE_LIMIT_GENERAL: '100', RATE_LIMIT_INFINITE: '3' });
  const port = (await startHttp(t, 'control', config)).port;
  for (let i = 0; i < 3; i++) t.equal((await ask(port, `/infinite/json/users/limit-${i}`)).status, 200);
  const refused = await ask(port, '/infinite/json/users/limit-x');
  expectRefusal(t, refused, 'infinite', 3);
  t.equal(refused.header('x-robots-tag'), 'noindex, nofollow', 'the namespace keeps its robots line');
  t.equal((await ask(port, '/truncate?at=1')).status, 200, 'the general budget is not spent');
});

t.test('the general refusal under /infinite keeps X-Robots-Tag', async (t) => {
  const port = (await startHttp(t, 'control', testConfig({ RATE_LIMIT_GENERAL: '1', RATE_LIMIT_INFINITE: '0' }))).port;
  t.equal((await ask(port, '/infinite/json/users/a')).status, 200);
  const refused = await ask(port, '/infinite/json/users/b');
  expectRefusal(t, refused, 'general', 1);
  t.equal(refused.header('x-robots-tag'), 'noindex, nofollow');
});

/** A round-trip store that records the policies of every checkRate call. */
function countingStore(): { store: Store; calls: string[][] } {
  const inner = roundTripStore();
  const calls: string[][] = [];
  return {
    calls,
    store: { ...inner, checkRate: (checks) => (calls.push(checks.map((c) => c.policy)), inner.checkRate(checks)) },
  };
}

t.test('the general and /infinite policies are decided in one store call', async (t) => {
  const { store, calls } = countingStore();
  const config = testConfig({ RATE_LIMIT_GENERAL: '100', RATE_LIMIT_INFINITE: '1' });
  const port = (await startHttp(t, 'control', config, store)).port;
  t.equal((await ask(port, '/infinite/json/users/one')).status, 200);
  t.same(calls, [['general', 'infinite']], 'a generated page: both policies, one call');
  t.equal((await ask(port, '/infinite/json/widgets/x')).status, 404);
  t.equal((await ask(port, '/truncate?at=1')).status, 200);
  t.same(calls.slice(1), [['general'], ['general']], 'refused before the generator, and elsewhere: the general policy only');
  const refused = await ask(port, '/infinite/json/users/two');
  expectRefusal(t, refused, 'infinite', 1);
  t.equal(calls.length, 4, 'the refusal too was one call');
  // A refused request consumes nothing of the general budget (all or nothing).
  const generalOnly = countingStore();
  const tight = (await startHttp(t, 'control', testConfig({ RATE_LIMIT_GENERAL: '2', RATE_LIMIT_INFINITE: '1' }), generalOnly.store)).port;
  t.equal((await ask(tight, '/infinite/json/users/a')).status, 200);
  t.equal((await ask(tight, '/infinite/json/users/b')).status, 429, 'the infinite policy refuses');
  t.equal((await ask(tight, '/truncate?at=1')).status, 200, 'the general budget still has the unit the refusal did not take');
  t.equal((await ask(tight, '/truncate?at=1')).status, 429);
});
