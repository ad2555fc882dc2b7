// Why held timing is unstable (issue 31): one held benchmark (held.ts's
// shapes) against chaos with its GC pauses and event-loop stalls logged
// (bench/gc-log.ts, loaded with --import) and its run-queue wait sampled,
// all on the monotonic clock the C client stamps arrivals with; then each
// late response is set against what happened on the server while it was
// due: a GC pause, a stall of the loop without one (our JS, or node's), the
// process waiting for a CPU (another process had the core), or none of them.
// BENCH_GC_SHAPE=slow (2000 × /slow?ms=2000 over 500 ms, after a warm-up
// burst) or drips (3000 × /drip?bytes=10&chunk=1&interval=1000 over 1 s);
// BENCH_GC_CPU_PROF=1 also writes a CPU profile (--cpu-prof) and lists its
// heaviest functions; BENCH_NODE_EXTRA adds node flags (an A/B of a flag);
// with go-httpbin found, it runs the same shape with GODEBUG=gctrace=1 and
// reports its GC cycles in the window.
// Run after `make bench`: BENCH_GC_SHAPE=drips node dist/bench/held-gc.js
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { DIST, envInt, forkServer, freePort, goHttpbinPath, heldChaosEnv, loadAverage, markdownTable, quantile, runQueueWaitSeconds, sleep, stopChild } from './lib.js';
import { heldClientFromEnv, runClient, type ClientRun } from './streams.js';

const SHAPE = process.env.BENCH_GC_SHAPE || 'drips';
if (SHAPE !== 'slow' && SHAPE !== 'drips') throw new Error(`BENCH_GC_SHAPE must be slow or drips, got ${SHAPE}`);
const CPU_PROF = process.env.BENCH_GC_CPU_PROF === '1';
const EXTRA_FLAGS = (process.env.BENCH_NODE_EXTRA ?? '').split(' ').filter(Boolean);
const SERVER_CORE = envInt('BENCH_SERVER_CORE', 0, 0);
const CLIENT_CORE = envInt('BENCH_CLIENT_CORE', 1, 0);
const CHAOS_MAIN = process.env.BENCH_CHAOS_MAIN || 'services/chaos/main.js';
const client = heldClientFromEnv();
if (client.kind !== 'c') throw new Error('bench/held-gc.ts needs the C client (make bench builds it)');

interface Shape {
  readonly streams: number;
  readonly chaosPath: string;
  readonly goPath: string;
  readonly chaosWarm: string;
  readonly goWarm: string;
  readonly warmStreams: number;
  readonly rampMs: number;
  /** request → first byte (slow) or first byte → last (drips). */
  readonly timing: 'firstByte' | 'span';
  readonly chaosScheduledMs: number;
  readonly goScheduledMs: number;
  /** Lateness above this is "late" (the issue's p99 bound). */
  readonly lateMs: number;
}

const SHAPES: Record<'slow' | 'drips', Shape> = {
  slow: {
    streams: envInt('BENCH_SLOW', 2000),
    chaosPath: '/slow?ms=2000',
    goPath: '/delay/2',
    chaosWarm: '/slow?ms=10',
    goWarm: '/delay/0',
    warmStreams: envInt('BENCH_SLOW', 2000),
    rampMs: 500,
    timing: 'firstByte',
    chaosScheduledMs: 2000,
    goScheduledMs: 2000,
    lateMs: 5,
  },
  drips: {
    streams: envInt('BENCH_DRIPS', 3000),
    chaosPath: '/drip?bytes=10&chunk=1&interval=1000',
    goPath: '/drip?duration=10&numbytes=10&delay=0',
    chaosWarm: '/drip?bytes=10&chunk=1&interval=10',
    goWarm: '/drip?duration=1&numbytes=10&delay=0',
    warmStreams: 50,
    rampMs: 1000,
    timing: 'span',
    chaosScheduledMs: 9000,
    goScheduledMs: 10_000,
    lateMs: 10,
  },
};
const shape = SHAPES[SHAPE];

function log(line: string): void {
  process.stderr.write(`bench held-gc: ${line}\n`);
}

const monoMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** The process's run-queue wait, sampled every 10 ms: [monotonic ms, seconds waited so far]. */
function sampleRunQueue(pid: number): { samples: [number, number][]; stop: () => void } {
  const samples: [number, number][] = [];
  const timer = setInterval(() => {
    try {
      samples.push([monoMs(), runQueueWaitSeconds(pid)]);
    } catch {
      // the process is gone
    }
  }, 10);
  return { samples, stop: () => clearInterval(timer) };
}

/** Run-queue wait (ms) of the process within [from, to], from the samples (interpolated at the edges by the nearest samples). */
function runQueueWithin(samples: readonly [number, number][], from: number, to: number): number {
  let before: [number, number] | undefined;
  let after: [number, number] | undefined;
  for (const s of samples) {
    if (s[0] <= from) before = s;
    if (s[0] >= to) {
      after = s;
      break;
    }
  }
  // The last samples may stop short of `to` (the sampler ends with the client): the nearest one before it then.
  after ??= samples.at(-1);
  if (!before || !after || after[0] <= before[0]) return 0;
  return (after[1] - before[1]) * 1000;
}

interface Late {
  readonly dueMs: number;
  readonly arrivalMs: number;
  readonly latenessMs: number;
}

/** Each response's due time and arrival, on the monotonic clock. */
function responses(run: ClientRun, scheduledMs: number): Late[] {
  const rampStart = run.rampStartNs;
  if (rampStart === undefined) throw new Error('held-client gave no rampStartNs (rebuild it: make bench)');
  const origin = rampStart / 1e6;
  return run.timings.map((t) => {
    const timed = shape.timing === 'span' ? t.spanMs : t.firstByteMs;
    const arrivalMs = origin + t.firstAtMs + (shape.timing === 'span' ? t.spanMs : 0);
    const latenessMs = timed - scheduledMs;
    return { dueMs: arrivalMs - latenessMs, arrivalMs, latenessMs };
  });
}

interface GcLog {
  readonly gcs: [number, number, number][];
  readonly stalls: [number, number][];
}

const KINDS: Record<number, string> = { 1: 'scavenge', 2: 'minor mark-sweep', 4: 'mark-compact', 8: 'incremental marking', 16: 'weak callbacks' };

const overlaps = (a0: number, a1: number, b0: number, b1: number): number => Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));

function explain(all: readonly Late[], gc: GcLog, runQueue: readonly [number, number][], out: string[]): void {
  const windowFrom = Math.min(...all.map((r) => r.dueMs)) - shape.chaosScheduledMs;
  const windowTo = Math.max(...all.map((r) => r.arrivalMs));
  const inWindow = gc.gcs.filter(([start]) => start >= windowFrom && start <= windowTo);
  const byKind = new Map<number, number[]>();
  for (const [, duration, kind] of inWindow) byKind.set(kind, [...(byKind.get(kind) ?? []), duration]);
  out.push(
    `GC during the run (${((windowTo - windowFrom) / 1000).toFixed(1)} s from the first request to the last arrival):`,
    '',
    markdownTable([
      ['kind', 'count', 'total ms', 'p50 ms', 'max ms'],
      ...[...byKind].map(([kind, durations]) => {
        const sorted = [...durations].sort((a, b) => a - b);
        return [KINDS[kind] ?? String(kind), String(sorted.length), sorted.reduce((s, d) => s + d, 0).toFixed(1), quantile(sorted, 0.5).toFixed(2), (sorted.at(-1) ?? 0).toFixed(2)];
      }),
    ]),
    '',
  );
  const stalls = gc.stalls.filter(([start]) => start >= windowFrom && start <= windowTo);
  const stallMs = stalls.map(([, gap]) => gap).sort((a, b) => a - b);
  const stallsWithGc = stalls.filter(([s, gap]) => gc.gcs.some(([g, d]) => overlaps(s, s + gap, g, g + d) > 0)).length;
  const queued = runQueueWithin(runQueue, windowFrom, windowTo);
  out.push(
    `Event-loop stalls over 3 ms: ${stalls.length} (total ${stallMs.reduce((s, d) => s + d, 0).toFixed(0)} ms, p50 ${quantile(stallMs, 0.5).toFixed(1)}, ` +
      `max ${(stallMs.at(-1) ?? 0).toFixed(1)} ms), ${stallsWithGc} of them with a GC pause inside; the server waited ${queued.toFixed(0)} ms for a CPU in the window.`,
    '',
  );
  const late = all.filter((r) => r.latenessMs > shape.lateMs);
  let withGc = 0;
  let withStall = 0;
  let withQueue = 0;
  let none = 0;
  let gcShare = 0;
  let queueShare = 0;
  for (const r of late) {
    const gcMs = gc.gcs.reduce((sum, [g, d]) => sum + overlaps(r.dueMs, r.arrivalMs, g, g + d), 0);
    const stalled = stalls.some(([s, gap]) => overlaps(r.dueMs, r.arrivalMs, s, s + gap) > 0);
    const queueMs = runQueueWithin(runQueue, r.dueMs, r.arrivalMs);
    gcShare += Math.min(1, gcMs / r.latenessMs);
    queueShare += Math.min(1, queueMs / r.latenessMs);
    if (gcMs > 0) withGc++;
    else if (queueMs >= 1) withQueue++;
    else if (stalled) withStall++;
    else none++;
  }
  const lateness = all.map((r) => r.latenessMs).sort((a, b) => a - b);
  const pct = (n: number): string => `${n} (${((n / Math.max(1, late.length)) * 100).toFixed(0)} %)`;
  out.push(
    `Responses: ${all.length}; lateness p50 ${quantile(lateness, 0.5).toFixed(1)} / p99 ${quantile(lateness, 0.99).toFixed(1)} / max ${(lateness.at(-1) ?? 0).toFixed(1)} ms; ` +
      `${late.length} later than ${shape.lateMs} ms. Of those, between due time and arrival:`,
    `- a GC pause: ${pct(withGc)} (GC covers ${((gcShare / Math.max(1, late.length)) * 100).toFixed(0)} % of their lateness on average)`,
    `- no GC, the server waiting for a CPU (≥ 1 ms): ${pct(withQueue)} (run-queue wait covers ${((queueShare / Math.max(1, late.length)) * 100).toFixed(0)} % of all late ones' lateness on average)`,
    `- neither, a loop stall of ours (JS, node, syscalls): ${pct(withStall)}`,
    `- none of these seen: ${pct(none)}`,
    '',
  );
  // The worst 100 ms of the run: what the loop was doing then.
  const buckets = new Map<number, Late[]>();
  for (const r of all) {
    const bucket = Math.floor((r.dueMs - windowFrom) / 100);
    buckets.set(bucket, [...(buckets.get(bucket) ?? []), r]);
  }
  const worst = [...buckets]
    .map(([bucket, rs]) => ({ bucket, rs, p99: quantile(rs.map((r) => r.latenessMs).sort((a, b) => a - b), 0.99) }))
    .sort((a, b) => b.p99 - a.p99)
    .slice(0, 8);
  out.push(
    'The 8 worst 100 ms slices (by due time), with what the server did from their start to their last arrival:',
    '',
    markdownTable([
      ['due at (s into the run)', 'responses', 'lateness p99 ms', 'GC pauses: count, ms (kinds)', 'loop stalls: count, ms', 'run-queue wait ms'],
      ...worst.map(({ bucket, rs, p99 }) => {
        const from = windowFrom + bucket * 100;
        const to = Math.max(...rs.map((r) => r.arrivalMs));
        const g = gc.gcs.filter(([s, d]) => overlaps(from, to, s, s + d) > 0);
        const st = stalls.filter(([s, gap]) => overlaps(from, to, s, s + gap) > 0);
        const kinds = [...new Set(g.map(([, , k]) => KINDS[k] ?? String(k)))].join(', ');
        return [
          (bucket / 10).toFixed(1),
          String(rs.length),
          p99.toFixed(1),
          `${g.length}, ${g.reduce((s, [, d]) => s + d, 0).toFixed(1)}${kinds ? ` (${kinds})` : ''}`,
          `${st.length}, ${st.reduce((s, [, d]) => s + d, 0).toFixed(1)}`,
          runQueueWithin(runQueue, from, to).toFixed(1),
        ];
      }),
    ]),
    '',
  );
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

/** The heaviest functions of a .cpuprofile by self time: [name and place, ms, share of the samples]. */
function profileTop(file: string, top: number): string[][] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const delta = (profile.timeDeltas[i] ?? 0) / 1000;
    total += delta;
    if (!node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${url ? `${path.basename(url)}:${lineNumber + 1}` : ''}`.trim();
    self.set(key, (self.get(key) ?? 0) + delta);
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, ms]) => [key, ms.toFixed(0), `${((ms / total) * 100).toFixed(1)} %`]);
}

async function measure(port: number, pid: number, path_: string, warmPath: string, scheduledMs: number): Promise<{ run: ClientRun; rq: [number, number][] }> {
  await runClient({ port, streams: shape.warmStreams, path: warmPath, rampMs: SHAPE === 'slow' ? shape.rampMs : 50, timeoutMs: 15_000, connectPerRequest: true }, undefined, CLIENT_CORE, client);
  await sleep(300);
  const rq = sampleRunQueue(pid);
  try {
    const run = await runClient(
      {
        port,
        streams: shape.streams,
        path: path_,
        rampMs: shape.rampMs,
        timeoutMs: scheduledMs + 15_000,
        connectPerRequest: true,
        ...(shape.timing === 'span' && path_.startsWith('/drip?bytes') ? { chunk: { bytes: 1, intervalMs: 1000 } } : {}),
      },
      undefined,
      CLIENT_CORE,
      client,
    );
    return { run, rq: rq.samples };
  } finally {
    rq.stop();
  }
}

async function chaos(out: string[]): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'held-gc-'));
  const gcFile = path.join(dir, 'gc.json');
  const flags = [`--import=${path.join(DIST, 'bench/gc-log.js')}`, ...EXTRA_FLAGS, ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [])];
  const server = await forkServer(CHAOS_MAIN, { ...(await heldChaosEnv()), GC_LOG_FILE: gcFile }, { core: SERVER_CORE, nodeArgs: flags });
  let measured: Awaited<ReturnType<typeof measure>>;
  try {
    log(`chaos: ${shape.streams} × ${shape.chaosPath}${EXTRA_FLAGS.length ? ` with ${EXTRA_FLAGS.join(' ')}` : ''}`);
    measured = await measure(server.port, server.pid, shape.chaosPath, shape.chaosWarm, shape.chaosScheduledMs);
  } finally {
    await server.stop();
  }
  const gc = JSON.parse(readFileSync(gcFile, 'utf8')) as GcLog;
  out.push(`## chaos (${CHAOS_MAIN}, node flags as users run it${EXTRA_FLAGS.length ? ` plus ${EXTRA_FLAGS.join(' ')}` : ''})`, '');
  const { run } = measured;
  out.push(
    `completed ${run.timings.length}, failed ${run.failed}; client loop delay p99 ${run.clientLoopDelayP99Ms.toFixed(2)} / max ${run.clientLoopDelayMaxMs.toFixed(2)} ms` +
      (run.chunks ? `; chunks within 10 ms ${((run.chunks.within10Ms / Math.max(1, run.chunks.count)) * 100).toFixed(1)} %, p99 ${run.chunks.p99Ms.toFixed(1)} ms` : ''),
    '',
  );
  explain(responses(run, shape.chaosScheduledMs), gc, measured.rq, out);
  if (CPU_PROF) {
    const profile = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (profile) {
      out.push('CPU profile (the whole life of the process, warm-up included), heaviest functions by self time:', '', markdownTable([['function', 'self ms', 'share'], ...profileTop(path.join(dir, profile), 25)]), '');
    } else out.push('CPU profile: none written', '');
  }
  rmSync(dir, { recursive: true, force: true });
}

/** go-httpbin under GODEBUG=gctrace=1: its GC cycles during the run (gctrace's clock is the process's own, so no per-response match). */
async function go(binary: string, out: string[]): Promise<void> {
  const port = await freePort();
  const child = spawn('taskset', ['-c', String(SERVER_CORE), binary, '-host', '127.0.0.1', '-port', String(port), '-max-duration', '60s'], {
    env: { ...process.env, GODEBUG: 'gctrace=1', GOMAXPROCS: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: [number, string][] = [];
  if (child.stderr) createInterface({ input: child.stderr }).on('line', (line) => lines.push([monoMs(), line]));
  try {
    await sleep(500);
    log(`go-httpbin: ${shape.streams} × ${shape.goPath}`);
    const { run } = await measure(port, child.pid as number, shape.goPath, shape.goWarm, shape.goScheduledMs);
    const all = responses(run, shape.goScheduledMs);
    const from = Math.min(...all.map((r) => r.dueMs)) - shape.goScheduledMs;
    const to = Math.max(...all.map((r) => r.arrivalMs));
    const cycles = lines.filter(([at, line]) => at >= from && at <= to + 50 && line.startsWith('gc '));
    // "gc 12 @3.1s 1%: 0.02+1.2+0.01 ms clock, …": the first and last clock figures are the stop-the-world pauses.
    const pauses = cycles.map(([, line]) => /: ([\d.]+)\+[\d.]+\+([\d.]+) ms clock/.exec(line)).filter((m) => m !== null).map((m) => Number(m[1]) + Number(m[2]));
    const lateness = all.map((r) => r.latenessMs).sort((a, b) => a - b);
    out.push(
      '## go-httpbin (GODEBUG=gctrace=1, GOMAXPROCS=1)',
      '',
      `completed ${run.timings.length}, failed ${run.failed}; lateness p50 ${quantile(lateness, 0.5).toFixed(1)} / p99 ${quantile(lateness, 0.99).toFixed(1)} / max ${(lateness.at(-1) ?? 0).toFixed(1)} ms; ` +
        `${cycles.length} GC cycles in the window, stop-the-world pauses total ${pauses.reduce((s, p) => s + p, 0).toFixed(2)} ms, max ${Math.max(0, ...pauses).toFixed(2)} ms`,
      ...cycles.slice(0, 5).map(([, line]) => `    ${line}`),
      '',
    );
  } finally {
    await stopChild(child);
  }
}

async function main(): Promise<void> {
  const out: string[] = ['', `Held timing under a GC and loop log: ${shape.streams} × ${shape.chaosPath} (go-httpbin ${shape.goPath}), server on core ${SERVER_CORE}, the C client on core ${CLIENT_CORE}.`, ''];
  await chaos(out);
  const binary = goHttpbinPath();
  if (binary && process.env.BENCH_GC_GO !== 'off') await go(binary, out);
  out.push(`load average (1/5/15 min) at the end: ${loadAverage()}`);
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
