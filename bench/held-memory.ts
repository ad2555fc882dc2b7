// Memory per held response (issue 31): what one chaos process holds for each
// slow /drip stream and each idle keep-alive connection, beside a bare
// node:net server holding the same sockets the same way (bench/bare-drip.ts:
// the floor nothing of ours can go below) and, with BENCH_BEFORE_DIST, another
// build's chaos in the same rounds. Each measurement is a fresh server on core
// 0 and the C client on core 1; servers take turns within a round, and the
// order rotates between rounds, so a busy minute falls on each alike.
// - drips: BENCH_MEMORY_DRIPS (3000) × /drip?bytes=10&chunk=1&interval=1000 over 1 s, as held.ts's slow
//   drips; per 1000 = (VmHWM − idle RSS) ÷ most held at once × 1000, as held.ts computes it.
// - idle: BENCH_MEMORY_IDLE (3000) connections that ask for /status/200 once and stay open, sending
//   nothing; per 1000 = (RSS with all of them open − idle RSS) ÷ open × 1000, as scale.ts computes it.
// - BENCH_SKIP=floor,idle,drips leaves those out; BENCH_ROUNDS=0 only takes the snapshots.
// - BENCH_MEMORY_SNAPSHOT=1 adds, per server, a heap snapshot (--heapsnapshot-signal) before and
//   while the drips (then the idle connections) are held: the live JS heap per held response and
//   the groups of objects it is made of (bench/heap-summary.ts). Snapshots stall the server for
//   seconds and grow its RSS, so they run apart from the RSS rounds.
// Run after `make bench` (the C client): node dist/bench/held-memory.js
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { envInt, forkServer, heldChaosEnv, loadAverage, markdownTable, median, MiB, peakRssBytes, Quietness, resetPeakRss, rssBytes, sleep, type Child } from './lib.js';
import { heapGrowth, summarizeHeap, type HeapSummary } from './heap-summary.js';
import { heldClientFromEnv, runClient, type ClientRun } from './streams.js';

const DRIPS = envInt('BENCH_MEMORY_DRIPS', 3000);
const IDLE = envInt('BENCH_MEMORY_IDLE', 3000);
const ROUNDS = envInt('BENCH_ROUNDS', 2, 0);
const SERVER_CORE = envInt('BENCH_SERVER_CORE', 0, 0);
const CLIENT_CORE = envInt('BENCH_CLIENT_CORE', 1, 0);
const BEFORE_DIST = process.env.BENCH_BEFORE_DIST || undefined;
/** `drips`, `idle`, `floor` (the node:net floor's rows): what to leave out. */
const SKIP = process.env.BENCH_SKIP ?? '';
const SNAPSHOT = process.env.BENCH_MEMORY_SNAPSHOT === '1';
/** Heap groups listed per server and shape. */
const TOP_GROUPS = envInt('BENCH_MEMORY_TOP', 25);

const DRIP_PATH = '/drip?bytes=10&chunk=1&interval=1000';
const DRIP_SCHEDULED_MS = 9000;

const client = heldClientFromEnv();
if (client.kind !== 'c') throw new Error('bench/held-memory.ts needs the C client (make bench builds dist/bench/held-client)');

interface Server {
  readonly name: string;
  readonly module: string;
}

const SERVERS: readonly Server[] = [
  { name: 'chaos', module: 'services/chaos/main.js' },
  ...(BEFORE_DIST ? [{ name: 'chaos, before', module: path.resolve(BEFORE_DIST, 'services/chaos/main.js') }] : []),
  ...(SKIP.includes('floor') ? [] : [{ name: 'node:net floor', module: 'bench/bare-drip.js' }]),
];

function log(line: string): void {
  process.stderr.write(`bench held-memory: ${line}\n`);
}

async function start(server: Server, nodeArgs: readonly string[] = []): Promise<Child> {
  const env = { ...(await heldChaosEnv()), MAX_CONNECTIONS: String(Math.max(DRIPS, IDLE) + 1000) };
  return forkServer(server.module, env, { core: SERVER_CORE, nodeArgs });
}

interface DripFigures {
  readonly perThousandMiB: number;
  readonly held: number;
  readonly failed: number;
  readonly latenessP50Ms: number;
  readonly latenessP99Ms: number;
  readonly chunksWithin10Ms: number;
  readonly others: number;
}

interface IdleFigures {
  readonly perThousandMiB: number;
  readonly open: number;
  readonly failed: number;
}

/** The drips' client run; `whileHeld` runs 1.5 s after the ramp, while every stream is held. */
async function drips(server: Child, whileHeld?: () => Promise<void>): Promise<ClientRun> {
  let during: Promise<void> | undefined;
  const run = await runClient(
    { port: server.port, streams: DRIPS, path: DRIP_PATH, rampMs: 1000, timeoutMs: DRIP_SCHEDULED_MS + 30_000, connectPerRequest: true, chunk: { bytes: 1, intervalMs: 1000 } },
    (phase) => {
      if (phase.phase === 'requested' && whileHeld) during = sleep(1500).then(whileHeld);
    },
    CLIENT_CORE,
    client,
  );
  await during;
  return run;
}

/** The drips' code warmed (compiled) before the baseline, as held.ts and scale.ts do. */
async function warmDrips(server: Child): Promise<void> {
  await runClient({ port: server.port, streams: 200, path: DRIP_PATH.replace('interval=1000', 'interval=10'), rampMs: 200, timeoutMs: 15_000, connectPerRequest: true }, undefined, CLIENT_CORE, client);
  await sleep(300);
}

async function warmIdle(server: Child): Promise<void> {
  await runClient({ port: server.port, streams: 200, path: '/status/200', rampMs: 200, timeoutMs: 15_000, connectPerRequest: true }, undefined, CLIENT_CORE, client);
  await sleep(300);
}

/** Idle keep-alive connections, all open when `whileKept` runs. */
function idle(server: Child, whileKept: () => Promise<void>): Promise<ClientRun> {
  return runClient(
    { port: server.port, streams: IDLE, path: '/status/200', rampMs: 1000, timeoutMs: 30_000, connectPerRequest: true, keepOpen: true },
    undefined,
    CLIENT_CORE,
    client,
    whileKept,
  );
}

async function measureDrips(spec: Server): Promise<DripFigures> {
  const server = await start(spec);
  try {
    await warmDrips(server);
    resetPeakRss(server.pid);
    const before = rssBytes(server.pid);
    const quiet = new Quietness(() => [server.pid]);
    quiet.start();
    const run = await drips(server);
    const others = quiet.share();
    const lateness = run.timings.map((t) => t.spanMs - DRIP_SCHEDULED_MS).sort((a, b) => a - b);
    const at = (q: number): number => lateness[Math.min(lateness.length - 1, Math.max(0, Math.ceil(q * lateness.length) - 1))] ?? Number.NaN;
    return {
      perThousandMiB: ((peakRssBytes(server.pid) - before) / MiB / Math.max(1, run.maxInFlight)) * 1000,
      held: run.maxInFlight,
      failed: run.failed,
      latenessP50Ms: at(0.5),
      latenessP99Ms: at(0.99),
      chunksWithin10Ms: run.chunks ? run.chunks.within10Ms / Math.max(1, run.chunks.count) : Number.NaN,
      others,
    };
  } finally {
    await server.stop();
  }
}

async function measureIdle(spec: Server): Promise<IdleFigures> {
  const server = await start(spec);
  try {
    await warmIdle(server);
    const before = rssBytes(server.pid);
    let held = before;
    const run = await idle(server, async () => {
      await sleep(1000);
      held = rssBytes(server.pid);
    });
    const open = run.kept?.open ?? 0;
    return { perThousandMiB: ((held - before) / MiB / Math.max(1, open)) * 1000, open, failed: run.failed };
  } finally {
    await server.stop();
  }
}

/** Asks the server for a heap snapshot (SIGUSR2) and reads it once written (its size steady for a second). */
async function snapshot(server: Child, dir: string): Promise<HeapSummary> {
  const known = new Set(readdirSync(dir));
  process.kill(server.pid, 'SIGUSR2');
  const deadline = performance.now() + 120_000;
  let file: string | undefined;
  let size = -1;
  let steadySince = 0;
  while (performance.now() < deadline) {
    await sleep(200);
    file ??= readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !known.has(f));
    if (file === undefined) continue;
    const now = statSync(path.join(dir, file)).size;
    if (now !== size) {
      size = now;
      steadySince = performance.now();
    } else if (size > 0 && performance.now() - steadySince >= 1000) {
      const summary = summarizeHeap(path.join(dir, file));
      rmSync(path.join(dir, file));
      return summary;
    }
  }
  throw new Error(`no heap snapshot from pid ${server.pid} within 120 s`);
}

interface HeapFigures {
  readonly perHeldBytes: number;
  readonly held: number;
  readonly rows: ReturnType<typeof heapGrowth>;
}

async function heapOf(spec: Server, shape: 'drips' | 'idle'): Promise<HeapFigures> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'held-memory-'));
  const server = await start(spec, ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`]);
  try {
    if (shape === 'drips') await warmDrips(server);
    else await warmIdle(server);
    const idleHeap = await snapshot(server, dir);
    let heldHeap: HeapSummary | undefined;
    let held = 0;
    if (shape === 'drips') {
      const run = await drips(server, async () => {
        heldHeap = await snapshot(server, dir);
      });
      held = run.maxInFlight;
    } else {
      const run = await idle(server, async () => {
        await sleep(500);
        heldHeap = await snapshot(server, dir);
      });
      held = run.kept?.open ?? 0;
    }
    if (heldHeap === undefined) throw new Error('no snapshot while held');
    // Per socket open at the snapshot (on a busy machine not every stream of the ramp is open yet, or still).
    const sockets = (heldHeap.groups.get('object Socket')?.count ?? 0) - (idleHeap.groups.get('object Socket')?.count ?? 0);
    const count = sockets > 0 ? sockets : held;
    return { perHeldBytes: (heldHeap.totalBytes - idleHeap.totalBytes) / count, held: count, rows: heapGrowth(idleHeap, heldHeap, count) };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const f2 = (n: number): string => n.toFixed(2);

async function main(): Promise<void> {
  const dripRuns = new Map<string, DripFigures[]>(SERVERS.map((s) => [s.name, []]));
  const idleRuns = new Map<string, IdleFigures[]>(SERVERS.map((s) => [s.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate who goes first, so no server always meets the same minute of the machine.
    const order = SERVERS.map((_, i) => SERVERS[(i + round) % SERVERS.length] as Server);
    for (const spec of order) {
      if (!SKIP.includes('drips')) {
        log(`round ${round + 1}/${ROUNDS} ${spec.name}: ${DRIPS} × ${DRIP_PATH}`);
        dripRuns.get(spec.name)?.push(await measureDrips(spec));
      }
      if (!SKIP.includes('idle')) {
        log(`round ${round + 1}/${ROUNDS} ${spec.name}: ${IDLE} idle keep-alive connections`);
        idleRuns.get(spec.name)?.push(await measureIdle(spec));
      }
    }
  }
  const out: string[] = [
    '',
    `Memory per held response: ${ROUNDS} rounds (BENCH_ROUNDS), a fresh server per measurement under taskset -c ${SERVER_CORE}, the C client on core ${CLIENT_CORE}; ` +
      'chaos as held.ts runs it (its node flags, limiter and metrics on, per-client caps off); the node:net floor (bench/bare-drip.js) with the same node flags.',
    '',
  ];
  if (!SKIP.includes('drips')) {
    out.push(
      `${DRIPS} × ${DRIP_PATH} (per 1000 = (VmHWM − idle RSS) ÷ most held × 1000; lateness: first byte to last − ${DRIP_SCHEDULED_MS} ms, reported, not judged here)`,
      '',
      markdownTable([
        ['server', 'MiB per 1000, each round', 'median', 'most held', 'failed', 'lateness p50 / p99 ms, each round', 'chunks within 10 ms', 'others'],
        ...SERVERS.map((s) => {
          const runs = dripRuns.get(s.name) ?? [];
          return [
            s.name,
            runs.map((r) => f2(r.perThousandMiB)).join(', '),
            f2(median(runs.map((r) => r.perThousandMiB))),
            runs.map((r) => r.held).join(', '),
            runs.map((r) => r.failed).join(', '),
            runs.map((r) => `${r.latenessP50Ms.toFixed(1)} / ${r.latenessP99Ms.toFixed(1)}`).join(', '),
            runs.map((r) => `${(r.chunksWithin10Ms * 100).toFixed(1)} %`).join(', '),
            runs.map((r) => `${(r.others * 100).toFixed(0)} %`).join(', '),
          ];
        }),
      ]),
      '',
    );
  }
  if (!SKIP.includes('idle')) {
    out.push(
      `${IDLE} idle keep-alive connections after one /status/200 each (per 1000 = (RSS with all open − idle RSS) ÷ open × 1000)`,
      '',
      markdownTable([
        ['server', 'MiB per 1000, each round', 'median', 'open', 'failed'],
        ...SERVERS.map((s) => {
          const runs = idleRuns.get(s.name) ?? [];
          return [s.name, runs.map((r) => f2(r.perThousandMiB)).join(', '), f2(median(runs.map((r) => r.perThousandMiB))), runs.map((r) => r.open).join(', '), runs.map((r) => r.failed).join(', ')];
        }),
      ]),
      '',
    );
  }
  if (SNAPSHOT) {
    for (const shape of ['drips', 'idle'] as const) {
      if (SKIP.includes(shape)) continue;
      for (const spec of SERVERS) {
        log(`heap snapshots, ${spec.name}: ${shape}`);
        const heap = await heapOf(spec, shape);
        out.push(
          `Live JS heap (snapshots), ${spec.name}, ${heap.held} ${shape === 'drips' ? 'held drips' : 'idle connections'} open at the snapshot: ${heap.perHeldBytes.toFixed(0)} bytes each; ` +
            `the ${TOP_GROUPS} largest groups of what each adds:`,
          '',
          markdownTable([
            ['group (type, constructor or name)', 'objects each', 'bytes each'],
            ...heap.rows.slice(0, TOP_GROUPS).map((r) => [r.key, r.count.toFixed(2), r.bytes.toFixed(0)]),
          ]),
          '',
        );
      }
    }
  }
  out.push(`load average (1/5/15 min) at the end: ${loadAverage()}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
