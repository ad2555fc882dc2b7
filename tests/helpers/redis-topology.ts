// Real Redis topologies for the tests (issue 25, "Redis without a single
// point of failure"), on free loopback ports, stopped at teardown: a Redis
// Cluster of three masters (`redis-server --cluster-enabled yes` ×3 joined by
// `redis-cli --cluster create`), and a Sentinel setup (one master, one
// replica, three sentinels run as `redis-server <conf> --sentinel`, so no
// package beyond redis-server is needed) tuned to fail over within seconds.
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { freePort, spawnFollowing } from './process.js';
import { completeByLength, get, parseHead, rawExchange } from './raw.js';
import { rawCommand } from './redis.js';

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** One redis-server process (data node or sentinel) that can be killed and started again on its port. */
export interface RedisProcess {
  readonly port: number;
  /** SIGKILL; resolves once it has exited. */
  kill(): Promise<void>;
  /** Starts it again with the same arguments; resolves once it answers PING. */
  start(): Promise<void>;
  command(...args: string[]): Promise<string>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function waitFor(what: string, condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** A redis-server with `args` on `port`, stopped at teardown. */
async function redisProcess(t: Teardown, port: number, args: readonly string[]): Promise<RedisProcess> {
  let child: ChildProcess | undefined;
  let output = '';
  const process: RedisProcess = {
    port,
    async kill() {
      if (!child) return;
      const running = child;
      running.kill('SIGCONT');
      running.kill('SIGKILL');
      await exited(running);
      child = undefined;
    },
    async start() {
      const spawned = spawnFollowing('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      spawned.stdout?.on('data', (d: Buffer) => (output += d.toString()));
      spawned.stderr?.on('data', (d: Buffer) => (output += d.toString()));
      spawned.once('error', (error) => (output += `spawn failed: ${error.message} (is redis-server installed? make test installs it)`));
      child = spawned;
      await waitFor(
        `redis-server on ${port} (${output.slice(-300)})`,
        async () => {
          if (spawned.exitCode !== null) throw new Error(`redis-server on ${port} exited: ${output}`);
          return (await rawCommand(port, ['PING'], 500)).startsWith('+PONG');
        },
        10_000,
      );
    },
    command: (...commandArgs) => rawCommand(port, commandArgs),
  };
  t.teardown(() => process.kill());
  await process.start();
  return process;
}

function scratchDir(t: Teardown, name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const NO_PERSISTENCE = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'];

export interface RedisCluster {
  /** The masters, each owning a third of the slots. */
  readonly nodes: readonly RedisProcess[];
  /** REDIS_CLUSTER_NODES for these nodes. */
  readonly seeds: string;
  /** Resolves once every node that runs says cluster_state:ok. */
  whenHealthy(timeoutMs?: number): Promise<void>;
}

/**
 * Three masters with no replicas. `cluster-require-full-coverage no`, as
 * docs/redis.md advises: with a node gone, the other slots keep answering. A
 * node killed and started again keeps its slots (its nodes.conf survives) and
 * comes back empty (nothing is saved).
 */
export async function startCluster(t: Teardown): Promise<RedisCluster> {
  const dir = scratchDir(t, 'redis-cluster');
  const nodes: RedisProcess[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    // The bus port is chosen too: port + 10000 may be past 65535 or taken.
    const busPort = await freePort();
    nodes.push(
      await redisProcess(t, port, [
        '--port', String(port), '--cluster-enabled', 'yes', '--cluster-port', String(busPort),
        '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', '1000',
        '--cluster-require-full-coverage', 'no', '--dir', dir, ...NO_PERSISTENCE,
      ]),
    );
  }
  await promisify(execFile)('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes'], { timeout: 30_000 });
  const cluster: RedisCluster = {
    nodes,
    seeds: nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
    async whenHealthy(timeoutMs = 20_000) {
      await waitFor('cluster_state:ok on every node', async () => {
        for (const node of nodes) if (!(await node.command('CLUSTER', 'INFO')).includes('cluster_state:ok')) return false;
        return true;
      }, timeoutMs);
    },
  };
  await cluster.whenHealthy();
  return cluster;
}

export interface RedisSentinelSetup {
  readonly master: RedisProcess;
  readonly replica: RedisProcess;
  readonly sentinels: readonly RedisProcess[];
  /** The name the sentinels monitor. */
  readonly name: string;
  /** REDIS_SENTINELS for these sentinels. */
  readonly seeds: string;
  /** The port the sentinels name as master now (asked of the first one that answers). */
  masterPort(): Promise<number>;
}

/** The master's port by one sentinel's SENTINEL get-master-addr-by-name. */
async function masterPortBy(sentinel: RedisProcess, name: string): Promise<number> {
  const reply = await sentinel.command('SENTINEL', 'get-master-addr-by-name', name);
  const port = /\r\n(\d+)\r\n$/.exec(reply)?.[1];
  if (port === undefined) throw new Error(`no master for ${name}: ${reply}`);
  return Number(port);
}

/**
 * One master, one replica and three sentinels (quorum 2), down after 1 s,
 * failover timeout 3 s: a killed master is replaced within a few seconds.
 * Resolves once every sentinel knows the replica and the two other sentinels
 * (until then a failover could not be authorised).
 */
export async function startSentinel(t: Teardown, name = 'chaosmaster'): Promise<RedisSentinelSetup> {
  const dir = scratchDir(t, 'redis-sentinel');
  const masterPort = await freePort();
  const master = await redisProcess(t, masterPort, ['--port', String(masterPort), '--dir', dir, ...NO_PERSISTENCE]);
  const replicaPort = await freePort();
  const replica = await redisProcess(t, replicaPort, ['--port', String(replicaPort), '--replicaof', '127.0.0.1', String(masterPort), '--dir', dir, ...NO_PERSISTENCE]);
  const sentinels: RedisProcess[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const conf = join(dir, `sentinel-${port}.conf`);
    // Sentinel rewrites its file (what it learns), so each has its own.
    writeFileSync(
      conf,
      [
        `port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, 'loglevel warning',
        `sentinel monitor ${name} 127.0.0.1 ${masterPort} 2`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 3000`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    sentinels.push(await redisProcess(t, port, [conf, '--sentinel']));
  }
  await waitFor('every sentinel to know the replica and the other two', async () => {
    for (const sentinel of sentinels) {
      const info = await sentinel.command('SENTINEL', 'master', name);
      const field = (key: string): string | undefined => new RegExp(`\\$\\d+\\r\\n${key}\\r\\n\\$\\d+\\r\\n([^\\r]*)`).exec(info)?.[1];
      if (field('num-slaves') !== '1' || field('num-other-sentinels') !== '2') return false;
    }
    return true;
  }, 30_000);
  return {
    master,
    replica,
    sentinels,
    name,
    seeds: sentinels.map((s) => `127.0.0.1:${s.port}`).join(','),
    async masterPort() {
      for (const sentinel of sentinels) {
        try {
          return await masterPortBy(sentinel, name);
        } catch {
          // a killed sentinel: ask the next
        }
      }
      throw new Error('no sentinel answers');
    },
  };
}

/** What a load through a Redis fault saw: statuses counted, and the slowest request. */
export interface FaultLoad {
  readonly statuses: Map<number, number>;
  readonly slowestMs: () => number;
  /** Stops the workers and waits for their last requests. */
  stop(): Promise<void>;
}

/**
 * Four workers alternating between chaos servers: every third request a
 * stateful /retry-mismatch (ids `<idPrefix>-<worker>-<n>`), else /status/200;
 * bounded at 5000 requests each, `paceMs` apart.
 */
export function loadThroughFault(ports: readonly number[], idPrefix: string, paceMs = 0): FaultLoad {
  const statuses = new Map<number, number>();
  let slowest = 0;
  let stopped = false;
  const worker = async (w: number): Promise<void> => {
    for (let i = 0; !stopped && i < 5000; i++) {
      const port = ports[(w + i) % ports.length] as number;
      const path = i % 3 === 0 ? `/retry-mismatch?id=${idPrefix}-${w}-${i % 40}` : '/status/200';
      const started = Date.now();
      const reply = await rawExchange(port, get(path), { until: completeByLength, timeoutMs: 5000 });
      slowest = Math.max(slowest, Date.now() - started);
      const status = parseHead(reply.data).status;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (paceMs > 0) await sleep(paceMs);
    }
  };
  const done = Promise.all([0, 1, 2, 3].map(worker));
  return {
    statuses,
    slowestMs: () => slowest,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}
