// Shared pieces of the benchmarks: child servers (optionally pinned to a
// core), redis-server and go-httpbin, /proc readers, and percentiles.
import { execFileSync, spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freeLoopbackPorts } from '../services/supervisor.js';
import { NODE_FLAGS, serviceOfMain } from '../shared/runtime/node-flags.js';
import type { HostName } from '../shared/config/config.js';

/** dist/ root: this file compiles to dist/bench/lib.js. */
export const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Child {
  readonly process: ChildProcess;
  readonly pid: number;
  readonly port: number;
  stop(): Promise<void>;
}

interface Ready {
  readonly type: 'ready';
  readonly port: number;
}

function isReady(message: unknown): message is Ready {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'ready';
}

/**
 * `command args` with an IPC channel when it is node (as fork() would), started
 * under `taskset -c <core>` when a core is given: every thread the process
 * ever starts is then on that core (taskset execs, so the pid is the command's).
 */
export function spawnOn(
  core: number | undefined,
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; ipc?: boolean; stdio?: StdioOptions } = {},
): ChildProcess {
  const [file, ...rest] = core === undefined ? [command, ...args] : ['taskset', '-c', String(core), command, ...args];
  return spawn(file as string, rest, {
    env: options.env ?? process.env,
    stdio: options.stdio ?? (options.ipc ? ['ignore', 'inherit', 'inherit', 'ipc'] : ['ignore', 'ignore', 'ignore']),
  });
}

/** Bench servers built from a service's own code, run with that service's flags. */
const RUNS_AS: Readonly<Record<string, HostName>> = { 'bench/chaos-floor.js': 'chaos', 'bench/bare-drip.js': 'chaos' };

/**
 * The node flags a module runs with: a service's main (this build's or
 * another's) gets its service's, as users run it (shared/runtime/node-flags.ts), and
 * so does the chaos transport floor (this build's or another's); BENCH_NODE_FLAGS=off runs them without,
 * to measure what the flags do.
 */
export function nodeFlagsFor(module: string): readonly string[] {
  // Another build's floor (an absolute path) runs as this build's does.
  const floor = Object.keys(RUNS_AS).find((name) => module === name || module.endsWith(`/${name}`));
  const service = serviceOfMain(module) ?? (floor === undefined ? undefined : RUNS_AS[floor]);
  return service && process.env.BENCH_NODE_FLAGS !== 'off' ? NODE_FLAGS[service] : [];
}

/** A node module (dist-relative, or absolute) as a child with an IPC channel, on `core` when given; `nodeArgs`: node flags beyond its service's. */
export function forkNode(module: string, args: readonly string[] = [], env: Record<string, string> = {}, core?: number, nodeArgs: readonly string[] = []): ChildProcess {
  return spawnOn(core, process.execPath, [...nodeFlagsFor(module), ...nodeArgs, path.resolve(DIST, module), ...args], { env: { ...process.env, ...env }, ipc: true });
}

export interface ForkOptions {
  /** Start the server under `taskset -c <core>`. */
  readonly core?: number;
  readonly timeoutMs?: number;
  /** Node flags beyond the service's own (a GC log, a heap snapshot signal). */
  readonly nodeArgs?: readonly string[];
}

/**
 * Forks a server module (dist-relative, or absolute) and waits for its ready message, which
 * carries the port it bound (shared/runtime/run.ts sends it; so does the minimal responder).
 */
export function forkServer(module: string, env: Record<string, string> = {}, options: ForkOptions = {}): Promise<Child> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const child = forkNode(module, [], env, options.core, options.nodeArgs);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${module} did not report ready within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${module} exited (${code ?? 'signal'}) before it was ready`));
    });
    child.on('message', (message) => {
      if (!isReady(message) || child.pid === undefined) return;
      clearTimeout(timer);
      const pid = child.pid;
      resolve({ process: child, pid, port: message.port, stop: () => stopChild(child) });
    });
  });
}

/** SIGTERM, then SIGKILL if the child is still there after a short grace. */
export function stopChild(child: ChildProcess, graceMs = 3_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Resident set size of a process in bytes, from /proc/<pid>/status (VmRSS). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'latin1');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match?.[1]) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
}

/** The q-quantile (0..1) of an ascending-sorted list, nearest rank. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** The median of a list in any order (the mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export const MiB = 1024 * 1024;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Seconds the process's threads have spent runnable but waiting for a CPU
 * (/proc/<pid>/task/<tid>/schedstat, second field, summed over the live threads:
 * a Go server works on threads other than its main one). On a shared machine
 * this is the noise: time another process held the core while our work was due.
 */
export function runQueueWaitSeconds(pid: number): number {
  let nanoseconds = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      nanoseconds += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'latin1').trim().split(' ')[1]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return nanoseconds / 1e9;
}

/** A positive integer knob from the environment (BENCH_*), or the default. */
export function envInt(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}, got ${raw}`);
  return value;
}

/** Clock ticks per second of /proc times; 100 on every Linux we run on. */
const CLOCK_TICKS = 100;

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] is field 3. */
function statFields(pid: number | 'self'): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** User and system CPU seconds (all threads) the process has used: /proc/<pid>/stat fields 14 and 15. */
export function userSystemSeconds(pid: number): [user: number, system: number] {
  const fields = statFields(pid);
  return [Number(fields[11]) / CLOCK_TICKS, Number(fields[12]) / CLOCK_TICKS];
}

/** CPU seconds (user + system, all threads) the process has used. */
export function cpuSeconds(pid: number): number {
  const [user, system] = userSystemSeconds(pid);
  return user + system;
}

/**
 * CPU seconds of this process plus its children that have exited and been
 * waited for (fields 14 to 17): a wrk run through execFileSync lands here in full.
 */
export function ownCpuSeconds(): number {
  const fields = statFields('self');
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) / CLOCK_TICKS;
}

/** Busy CPU seconds of the whole machine, all cores (/proc/stat: everything but idle and iowait). */
export function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0] ?? '';
  // cpu user nice system idle iowait irq softirq steal (guest time is inside user already).
  const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / CLOCK_TICKS;
}

/**
 * How much of the machine other processes took while we measured: call start()
 * before a run and share() after, with the pids of everything the benchmark
 * runs (its servers; the runner and its waited-for children such as wrk are
 * counted by ownCpuSeconds). The share is of all cores' capacity over the run.
 */
export class Quietness {
  #busy = 0;
  #ours = 0;
  #wall = 0;
  constructor(private readonly pids: () => readonly number[]) {}

  #oursNow(): number {
    return ownCpuSeconds() + this.pids().reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  }

  start(): void {
    this.#busy = machineBusySeconds();
    this.#ours = this.#oursNow();
    this.#wall = performance.now();
  }

  /** Others' CPU as a share (0..1) of the cores' capacity since start(). */
  share(): number {
    const seconds = (performance.now() - this.#wall) / 1000;
    const others = machineBusySeconds() - this.#busy - (this.#oursNow() - this.#ours);
    return Math.max(0, others) / (CORES * seconds);
  }
}

// A fixed CPU-bound loop (xorshift steps), timed inside its own process so node's start-up is left out.
const PROBE_SOURCE =
  'const t=process.hrtime.bigint();let x=-1640531527;for(let i=0;i<3e7;i++){x^=x<<13;x^=x>>>17;x^=x<<5}' +
  'console.log(Number(process.hrtime.bigint()-t)/1e6,x&1)';

/**
 * How long a fixed loop takes on `core` right now, in ms (about 60 on an idle
 * core of the machine in bench/README.md). On a virtual machine a core can
 * slow down without any process of ours taking CPU (the host's other guests):
 * the others' share cannot see that, this can.
 */
export function cpuProbeMs(core: number): number {
  const out = execFileSync('taskset', ['-c', String(core), process.execPath, '-e', PROBE_SOURCE], { encoding: 'utf8' });
  return Number(out.split(' ')[0]);
}

/** Cores this process may run on (the machine's, unless the runner itself is pinned). */
export const CORES = Number(execFileSync('nproc', { encoding: 'utf8' }).trim()) || 1;

/** A run in which other processes took more than this share of the machine measured them too. */
export const NOISY_SHARE = 0.1;

/** Peak resident set size since start or the last resetPeakRss (VmHWM). */
export function peakRssBytes(pid: number): number {
  const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
  if (!match?.[1]) throw new Error(`no VmHWM for pid ${pid}`);
  return Number(match[1]) * 1024;
}

/** Resets VmHWM to the current RSS (clear_refs 5, Linux ≥ 4.0); false when the kernel refuses. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Every thread of the process on `core`. */
export function pin(pid: number, core: number): void {
  execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
}

export function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

/** A loopback port that was free a moment ago (the supervisor's own pick). */
export async function freePort(): Promise<number> {
  return (await freeLoopbackPorts(1))[0] as number;
}

/** True once something accepts TCP connections on the loopback port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' }, () => socket.write('PING\r\n'));
    socket.setTimeout(500, () => socket.destroy());
    socket.once('data', (d: Buffer) => {
      socket.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(false));
  });
}

/** A process the benchmark started that is not one of our node servers. */
export interface Peer {
  readonly process: ChildProcess;
  readonly pid: number;
  readonly port: number;
  stop(): Promise<void>;
}

async function waitUntil(child: ChildProcess, name: string, ready: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const failed = new Promise<never>((_, reject) => child.once('error', (e) => reject(new Error(`${name}: ${e.message}`))));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await Promise.race([ready(), failed])) return;
    if (child.exitCode !== null) break;
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error(`${name} did not come up within ${timeoutMs} ms`);
}

/** A throw-away redis-server on a free loopback port: no snapshots, no append-only file. */
export async function startRedis(core?: number): Promise<Peer> {
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'];
  const child = spawnOn(core, 'redis-server', args);
  await waitUntil(child, 'redis-server (apt-get install redis-server)', () => pong(port));
  return { process: child, pid: child.pid as number, port, stop: () => stopChild(child) };
}

/**
 * The go-httpbin peer binary (/work/shared/peers/README.md): BENCH_GO_HTTPBIN,
 * else shared/peers/go-httpbin beside the repository (or beside the directory
 * that holds this worktree), else go-httpbin on PATH; undefined when none is there.
 */
export function goHttpbinPath(): string | undefined {
  const repo = path.resolve(DIST, '..');
  const candidates = [
    process.env.BENCH_GO_HTTPBIN,
    path.resolve(repo, '../shared/peers/go-httpbin'),
    path.resolve(repo, '../../shared/peers/go-httpbin'),
  ];
  const found = candidates.find((c): c is string => c !== undefined && c !== '' && existsSync(c));
  if (found) return found;
  try {
    return execFileSync('sh', ['-c', 'command -v go-httpbin'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** go-httpbin on a free loopback port (its per-request log to /dev/null), on `core` when given. */
export async function startGoHttpbin(binary: string, core?: number): Promise<Peer> {
  const port = await freePort();
  const child = spawnOn(core, binary, ['-host', '127.0.0.1', '-port', String(port), '-max-duration', '60s']);
  await waitUntil(child, 'go-httpbin', () => accepts(port));
  return { process: child, pid: child.pid as number, port, stop: () => stopChild(child) };
}

/** A Markdown table, columns padded: the first row is the header. */
/**
 * The environment of a chaos process as users run it (per-IP limiter on, in memory, never refusing; metrics on)
 * with the per-client caps off: every socket of a held-responses benchmark comes from the loopback.
 */
export async function heldChaosEnv(): Promise<Record<string, string>> {
  return {
    CHAOS_PORT: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_GENERAL: '1000000000',
    METRICS_PORT: String(await freePort()),
    MAX_CONNECTIONS_PER_IP: '0',
    MAX_HELD_PER_IP: '0',
  };
}

export function markdownTable(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const line = (r: readonly string[]): string => `| ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const [header, ...body] = rows;
  if (!header) return '';
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}
