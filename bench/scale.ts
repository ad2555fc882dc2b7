// Scale per replica (issue 31): what one chaos process on one core holds.
// 1. BENCH_SCALE_DRIPS (20,000) concurrent /drip streams of ten one-byte
//    chunks a second apart, every chunk judged against first byte + k × 1000 ms
//    by the C client (target: ≥ 99 % within 10 ms), and the process's memory per
//    1000 streams at peak (target: ≤ 10 MiB).
// 2. BENCH_SCALE_IDLE (50,000) idle keep-alive connections: each asks for
//    /status/200 once and then stays open, sending nothing; the process's RSS
//    per 1000 while all of them are held, and whether it kept them all.
// The server runs on core 0 under taskset, the C client on core 1; both need a
// descriptor per socket (run.sh raises the limit, or run it under
// `ulimit -n 60000`). Loopback has about 28,000 ephemeral ports per source
// address, so the client connects from 127.0.0.1 … 127.0.0.N in turn.
// Run: node dist/bench/scale.js after `make bench` has built the C client.
import {
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
  sleep,
} from './lib.js';
import { HELD_CLIENT_BINARY, heldClientFromEnv, runClient } from './streams.js';

const DRIPS = envInt('BENCH_SCALE_DRIPS', 20_000);
const IDLE = envInt('BENCH_SCALE_IDLE', 50_000);
const SERVER_CORE = envInt('BENCH_SERVER_CORE', 0, 0);
const CLIENT_CORE = envInt('BENCH_CLIENT_CORE', 1, 0);
const skip = process.env.BENCH_SKIP ?? '';

const DRIP_PATH = '/drip?bytes=10&chunk=1&interval=1000';
const CHUNKS_WITHIN_10MS_TARGET = 0.99;
const DRIP_MIB_PER_1000_TARGET = 10;
/** Ephemeral ports one loopback source address offers (net.ipv4.ip_local_port_range 32768–60999), with room to spare. */
const PORTS_PER_SOURCE = 25_000;

function log(line: string): void {
  process.stderr.write(`bench scale: ${line}\n`);
}

const client = heldClientFromEnv();
if (client.kind !== 'c') throw new Error(`bench/scale.ts needs the C client (${HELD_CLIENT_BINARY}); make bench builds it`);

async function chaos(): Promise<Awaited<ReturnType<typeof forkServer>>> {
  return forkServer(
    'services/chaos/main.js',
    // One process holds them all: its accept cap must be above the sizes asked.
    { ...(await heldChaosEnv()), MAX_CONNECTIONS: String(Math.max(DRIPS, IDLE) + 1000) },
    { core: SERVER_CORE },
  );
}

const sources = (sockets: number): number => Math.min(254, Math.ceil(sockets / PORTS_PER_SOURCE));

async function drips(out: string[]): Promise<void> {
  const server = await chaos();
  try {
    // Warm the path (its code compiled) before the baseline is taken.
    await runClient({ port: server.port, streams: 200, path: DRIP_PATH.replace('interval=1000', 'interval=10'), rampMs: 200, timeoutMs: 15_000, connectPerRequest: true }, undefined, CLIENT_CORE, client);
    await sleep(300);
    const hwmReset = resetPeakRss(server.pid);
    const before = rssBytes(server.pid);
    const quiet = new Quietness(() => [server.pid]);
    quiet.start();
    log(`${DRIPS} × ${DRIP_PATH}`);
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
    const perThousand = ((peakRssBytes(server.pid) - before) / MiB / Math.max(1, run.maxInFlight)) * 1000;
    const chunks = run.chunks;
    const within = chunks ? chunks.within10Ms / Math.max(1, chunks.count) : 0;
    out.push(
      `## ${DRIPS} concurrent ${DRIP_PATH} on one chaos process`,
      '',
      `- completed ${run.timings.length}, failed ${run.failed}${run.failed ? ` ${JSON.stringify(run.failures)}` : ''}; most streaming at once ${run.maxInFlight}`,
      chunks
        ? `- chunks: ${chunks.count}, ${(within * 100).toFixed(2)} % within 10 ms of first byte + k × 1000 ms; lateness p50 ${chunks.p50Ms.toFixed(2)} / p99 ${chunks.p99Ms.toFixed(2)} / max ${chunks.maxMs.toFixed(2)} ms`
        : '- chunks: not measured',
      `- RSS ${(before / MiB).toFixed(1)} MiB idle → ${(peakRssBytes(server.pid) / MiB).toFixed(1)} MiB peak (VmHWM${hwmReset ? '' : ', not reset'}): ${perThousand.toFixed(2)} MiB per 1000 streaming`,
      `- client loop delay p99 ${run.clientLoopDelayP99Ms.toFixed(2)} / max ${run.clientLoopDelayMaxMs.toFixed(2)} ms; others took ${(others * 100).toFixed(0)} % of the machine${others > NOISY_SHARE ? ' (noisy)' : ''}`,
      `- ≥ ${CHUNKS_WITHIN_10MS_TARGET * 100} % of chunks within 10 ms: ${within >= CHUNKS_WITHIN_10MS_TARGET && run.failed === 0 ? 'met' : 'NOT MET'}; ≤ ${DRIP_MIB_PER_1000_TARGET} MiB per 1000: ${perThousand <= DRIP_MIB_PER_1000_TARGET ? 'met' : 'NOT MET'}`,
      '',
    );
  } finally {
    await server.stop();
  }
}

async function idle(out: string[]): Promise<void> {
  const server = await chaos();
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
  if (!skip.includes('scale-chunks')) await drips(out);
  if (!skip.includes('scale-idle')) await idle(out);
  out.push(`load average (1/5/15 min) at the end: ${loadAverage()}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
