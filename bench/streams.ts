// Many held responses at once, against one server process: its memory per
// held response (sampled VmRSS and the kernel's own peak, VmHWM) and whether
// each response kept its schedule. Two shapes: a stream (/drip: timed from its
// first byte to its last) and a delayed response (/slow, /delay: timed from
// the request to the first byte). The client is its own process, on a core of
// its own when asked, so its work lands neither in the server's RSS nor in its
// event loop: bench/held-client.c (C, epoll; its timestamps are late by
// microseconds) when it is built, else bench/drip-client.ts (node; late by its
// event-loop delay, which at thousands of streams is above the bounds judged).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { ChunkLateness, DripClientOptions, DripClientPhase, DripClientResult, StreamTiming } from './drip-client.js';
import { DIST, forkNode, peakRssBytes, Quietness, quantile, resetPeakRss, rssBytes, runQueueWaitSeconds, sleep, spawnOn, stopChild } from './lib.js';

/** Which client measures: node (bench/drip-client.ts) or C (bench/held-client.c compiled to `binary`). */
export type HeldClient = { readonly kind: 'node' } | { readonly kind: 'c'; readonly binary: string };

/** Where `make bench` compiles bench/held-client.c. */
export const HELD_CLIENT_BINARY = path.join(DIST, 'bench/held-client');
/** The compiler flags of that build (the Makefile's rule uses the same). */
export const HELD_CLIENT_CFLAGS = ['-O2', '-Wall', '-Wextra', '-std=c11', '-D_GNU_SOURCE'];

/**
 * BENCH_HELD_CLIENT=c|node; by default the C client when it is built, else node.
 * Asking for c when it is not built is an error, not a silent fallback.
 */
export function heldClientFromEnv(): HeldClient {
  const asked = process.env.BENCH_HELD_CLIENT || undefined;
  if (asked !== undefined && asked !== 'c' && asked !== 'node') throw new Error(`BENCH_HELD_CLIENT must be c or node, got ${asked}`);
  const built = existsSync(HELD_CLIENT_BINARY);
  if (asked === 'c' && !built) throw new Error(`BENCH_HELD_CLIENT=c but ${HELD_CLIENT_BINARY} is not built (make bench compiles it)`);
  return asked === 'node' || !built ? { kind: 'node' } : { kind: 'c', binary: HELD_CLIENT_BINARY };
}

export interface HeldOptions {
  readonly streams: number;
  /** Path and query of each request. */
  readonly path: string;
  /** A short request of the same kind, sent first so its code is loaded and compiled before the baseline. */
  readonly warmPath: string;
  /**
   * How many warm-up requests, sent over `rampMs` (default: 50 over 50 ms). A burst of the
   * benchmark's own size runs the accept path as often as the burst will, so
   * V8 has compiled it before the burst rather than during it.
   */
  readonly warmStreams?: number;
  /** span: first response byte to last (a stream); firstByte: request written to first response byte (a delayed response). */
  readonly timing: 'span' | 'firstByte';
  /** What the timed interval should be, in ms. */
  readonly scheduledMs: number;
  /** Requests go out evenly over this long, once every socket is connected. */
  readonly rampMs: number;
  /** The core the client runs on (taskset), if any. */
  readonly clientCore?: number;
  /** Host header, when the server routes on it. */
  readonly host?: string;
  /** Each socket connects when its request is due (see bench/drip-client.ts); else all connect first. */
  readonly connectPerRequest?: boolean;
  /** The client that measures (default node). */
  readonly client?: HeldClient;
  /** Judge every chunk of the body too (the C client only): `bytes` every `intervalMs`. */
  readonly chunk?: { readonly bytes: number; readonly intervalMs: number };
}

/** The server under test: a process and the loopback port it listens on. */
export interface HeldServer {
  readonly pid: number;
  readonly port: number;
}

export interface HeldResult {
  readonly options: HeldOptions;
  readonly completed: number;
  readonly failed: number;
  readonly failures: Record<string, number>;
  /** Most responses held at once (request written, last byte not yet read). */
  readonly maxHeld: number;
  readonly rssBeforeBytes: number;
  /** Every socket connected, no request sent yet (NaN when each connects as its request is due). */
  readonly rssConnectedBytes: number;
  /** Highest VmRSS sampled every 20 ms. */
  readonly rssPeakSampledBytes: number;
  /** VmHWM at the end: the kernel's peak, reset after the warm-up when it allows (hwmReset). */
  readonly rssPeakBytes: number;
  readonly hwmReset: boolean;
  /** (peak − before) scaled to 1000 held responses, the peak being VmHWM. */
  readonly rssPer1000Bytes: number;
  /** Completed responses whose timed interval is within 1 % of the schedule, over all requested. */
  readonly onTimeFraction: number;
  /** Timed interval minus the schedule; negative is early. */
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
  /** CPU other processes took during the run, as a share of every core's capacity. */
  readonly othersShare: number;
  /** With `chunk`: each chunk's arrival against its schedule. */
  readonly chunks?: ChunkLateness;
}

const RSS_SAMPLE_MS = 20;

/** Most intervals [request written, last byte] open at once. */
function mostAtOnce(timings: readonly StreamTiming[]): number {
  const edges: [number, number][] = [];
  for (const t of timings) {
    const sent = t.firstAtMs - t.firstByteMs;
    edges.push([sent, 1], [t.firstAtMs + t.spanMs, -1]);
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, step] of edges) {
    open += step;
    most = Math.max(most, open);
  }
  return most;
}

export async function measureHeld(server: HeldServer, options: HeldOptions): Promise<HeldResult> {
  const client = (streams: number, requestPath: string, rampMs: number, timeoutMs: number, onPhase?: (phase: DripClientPhase) => void): Promise<ClientRun> =>
    runClient(
      { port: server.port, host: options.host, streams, path: requestPath, rampMs, timeoutMs, connectPerRequest: options.connectPerRequest, chunk: requestPath === options.path ? options.chunk : undefined },
      onPhase,
      options.clientCore,
      options.client,
    );
  // By default 50 requests over 50 ms; a warm-up of its own size goes out over the benchmark's ramp.
  if (options.warmStreams === undefined) await client(50, options.warmPath, 50, 15_000);
  else await client(options.warmStreams, options.warmPath, options.rampMs, 15_000);
  await sleep(300);
  const hwmReset = resetPeakRss(server.pid);
  const rssBeforeBytes = rssBytes(server.pid);
  let rssPeakSampledBytes = rssBeforeBytes;
  let rssConnectedBytes = Number.NaN;
  const quiet = new Quietness(() => [server.pid]);
  quiet.start();
  const waitBefore = runQueueWaitSeconds(server.pid);
  const startedAt = performance.now();
  const sampler = setInterval(() => {
    rssPeakSampledBytes = Math.max(rssPeakSampledBytes, rssBytes(server.pid));
  }, RSS_SAMPLE_MS);
  const run = await client(options.streams, options.path, options.rampMs, options.scheduledMs + 15_000, (phase) => {
    if (phase.phase === 'connected') rssConnectedBytes = rssBytes(server.pid);
  }).finally(() => clearInterval(sampler));
  const seconds = (performance.now() - startedAt) / 1000;
  const othersShare = quiet.share();
  const serverRunQueueShare = (runQueueWaitSeconds(server.pid) - waitBefore) / seconds;
  const rssPeakBytes = peakRssBytes(server.pid);

  const timed = (t: StreamTiming): number => (options.timing === 'span' ? t.spanMs : t.firstByteMs);
  const lateness = run.timings.map((t) => timed(t) - options.scheduledMs).sort((a, b) => a - b);
  const firstByte = run.timings.map((t) => t.firstByteMs).sort((a, b) => a - b);
  const tolerance = options.scheduledMs * 0.01;
  const onTime = lateness.filter((l) => Math.abs(l) <= tolerance).length;
  const maxHeld = mostAtOnce(run.timings);
  return {
    options,
    completed: run.timings.length,
    failed: run.failed,
    failures: run.failures,
    maxHeld,
    rssBeforeBytes,
    rssConnectedBytes,
    rssPeakSampledBytes,
    rssPeakBytes,
    hwmReset,
    rssPer1000Bytes: maxHeld > 0 ? ((rssPeakBytes - rssBeforeBytes) * 1000) / maxHeld : Number.NaN,
    onTimeFraction: onTime / options.streams,
    latenessP01Ms: quantile(lateness, 0.01),
    latenessP50Ms: quantile(lateness, 0.5),
    latenessP99Ms: quantile(lateness, 0.99),
    latenessMaxMs: lateness[lateness.length - 1] ?? Number.NaN,
    firstByteP50Ms: quantile(firstByte, 0.5),
    firstByteP99Ms: quantile(firstByte, 0.99),
    clientLoopDelayP99Ms: run.clientLoopDelayP99Ms,
    clientLoopDelayMaxMs: run.clientLoopDelayMaxMs,
    connectMs: run.connectMs,
    rampActualMs: run.rampActualMs,
    serverRunQueueShare,
    clientRunQueueShare: run.runQueueSeconds / seconds,
    othersShare,
    ...(run.chunks ? { chunks: run.chunks } : {}),
  };
}

/** With keepOpen: how many kept sockets were still open when the client was let go, and how many the server had closed. */
export interface KeptSockets {
  readonly open: number;
  readonly closedByServer: number;
}

/** The client's result, plus its own run-queue wait read just before it exits. */
export type ClientRun = DripClientResult & { readonly runQueueSeconds: number; readonly kept?: KeptSockets };

/**
 * The streams client in its own process (on `core` when given), until it reports its result.
 * `whileKept` runs after the result and before the client is let go: with keepOpen, the
 * moment its sockets are all open and idle (the C client only).
 */
export function runClient(
  options: DripClientOptions,
  onPhase: (phase: DripClientPhase) => void = () => {},
  core?: number,
  client: HeldClient = { kind: 'node' },
  whileKept?: () => Promise<void>,
): Promise<ClientRun> {
  return client.kind === 'c' ? runCClient(client.binary, options, onPhase, core, whileKept) : runNodeClient(options, onPhase, core);
}

function runNodeClient(options: DripClientOptions, onPhase: (phase: DripClientPhase) => void, core: number | undefined): Promise<ClientRun> {
  if (options.chunk || options.sources || options.keepOpen) throw new Error('chunk, sources and keepOpen need the C client (make bench builds it)');
  const child = forkNode(path.join(DIST, 'bench/drip-client.js'), [JSON.stringify(options)], {}, core);
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

/** held-client's options (see the top of bench/held-client.c). */
export function heldClientArgs(options: DripClientOptions): string[] {
  return [
    '--port', String(options.port),
    ...(options.host === undefined ? [] : ['--host', options.host]),
    '--streams', String(options.streams),
    '--path', options.path,
    '--ramp-ms', String(Math.round(options.rampMs)),
    '--timeout-ms', String(Math.round(options.timeoutMs)),
    ...(options.connectPerRequest ? ['--connect-per-request'] : []),
    ...(options.chunk ? ['--chunk-bytes', String(options.chunk.bytes), '--interval-ms', String(options.chunk.intervalMs)] : []),
    ...(options.sources ? ['--sources', String(options.sources)] : []),
    ...(options.keepOpen ? ['--keep-open'] : []),
  ];
}

/**
 * The C client: one JSON message a line on its stdout, the same messages as the
 * node client's. It stays after its result until its stdin closes
 * (--wait-stdin-eof), so its run-queue wait is read while /proc still has it.
 */
function runCClient(
  binary: string,
  options: DripClientOptions,
  onPhase: (phase: DripClientPhase) => void,
  core: number | undefined,
  whileKept: (() => Promise<void>) | undefined,
): Promise<ClientRun> {
  const child = spawnOn(core, binary, [...heldClientArgs(options), '--wait-stdin-eof'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const pid = child.pid;
  const waitBefore = pid === undefined ? 0 : runQueueWaitSeconds(pid);
  return new Promise<ClientRun>((resolve, reject) => {
    let result: ClientRun | undefined;
    let kept: KeptSockets | undefined;
    child.once('error', reject);
    if (!child.stdout || !child.stdin) throw new Error('held-client: no stdio pipes');
    const stdin = child.stdin;
    createInterface({ input: child.stdout }).on('line', (line) => {
      let message: DripClientPhase | DripClientResult | (KeptSockets & { readonly type: 'kept' });
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        reject(new Error(`held-client: not a JSON line: ${line.slice(0, 200)}`));
        return;
      }
      if (message.type === 'phase') {
        onPhase(message);
      } else if (message.type === 'kept') {
        kept = { open: message.open, closedByServer: message.closedByServer };
      } else {
        result = { ...message, runQueueSeconds: pid === undefined ? 0 : runQueueWaitSeconds(pid) - waitBefore };
        const release = (): void => void stdin.end();
        if (whileKept) whileKept().then(release, (error: unknown) => (release(), reject(error)));
        else release();
      }
    });
    // 'close', not 'exit': every line of its stdout has been read by then.
    child.once('close', (code) => {
      if (result) resolve(kept ? { ...result, kept } : result);
      else reject(new Error(`held-client exited (${code ?? 'signal'}) without a result`));
    });
  }).finally(() => (pid === undefined ? undefined : stopChild(child)));
}
