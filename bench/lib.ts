// Shared pieces of the benchmarks: child servers, RSS, and percentiles.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
 * Forks a server module (dist-relative, or absolute) and waits for its ready message, which
 * carries the port it bound (shared/run.ts sends it; so does the minimal responder).
 */
export function forkServer(module: string, env: Record<string, string> = {}, timeoutMs = 10_000): Promise<Child> {
  const child = fork(path.resolve(DIST, module), [], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
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

export const MiB = 1024 * 1024;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Seconds the process's main thread has spent runnable but waiting for a CPU
 * (/proc/<pid>/schedstat, second field). On a shared machine this is the
 * noise: time another process held the core while our timers were due.
 */
export function runQueueWaitSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/schedstat`, 'latin1').trim().split(' ');
  return Number(fields[1]) / 1e9;
}

/** A positive integer knob from the environment (BENCH_*), or the default. */
export function envInt(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}, got ${raw}`);
  return value;
}

/** CPU seconds (user + system) the process has used: /proc/<pid>/stat fields 14 and 15, in clock ticks of 1/100 s. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
