// The store on a real Redis Cluster (issue 25): three masters started by the
// test (tests/helpers/redis-topology.ts), reached through REDIS_CLUSTER_NODES
// as loadConfig reads it. The shared case list passes unchanged (every script
// touches one slot: the keys carry hash tags, a request's rate checks one
// group); keys land on every node; two replicas share every kind of state;
// and a node killed under load costs no request (its slots fail open to the
// local store) and is shared again once it is back.
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { loadConfig } from '../../../shared/config/config.js';
import { createStore } from '../../../shared/store/index.js';
import { FallbackStore, type FallbackReason } from '../../../shared/store/fallback.js';
import { RedisStore } from '../../../shared/store/redis.js';
import type { RateCheck } from '../../../shared/store/types.js';
import { loadThroughFault, startCluster } from '../../helpers/redis-topology.js';
import { startChaos, testConfig } from '../../helpers/servers.js';
import { runStoreCases } from '../../helpers/store-cases.js';

const silent = pino({ level: 'silent' });
const cluster = await startCluster(t);
const nodes = loadConfig({ REDIS_CLUSTER_NODES: cluster.seeds }).redisClusterNodes;
if (nodes === undefined) throw new Error('REDIS_CLUSTER_NODES was not read');

// What these cases test is where keys go, not speed: a generous timeout on a machine other helpers load.
const commandTimeoutMs = 2000;

async function clusterStore(test: Test, prefix: string): Promise<RedisStore> {
  const store = new RedisStore({ clusterNodes: nodes ?? [], prefix, commandTimeoutMs });
  test.teardown(() => store.close());
  if (!(await store.whenReady(10_000))) throw new Error('RedisStore did not reach the cluster');
  return store;
}

runStoreCases(t, 'redis cluster', async () => {
  const store = new RedisStore({ clusterNodes: nodes, prefix: 'cases:', commandTimeoutMs });
  if (!(await store.whenReady(10_000))) throw new Error('RedisStore did not reach the cluster');
  return store;
});

t.test('after the cases: keys on every node, each with a TTL, each in its own hash tag', async (t) => {
  for (const node of cluster.nodes) {
    const keys = (await node.command('KEYS', 'cases:*')).split('\r\n').filter((l) => l.startsWith('cases:'));
    t.ok(keys.length > 0, `node ${node.port} holds ${keys.length} keys`);
    t.ok(keys.every((k) => /^cases:[a-z]+:\{[^{}]+\}/.test(k)), 'each key is <prefix><kind>:{<tag>}…');
    for (const key of keys.slice(0, 20)) t.match(await node.command('PTTL', key), /^:[1-9]\d*\r\n$/, `${key} expires`);
  }
});

t.test('createStore with REDIS_CLUSTER_NODES: a fallback store over the cluster, up', async (t) => {
  const store = await createStore(testConfig({ REDIS_CLUSTER_NODES: cluster.seeds, REDIS_PREFIX: 'create:' }), silent);
  t.teardown(() => store.close());
  t.ok(store instanceof FallbackStore);
  await (store as FallbackStore).started;
  t.equal((store as FallbackStore).state, 'up');
  t.equal(await store.countInWindow('retry:x', 60_000), 1);
});

t.test('two replicas on one cluster share retry records, limits, held slots and the AI budget', async (t) => {
  const a = await clusterStore(t, 'two:');
  const b = await clusterStore(t, 'two:');
  const ids = Array.from({ length: 12 }, (_, i) => `retry:id-${i}`);
  for (const id of ids) {
    t.equal(await a.countInWindow(id, 60_000), 1);
    t.equal(await b.countInWindow(id, 60_000), 2, `${id}: one record`);
  }
  const checks = (client: string): RateCheck[] => [
    { policy: 'general', key: `control:general:${client}`, group: `control:${client}`, limit: 3, periodMs: 60_000 },
    { policy: 'infinite', key: `control:infinite:${client}`, group: `control:${client}`, limit: 2, periodMs: 60_000 },
  ];
  for (const client of ['10.0.0.1', '10.0.0.2', '2001:db8::7']) {
    const decisions = [await a.checkRate(checks(client)), await b.checkRate(checks(client)), await a.checkRate(checks(client))];
    t.same(decisions.map((d) => d.allowed), [true, true, false], `${client}: two policies in one call, one count`);
    t.equal(decisions[2]?.policy, 'infinite');
  }
  t.equal(await a.acquireSlot('held:chaos:10.0.0.9', 2, 60_000), true);
  t.equal(await b.acquireSlot('held:chaos:10.0.0.9', 2, 60_000), true);
  t.equal(await a.acquireSlot('held:chaos:10.0.0.9', 2, 60_000), false, 'one cap');
  t.equal(await a.consumeBudget('ai-budget:2026-11-27', 2, 60_000), true);
  t.equal(await b.consumeBudget('ai-budget:2026-11-27', 2, 60_000), true);
  t.equal(await a.consumeBudget('ai-budget:2026-11-27', 2, 60_000), false, 'one budget');
});

t.test('a burst of many clients at once: every batch is one slot, decided as one call each would be', async (t) => {
  const store = await clusterStore(t, 'burst:');
  const lists = Array.from({ length: 40 }, (_, i): RateCheck[] => [
    { policy: 'general', key: `chaos:general:10.1.0.${i}`, group: `chaos:10.1.0.${i}`, limit: 5, periodMs: 60_000 },
  ]);
  const decisions = await Promise.all(lists.flatMap((checks) => Array.from({ length: 7 }, () => store.checkRate(checks))));
  const allowed = decisions.filter((d) => d.allowed).length;
  t.equal(allowed, 40 * 5, 'five of seven for each of 40 clients, spread over the three nodes');
});

t.test('a node killed under load: no 5xx, its slots fail open, shared again once it is back', async (t) => {
  const reasons: FallbackReason[] = [];
  const config = testConfig({ RATE_LIMIT_GENERAL: '100000', REDIS_CLUSTER_NODES: cluster.seeds, REDIS_PREFIX: 'load:' });
  const stores = await Promise.all([0, 1].map(() => createStore(config, silent, { onFallback: (reason) => reasons.push(reason) })));
  await Promise.all(stores.map((s) => (s as FallbackStore).started));
  const servers = await Promise.all(stores.map((store) => startChaos(t, { config, store })));
  const load = loadThroughFault(servers.map((s) => s.port), 'load');
  await sleep(1000);
  const victim = cluster.nodes[0];
  if (!victim) throw new Error('no node');
  await victim.kill();
  await sleep(3000);
  await victim.start();
  await cluster.whenHealthy();
  // Each store finds the node again by itself (its probe, then the node's reconnect).
  const deadline = Date.now() + 15_000;
  while (stores.some((s) => (s as FallbackStore).state !== 'up') && Date.now() < deadline) await sleep(100);
  await sleep(1000);
  await load.stop();
  const { statuses } = load;
  const slowest = load.slowestMs();
  const served = [...statuses.values()].reduce((a, b) => a + b, 0);
  const fivexx = [...statuses.entries()].filter(([status]) => status >= 500);
  t.same(fivexx, [], `no 5xx in ${served} requests (${JSON.stringify(Object.fromEntries(statuses))})`);
  t.ok(served > 200, `${served} requests served through the episode`);
  t.ok(reasons.length > 0, `${reasons.length} operations answered locally while the node was gone (fail open)`);
  t.ok(slowest < 3000, `the slowest request took ${slowest} ms`);
  t.same(stores.map((s) => (s as FallbackStore).state), ['up', 'up'], 'both stores back on the cluster');
  // Shared again, on every node: ids spread over all slots, counted across both replicas.
  const [a, b] = stores as [FallbackStore, FallbackStore];
  const before = reasons.length;
  let shared = 0;
  for (let i = 0; i < 30; i++) {
    const id = `retry:after-${i}`;
    await a.countInWindow(id, 60_000);
    if ((await b.countInWindow(id, 60_000)) === 2) shared++;
  }
  t.equal(shared, 30, 'every record is one record again');
  t.equal(reasons.length, before, 'nothing answered locally any more');
});
