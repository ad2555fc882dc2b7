// The rate limiter's Redis batch on one node against a three-master Redis
// Cluster (issue 25): RedisStore.checkRate straight from this process (no
// HTTP), many clients at once (each its own hash-tag group, so the cluster
// spreads them over its nodes), a fixed number of checks in flight. Reports
// decisions per second and Redis CPU per 1000 decisions. This process runs on
// core 0 and every redis-server on core 1 (taskset): the cluster's three
// nodes share one core here, so the figure shows the cluster's own cost, not
// the scaling that a core per node would give. Bounded: about 20 s with the
// defaults. Knobs: BENCH_TOPOLOGY_SECONDS (4), BENCH_ROUNDS (2),
// BENCH_TOPOLOGY_CLIENTS (500), BENCH_TOPOLOGY_IN_FLIGHT (1000).
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RedisStore } from '../shared/store/redis.js';
import type { RateCheck } from '../shared/store/types.js';
import { cpuSeconds, envInt, freePort, loadAverage, pin, spawnOn } from './lib.js';

const seconds = envInt('BENCH_TOPOLOGY_SECONDS', 4);
const rounds = envInt('BENCH_ROUNDS', 2);
const clients = envInt('BENCH_TOPOLOGY_CLIENTS', 500);
const inFlight = envInt('BENCH_TOPOLOGY_IN_FLIGHT', 1000);
const REDIS_CORE = 1;

function log(line: string): void {
  process.stderr.write(`bench redis-topology: ${line}\n`);
}

async function pong(port: number): Promise<boolean> {
  try {
    return execFileSync('redis-cli', ['-p', String(port), 'PING'], { encoding: 'utf8', timeout: 1000 }).trim() === 'PONG';
  } catch {
    return false;
  }
}

/** redis-servers on core 1, no persistence; stopped by the returned function. */
async function servers(count: number, cluster: boolean, dir: string): Promise<{ ports: number[]; pids: number[]; stop: () => void }> {
  const ports: number[] = [];
  const children: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    const clusterArgs = cluster
      ? ['--cluster-enabled', 'yes', '--cluster-port', String(await freePort()), '--cluster-config-file', join(dir, `nodes-${port}.conf`)]
      : [];
    children.push(spawnOn(REDIS_CORE, 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...clusterArgs]));
    ports.push(port);
  }
  for (const port of ports) while (!(await pong(port))) await sleep(20);
  if (cluster) {
    execFileSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], { stdio: 'ignore', timeout: 30_000 });
    for (const port of ports) {
      while (!execFileSync('redis-cli', ['-p', String(port), 'CLUSTER', 'INFO'], { encoding: 'utf8' }).includes('cluster_state:ok')) await sleep(50);
    }
  }
  return { ports, pids: children.map((c) => c.pid ?? 0), stop: () => children.forEach((c) => c.kill('SIGKILL')) };
}

/** Decisions per second and Redis CPU (ms) per 1000 decisions, `inFlight` checks kept outstanding for `seconds`. */
async function run(store: RedisStore, pids: readonly number[], tag: string): Promise<{ perSecond: number; cpuPer1000: number }> {
  const lists: RateCheck[][] = Array.from({ length: clients }, (_, i) => [
    { policy: 'general', key: `chaos:general:${tag}:${i}`, group: `chaos:${tag}:${i}`, limit: 1_000_000_000, periodMs: 60_000 },
  ]);
  const cpuBefore = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const until = performance.now() + seconds * 1000;
  let decided = 0;
  let next = 0;
  const lane = async (): Promise<void> => {
    while (performance.now() < until) {
      await store.checkRate(lists[next++ % clients] as RateCheck[]);
      decided++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, lane));
  const elapsed = (performance.now() - started) / 1000;
  const cpu = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0) - cpuBefore;
  return { perSecond: decided / elapsed, cpuPer1000: (cpu * 1000 * 1000) / decided };
}

pin(process.pid, 0);
const dir = mkdtempSync(join(tmpdir(), 'bench-redis-topology-'));
const single = await servers(1, false, dir);
const cluster = await servers(3, true, dir);
try {
  const one = new RedisStore({ url: `redis://127.0.0.1:${single.ports[0]}`, prefix: 'bench:', commandTimeoutMs: 5000 });
  const many = new RedisStore({ clusterNodes: cluster.ports.map((port) => ({ host: '127.0.0.1', port })), prefix: 'bench:', commandTimeoutMs: 5000 });
  if (!(await one.whenReady(10_000)) || !(await many.whenReady(10_000))) throw new Error('Redis did not answer');
  await run(one, single.pids, 'warm');
  await run(many, cluster.pids, 'warm');
  const rows: string[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const [name, store, pids] of [['one node', one, single.pids], ['cluster ×3', many, cluster.pids]] as const) {
      const r = await run(store, pids, `r${round}`);
      rows.push(`| ${round} | ${name} | ${Math.round(r.perSecond).toLocaleString('en')} | ${r.cpuPer1000.toFixed(1)} |`);
      log(`round ${round} ${name}: ${Math.round(r.perSecond)} decisions/s, Redis CPU ${r.cpuPer1000.toFixed(1)} ms per 1000`);
    }
  }
  await Promise.all([one.close(), many.close()]);
  process.stdout.write(
    `${clients} clients, ${inFlight} checks in flight, ${seconds} s per row, this process on core 0, every redis-server on core ${REDIS_CORE}; load average ${loadAverage()}\n\n` +
      '| round | topology | decisions/s | Redis CPU ms per 1000 |\n|---|---|---|---|\n' +
      `${rows.join('\n')}\n`,
  );
} finally {
  single.stop();
  cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
