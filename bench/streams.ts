// Many slow streams held open at once: the chaos host's memory per stream and
// whether each stream still ends on its schedule. The server and the client
// are separate processes; the server's RSS is sampled from /proc while the
// client (bench/drip-client.ts) holds the streams.
import { fork } from 'node:child_process';
import path from 'node:path';
import type { DripClientOptions, DripClientPhase, DripClientResult } from './drip-client.js';
import { DIST, forkServer, quantile, rssBytes, runQueueWaitSeconds, sleep, stopChild } from './lib.js';

export interface StreamsOptions {
  readonly streams: number;
  readonly bytes: number;
  readonly chunk: number;
  readonly intervalMs: number;
  readonly rampMs: number;
}

export interface StreamsResult {
  readonly options: StreamsOptions;
  readonly scheduledMs: number;
  readonly completed: number;
  readonly failed: number;
  readonly failures: Record<string, number>;
  readonly maxInFlight: number;
  readonly rssBeforeBytes: number;
  /** Every socket connected, no request sent yet. */
  readonly rssConnectedBytes: number;
  readonly rssPeakBytes: number;
  /** (peak − before) scaled to 1000 streams in flight. */
  readonly rssPer1000Bytes: number;
  /** Completed streams whose first-to-last-byte span is within 1 % of the schedule. */
  readonly onTimeFraction: number;
  /** Negative lateness is an early finish: the first byte was seen late (usually the client stalled). */
  readonly latenessP01Ms: number;
  readonly latenessP50Ms: number;
  readonly latenessP99Ms: number;
  readonly latenessMaxMs: number;
  readonly firstByteP50Ms: number;
  readonly firstByteP99Ms: number;
  readonly clientLoopDelayP99Ms: number;
  readonly clientLoopDelayMaxMs: number;
  readonly connectMs: number;
  readonly rampActualMs: number;
  /** Share of the run the server's main thread waited for a CPU (another process had it). */
  readonly serverRunQueueShare: number;
  readonly clientRunQueueShare: number;
}

const RSS_SAMPLE_MS = 20;

export async function runStreams(chaosMain: string, options: StreamsOptions): Promise<StreamsResult> {
  const chunks = Math.ceil(options.bytes / options.chunk);
  // The first chunk goes out with the head; the last one (chunks − 1) intervals later.
  const scheduledMs = (chunks - 1) * options.intervalMs;
  const server = await forkServer(chaosMain, { CHAOS_PORT: '0', LOG_LEVEL: 'warn', RATE_LIMIT_GENERAL: '1000000000' });
  try {
    const query = `/drip?bytes=${options.bytes}&chunk=${options.chunk}&interval=${options.intervalMs}`;
    // A few streams first, so the drip code path is loaded and compiled before the baseline.
    await runClient({ port: server.port, streams: 50, path: query.replace(/interval=\d+/, 'interval=10'), rampMs: 50, timeoutMs: 5_000 });
    await sleep(300);
    const rssBeforeBytes = rssBytes(server.pid);
    let rssPeakBytes = rssBeforeBytes;
    let rssConnectedBytes = Number.NaN;
    const waitBefore = runQueueWaitSeconds(server.pid);
    const startedAt = performance.now();
    const sampler = setInterval(() => {
      rssPeakBytes = Math.max(rssPeakBytes, rssBytes(server.pid));
    }, RSS_SAMPLE_MS);
    const client = await runClient(
      { port: server.port, streams: options.streams, path: query, rampMs: options.rampMs, timeoutMs: scheduledMs + 15_000 },
      (phase) => {
        if (phase.phase === 'connected') rssConnectedBytes = rssBytes(server.pid);
      },
    ).finally(() => clearInterval(sampler));
    const seconds = (performance.now() - startedAt) / 1000;
    const serverRunQueueShare = (runQueueWaitSeconds(server.pid) - waitBefore) / seconds;

    const lateness = client.timings.map((t) => t.spanMs - scheduledMs).sort((a, b) => a - b);
    const firstByte = client.timings.map((t) => t.firstByteMs).sort((a, b) => a - b);
    const tolerance = scheduledMs * 0.01;
    const onTime = lateness.filter((l) => Math.abs(l) <= tolerance).length;
    return {
      options,
      scheduledMs,
      completed: client.timings.length,
      failed: client.failed,
      failures: client.failures,
      maxInFlight: client.maxInFlight,
      rssBeforeBytes,
      rssConnectedBytes,
      rssPeakBytes,
      rssPer1000Bytes: client.maxInFlight > 0 ? ((rssPeakBytes - rssBeforeBytes) * 1000) / client.maxInFlight : Number.NaN,
      onTimeFraction: lateness.length > 0 ? onTime / options.streams : 0,
      latenessP01Ms: quantile(lateness, 0.01),
      latenessP50Ms: quantile(lateness, 0.5),
      latenessP99Ms: quantile(lateness, 0.99),
      latenessMaxMs: lateness[lateness.length - 1] ?? Number.NaN,
      firstByteP50Ms: quantile(firstByte, 0.5),
      firstByteP99Ms: quantile(firstByte, 0.99),
      clientLoopDelayP99Ms: client.clientLoopDelayP99Ms,
      clientLoopDelayMaxMs: client.clientLoopDelayMaxMs,
      connectMs: client.connectMs,
      rampActualMs: client.rampActualMs,
      serverRunQueueShare,
      clientRunQueueShare: client.runQueueSeconds / seconds,
    };
  } finally {
    await server.stop();
  }
}

/** The client's result, plus its own run-queue wait read just before it exits. */
export type ClientRun = DripClientResult & { readonly runQueueSeconds: number };

export function runClient(options: DripClientOptions, onPhase: (phase: DripClientPhase) => void = () => {}): Promise<ClientRun> {
  const child = fork(path.join(DIST, 'bench/drip-client.js'), [JSON.stringify(options)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pid = child.pid;
  const waitBefore = pid === undefined ? 0 : runQueueWaitSeconds(pid);
  return new Promise((resolve, reject) => {
    let result: ClientRun | undefined;
    child.on('message', (message: DripClientPhase | DripClientResult) => {
      if (message.type === 'phase') onPhase(message);
      else result = { ...message, runQueueSeconds: pid === undefined ? 0 : runQueueWaitSeconds(pid) - waitBefore };
    });
    child.once('exit', (code) => {
      if (result) resolve(result);
      else reject(new Error(`drip client exited (${code ?? 'signal'}) without a result`));
    });
  }).finally(() => stopChild(child)) as Promise<ClientRun>;
}
