// wrk (Debian's package) as the load generator: a C event loop that needs a
// fraction of the CPU a node client does, so it is the server that saturates.
// It runs pinned to a core of its own (taskset), one thread, and we read its
// text report: requests, req/s, the latency distribution, errors.
import { execFile, execFileSync } from 'node:child_process';

export interface WrkOptions {
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
  /** The core wrk runs on (taskset -c). */
  readonly core: number;
  /** A Host header (the front door routes on it). */
  readonly host?: string;
  /** Further header lines (`Name: value`), e.g. the X-Forwarded-For a proxy adds. */
  readonly headers?: readonly string[];
}

export interface WrkResult {
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Connect, read, write and timeout errors. */
  readonly socketErrors: number;
  readonly non2xx: number;
  /** Wall time of the run as wrk measured it. */
  readonly seconds: number;
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function latencyMs(text: string, percent: string): number {
  const match = new RegExp(`^\\s*${percent}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(text);
  return match ? Number(match[1]) * (UNIT_MS[match[2] as string] ?? Number.NaN) : Number.NaN;
}

/** Reads wrk's text report (run with --latency). */
export function parseWrk(text: string): WrkResult {
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m)/.exec(text);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  return {
    requests: Number(total?.[1] ?? Number.NaN),
    seconds: total ? (Number(total[2]) * (UNIT_MS[total[3] as string] ?? Number.NaN)) / 1000 : Number.NaN,
    requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? Number.NaN),
    p50Ms: latencyMs(text, '50'),
    p99Ms: latencyMs(text, '99'),
    socketErrors: socket ? socket.slice(1).reduce((n, v) => n + Number(v), 0) : 0,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0),
  };
}

function wrkArgs(options: WrkOptions): string[] {
  const args = ['-c', String(options.core), 'wrk', '-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--latency'];
  if (options.host) args.push('-H', `Host: ${options.host}`);
  for (const line of options.headers ?? []) args.push('-H', line);
  args.push(options.url);
  return args;
}

/** One wrk run, blocking: `taskset -c <core> wrk -t1 -c<connections> -d<seconds>s --latency <url>`. */
export function wrk(options: WrkOptions): WrkResult {
  return parseWrk(execFileSync('taskset', wrkArgs(options), { encoding: 'utf8' }));
}

/** The same run without blocking, so that two can run at once (bench/paired.ts). */
export function wrkAsync(options: WrkOptions): Promise<WrkResult> {
  return new Promise((resolve, reject) => {
    execFile('taskset', wrkArgs(options), { encoding: 'utf8' }, (error, stdout) => (error ? reject(error) : resolve(parseWrk(stdout))));
  });
}
