// Throughput, side by side: the chaos host against the minimal node:net
// responder, same client, same loopback, same run. Besides requests per
// second (which a busy shared machine or a saturated client can flatten) we
// count each server's own CPU time from /proc, so "server CPU per request" is
// comparable even when the client is the bottleneck.
import autocannon from 'autocannon';
import { cpuSeconds, runQueueWaitSeconds } from './lib.js';

export interface Target {
  readonly name: string;
  readonly pid: number;
  readonly url: string;
}

export interface ThroughputSample {
  readonly target: string;
  readonly requestsPerSecond: number;
  readonly requests: number;
  /** Microseconds of server CPU (user + system, all threads) per request. */
  readonly serverCpuMicrosPerRequest: number;
  /** Share of one core the server used during the run. */
  readonly serverCpuShare: number;
  /** Share of the run the server's main thread waited for a CPU held by another process. */
  readonly serverRunQueueShare: number;
  readonly errors: number;
  readonly non2xx: number;
}

export interface LoadOptions {
  readonly connections: number;
  readonly durationSeconds: number;
  readonly pipelining: number;
}

export async function measure(target: Target, load: LoadOptions): Promise<ThroughputSample> {
  const cpuBefore = cpuSeconds(target.pid);
  const waitBefore = runQueueWaitSeconds(target.pid);
  const wallBefore = performance.now();
  const result = await autocannon({
    url: target.url,
    connections: load.connections,
    duration: load.durationSeconds,
    pipelining: load.pipelining,
  });
  const wall = (performance.now() - wallBefore) / 1000;
  const cpu = cpuSeconds(target.pid) - cpuBefore;
  const wait = runQueueWaitSeconds(target.pid) - waitBefore;
  const requests = result.requests.total;
  return {
    target: target.name,
    requestsPerSecond: requests / result.duration,
    requests,
    serverCpuMicrosPerRequest: requests > 0 ? (cpu * 1e6) / requests : Number.NaN,
    serverCpuShare: cpu / wall,
    serverRunQueueShare: wait / wall,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

/** A short unrecorded run so every server is past JIT warm-up before it is measured. */
export async function warmUp(target: Target, load: LoadOptions, seconds: number): Promise<void> {
  await autocannon({ url: target.url, connections: load.connections, duration: seconds, pipelining: load.pipelining });
}
