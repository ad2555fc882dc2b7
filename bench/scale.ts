// Scale per replica (issue 31): what one chaos process on one core holds.
// 1. BENCH_SCALE_DRIPS (20,000) concurrent /drip streams of ten one-byte
//    chunks a second apart, every chunk judged against first byte + k × 1000 ms
//    by the C client (target: ≥ 99 % within 10 ms), and the process's memory per
//    1000 streams at peak (target: ≤ 10 MiB).
// 2. BENCH_SCALE_IDLE (50,000) idle keep-alive connections: each asks for
//    /status/200 once and then stays open, sending nothing; the process's RSS
//    per 1000 while all of them are held, and whether it kept them all.
// A size of 0 skips its part (as BENCH_SKIP=scale-chunks or scale-idle does).
// The server runs on core 0 under taskset, the C client on core 1; both need a
// descriptor per socket (run.sh raises the limit, or run it under
// `ulimit -n 60000`). Loopback has about 28,000 ephemeral ports per source
// address, so the client connects from 127.0.0.1 … 127.0.0.N in turn.
// Run: node dist/bench/scale.js after `make bench` has built the C client.
import { readFileSync } from 'node:fs';
import {
  cpuSeconds,
  envInt,
  forkServer,
  heldChaosEnv,
  loadAverage,
  MiB,
  NOISY_SHARE,
  peakRssBytes,
  Quietness,
  resetPeakRss,
  rssBytes,
  runQueueWaitSeconds,
  sleep,
} from './lib.js';
import { HELD_CLIENT_BINARY, heldClientFromEnv, runClient } from './streams.js';

const DRIPS = envInt('BENCH_SCALE_DRIPS', 20_000, 0);
const IDLE = envInt('BENCH_SCALE_IDLE', 50_000, 0);
const SERVER_CORE = envInt('BENCH_SERVER_CORE', 0, 0);
const CLIENT_CORE = envInt('BENCH_CLIENT_CORE', 1, 0);
const skip = process.env.BENCH_SKIP ?? '';

const DRIP_PATH = '/drip?bytes=10&chunk=1&interval=1000';
const CHUNKS_WITHIN_10MS_TARGET = 0.99;
const DRIP_MIB_PER_1000_TARGET = 10;
/**
 * Sockets per loopback source address. Linux's ephemeral range here (32768–60999) has about 28,000 ports, but
 * connect() tries the even half first and then walks ports already in use, and bind()'s search scans every port
 * held: past about 14,000 sockets from one address the client's own connect calls stalled for up to 2 s
 * (19,000 streams: ramp 14 s instead of 4.75, half the streams never overlapping). 2500 a source keeps each
 * address's range mostly free (held-client also binds with IP_BIND_ADDRESS_NO_PORT).
 */
const PORTS_PER_SOURCE = 2500;

function log(line: string): void {
  process.stderr.write(`bench scale: ${line}\n`);
}

const client = heldClientFromEnv();
if (client.kind !== 'c') throw new Error(`bench/scale.ts needs the C client (${HELD_CLIENT_BINARY}); make bench builds it`);

/** The server a part measures: chaos, or the node:net floor (bench/bare-drip.ts: the same stream on a bare socket, one timer each, chaos's node flags). */
type ScaleServer = 'chaos' | 'node:net floor';
const MODULES: Readonly<Record<ScaleServer, string>> = { chaos: 'services/chaos/main.js', 'node:net floor': 'bench/bare-drip.js' };

async function startServer(kind: ScaleServer = 'chaos'): Promise<Awaited<ReturnType<typeof forkServer>>> {
  return forkServer(
    MODULES[kind],
    // One process holds them all: its accept cap must be above the sizes asked.
    { ...(await heldChaosEnv()), MAX_CONNECTIONS: String(Math.max(DRIPS, IDLE) + 1000) },
    { core: SERVER_CORE },
  );
}

const sources = (sockets: number): number => Math.min(254, Math.ceil(sockets / PORTS_PER_SOURCE));

/** Sockets in TIME_WAIT machine-wide (/proc/net/sockstat and sockstat6, "tw"). */
function timeWaitSockets(): number {
  let count = 0;
  for (const file of ['/proc/net/sockstat', '/proc/net/sockstat6']) {
    const match = /TCP6?: .*\btw (\d+)/.exec(readFileSync(file, 'latin1'));
    if (match) count += Number(match[1]);
  }
  return count;
}

/**
 * A part starts once the last part's closed sockets have left TIME_WAIT (60 s at most): tens of thousands of them
 * slow the client's port search and with it the ramp, whichever server comes second.
 */
async function drainTimeWait(): Promise<void> {
  const deadline = performance.now() + 65_000;
  while (timeWaitSockets() > 1000 && performance.now() < deadline) await sleep(1000);
}

async function drips(out: string[], kind: ScaleServer): Promise<void> {
  await drainTimeWait();
  const server = await startServer(kind);
  try {
    // Warm the path (its code compiled) before the baseline is taken.
    await runClient({ port: server.port, streams: 200, path: DRIP_PATH.replace('interval=1000', 'interval=10'), rampMs: 200, timeoutMs: 15_000, connectPerRequest: true }, undefined, CLIENT_CORE, client);
    await sleep(300);
    const hwmReset = resetPeakRss(server.pid);
    const before = rssBytes(server.pid);
    const quiet = new Quietness(() => [server.pid]);
    quiet.start();
    const cpuBefore = cpuSeconds(server.pid);
    const waitBefore = runQueueWaitSeconds(server.pid);
    const startedAt = performance.now();
    log(`${kind}: ${DRIPS} × ${DRIP_PATH}`);
    const run = await runClient(
      {
        port: server.port,
        streams: DRIPS,
        path: DRIP_PATH,
        // 4000 new streams a second at most: the accept path's cost stays beside the timers it judges, not on top of them.
        rampMs: Math.max(1000, DRIPS / 4),
        timeoutMs: 30_000,
        connectPerRequest: true,
        chunk: { bytes: 1, intervalMs: 1000 },
        sources: sources(DRIPS),
      },
      undefined,
      CLIENT_CORE,
      client,
    );
    const others = quiet.share();
    const seconds = (performance.now() - startedAt) / 1000;
    const busy = (cpuSeconds(server.pid) - cpuBefore) / seconds;
    const waited = (runQueueWaitSeconds(server.pid) - waitBefore) / seconds;
    const perThousand = ((peakRssBytes(server.pid) - before) / MiB / Math.max(1, run.maxInFlight)) * 1000;
    const chunks = run.chunks;
    const within = chunks ? chunks.within10Ms / Math.max(1, chunks.count) : 0;
    out.push(
      `## ${DRIPS} concurrent ${DRIP_PATH} on one ${kind === 'chaos' ? 'chaos process' : 'node:net floor process (bench/bare-drip.ts)'}`,
      '',
      `- completed ${run.timings.length}, failed ${run.failed}${run.failed ? ` ${JSON.stringify(run.failures)}` : ''}; most streaming at once ${run.maxInFlight}`,
      chunks
        ? `- chunks: ${chunks.count}, ${(within * 100).toFixed(2)} % within 10 ms of first byte + k × 1000 ms; lateness p50 ${chunks.p50Ms.toFixed(2)} / p99 ${chunks.p99Ms.toFixed(2)} / max ${chunks.maxMs.toFixed(2)} ms`
        : '- chunks: not measured',
      `- RSS ${(before / MiB).toFixed(1)} MiB idle → ${(peakRssBytes(server.pid) / MiB).toFixed(1)} MiB peak (VmHWM${hwmReset ? '' : ', not reset'}): ${perThousand.toFixed(2)} MiB per 1000 streaming`,
      `- the server's core: busy ${(busy * 100).toFixed(0)} % of the run (${seconds.toFixed(1)} s), ${(((cpuSeconds(server.pid) - cpuBefore) * 1e6) / Math.max(1, chunks?.count ?? 0)).toFixed(1)} µs of its CPU per chunk; waiting for a CPU ${(waited * 100).toFixed(0)} % of the run`,
      `- client loop delay p99 ${run.clientLoopDelayP99Ms.toFixed(2)} / max ${run.clientLoopDelayMaxMs.toFixed(2)} ms; others took ${(others * 100).toFixed(0)} % of the machine${others > NOISY_SHARE ? ' (noisy)' : ''}`,
      `- ≥ ${CHUNKS_WITHIN_10MS_TARGET * 100} % of chunks within 10 ms: ${within >= CHUNKS_WITHIN_10MS_TARGET && run.failed === 0 ? 'met' : 'NOT MET'}; ≤ ${DRIP_MIB_PER_1000_TARGET} MiB per 1000: ${perThousand <= DRIP_MIB_PER_1000_TARGET ? 'met' : 'NOT MET'}`,
      '',
    );
  } finally {
    await server.stop();
  }
}

async function idle(out: string[]): Promise<void> {
  await drainTimeWait();
  const server = await startServer();
  try {
    await runClient({ port: server.port, streams: 200, path: '/status/200', rampMs: 200, timeoutMs: 15_000, connectPerRequest: true }, undefined, CLIENT_CORE, client);
    await sleep(300);
    const before = rssBytes(server.pid);
    let held = before;
    log(`${IDLE} idle keep-alive connections`);
    const run = await runClient(
      // Connected over 10 s: the first ones are then idle for about 12 s, well inside chaos's 30 s keep-alive.
      { port: server.port, streams: IDLE, path: '/status/200', rampMs: 10_000, timeoutMs: 30_000, connectPerRequest: true, sources: sources(IDLE), keepOpen: true },
      undefined,
      CLIENT_CORE,
      client,
      async () => {
        await sleep(1000);
        held = rssBytes(server.pid);
      },
    );
    const kept = run.kept;
    const perThousand = ((held - before) / MiB / Math.max(1, kept?.open ?? 0)) * 1000;
    out.push(
      `## ${IDLE} idle keep-alive connections on one chaos process`,
      '',
      `- answered ${run.timings.length}, failed ${run.failed}${run.failed ? ` ${JSON.stringify(run.failures)}` : ''}; still open when let go ${kept?.open ?? '?'}, closed by the server ${kept?.closedByServer ?? '?'}`,
      `- RSS ${(before / MiB).toFixed(1)} MiB → ${(held / MiB).toFixed(1)} MiB with all of them held: ${perThousand.toFixed(2)} MiB per 1000`,
      '',
    );
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const out: string[] = [
    '',
    `Scale per replica: chaos under taskset -c ${SERVER_CORE} (per-client caps off, MAX_CONNECTIONS above the sizes), the C client on core ${CLIENT_CORE}.`,
    '',
  ];
  if (DRIPS > 0 && !skip.includes('scale-chunks')) {
    await drips(out, 'chaos');
    // The same streams on a bare socket with one timer each: what this core can do at this size at all.
    if (!skip.includes('scale-floor')) await drips(out, 'node:net floor');
  }
  if (IDLE > 0 && !skip.includes('scale-idle')) await idle(out);
  out.push(`load average (1/5/15 min) at the end: ${loadAverage()}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
