// The store through Redis Sentinel (issue 25): one master, one replica and
// three sentinels started by the test (tests/helpers/redis-topology.ts),
// reached through REDIS_SENTINELS + REDIS_SENTINEL_NAME as loadConfig reads
// them. Two replicas share state through the master the sentinels name; then
// the master is killed under a bounded load through two chaos servers: no 5xx,
// the documented fail-open while the sentinels fail over (counted fallbacks),
// and shared state again on the promoted replica.
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import t from 'tap';
import { createStore } from '../../../shared/store/index.js';
import { FallbackStore, type FallbackReason } from '../../../shared/store/fallback.js';
import { loadThroughFault, startSentinel } from '../../helpers/redis-topology.js';
import { startChaos, testConfig } from '../../helpers/servers.js';

const silent = pino({ level: 'silent' });
const setup = await startSentinel(t);

t.test('two replicas through the sentinels, then the master killed under load: no 5xx, fail open, shared again after the failover', async (t) => {
  const reasons: FallbackReason[] = [];
  const config = testConfig({
    RATE_LIMIT_GENERAL: '100000',
    REDIS_SENTINELS: setup.seeds,
    REDIS_SENTINEL_NAME: setup.name,
    REDIS_PREFIX: 'sentinel:',
  });
  const stores = (await Promise.all([0, 1].map(() => createStore(config, silent, { onFallback: (r) => reasons.push(r) })))) as FallbackStore[];
  await Promise.all(stores.map((s) => s.started));
  t.same(stores.map((s) => s.state), ['up', 'up'], 'both found the master through the sentinels');
  const [a, b] = stores as [FallbackStore, FallbackStore];
  t.equal(await a.countInWindow('retry:before', 60_000), 1);
  t.equal(await b.countInWindow('retry:before', 60_000), 2, 'one record for both');
  t.match(await setup.master.command('EXISTS', 'sentinel:window:{retry:before}'), /^:1/, 'on the master the sentinels name');

  const servers = await Promise.all(stores.map((store) => startChaos(t, { config, store })));
  const load = loadThroughFault(servers.map((s) => s.port), 'sentinel', 5);
  await sleep(1000);
  const oldMaster = setup.master.port;
  await setup.master.kill();
  const killed = Date.now();
  // down-after 1 s, then the election and the promotion: bounded at 30 s.
  while ((await setup.masterPort()) === oldMaster) {
    if (Date.now() - killed > 30_000) throw new Error('the sentinels did not fail over within 30 s');
    await sleep(100);
  }
  const failedOverMs = Date.now() - killed;
  t.equal(await setup.masterPort(), setup.replica.port, `the replica is master after ${failedOverMs} ms`);
  const deadline = Date.now() + 20_000;
  while (stores.some((s) => s.state !== 'up') && Date.now() < deadline) await sleep(100);
  await sleep(1000);
  await load.stop();
  const { statuses } = load;
  const slowest = load.slowestMs();
  const served = [...statuses.values()].reduce((x, y) => x + y, 0);
  t.same([...statuses.entries()].filter(([status]) => status >= 500), [], `no 5xx in ${served} requests (${JSON.stringify(Object.fromEntries(statuses))})`);
  t.ok(served > 200, `${served} requests through the failover`);
  t.ok(reasons.length > 0, `${reasons.length} operations answered locally while there was no master (fail open)`);
  t.ok(slowest < 3000, `the slowest request took ${slowest} ms`);
  t.same(stores.map((s) => s.state), ['up', 'up'], 'both back on Redis');

  // Shared again, on the promoted replica.
  const before = reasons.length;
  for (let i = 0; i < 10; i++) {
    t.equal(await a.countInWindow(`retry:after-${i}`, 60_000), 1);
    t.equal(await b.countInWindow(`retry:after-${i}`, 60_000), 2, `after-${i}: one record`);
  }
  t.equal(reasons.length, before, 'nothing answered locally any more');
  t.match(await setup.replica.command('EXISTS', 'sentinel:window:{retry:after-0}'), /^:1/, 'written to the new master');
  t.equal(await a.acquireSlot('held:chaos:10.0.0.5', 1, 60_000), true);
  t.equal(await b.acquireSlot('held:chaos:10.0.0.5', 1, 60_000), false, 'one held-slot cap again');
});
