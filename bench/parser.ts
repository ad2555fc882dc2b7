// Microbenchmark of the chaos host's request parser alone (no sockets):
// requests per second of wall time and of this process's CPU time (the steadier
// figure on a shared machine), and young-generation collections (a proxy for
// the bytes allocated per request) for a few input shapes. Not part of `make bench`;
// run `node dist/bench/parser.js` after `make build`. Knobs (environment):
// BENCH_PARSER_REQUESTS (per round, 200000), BENCH_PARSER_ROUNDS (best kept, 5).
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { RequestParser, type CaptureHook, type ParsedRequest } from '../services/chaos/parser.js';

const REQUESTS = Number(process.env.BENCH_PARSER_REQUESTS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_PARSER_ROUNDS ?? 5);
const SLICE = 64 * 1024;

// What autocannon sends in `make bench`.
const GET = 'GET /bytes?n=1024&mode=wrong-content-type HTTP/1.1\r\nHost: chaos.localhost\r\nConnection: keep-alive\r\n\r\n';
const POST = `POST /anything HTTP/1.1\r\nHost: chaos.localhost\r\nContent-Type: application/octet-stream\r\nContent-Length: 1024\r\n\r\n${'x'.repeat(1024)}`;

interface Scenario {
  readonly name: string;
  /** The input, already cut into the pieces one round pushes. */
  readonly pieces: readonly Buffer[];
  readonly capture?: CaptureHook;
}

function onePerPush(request: string): readonly Buffer[] {
  const one = Buffer.from(request, 'latin1');
  // Distinct Buffers, as a socket hands over, but built once outside the timed loop.
  return Array.from({ length: REQUESTS }, () => Buffer.from(one));
}

function pipelined(request: string): readonly Buffer[] {
  const all = Buffer.from(request.repeat(REQUESTS), 'latin1');
  const pieces: Buffer[] = [];
  for (let at = 0; at < all.length; at += SLICE) pieces.push(all.subarray(at, at + SLICE));
  return pieces;
}

const SCENARIOS: readonly Scenario[] = [
  { name: 'GET, one request per push', pieces: onePerPush(GET) },
  { name: 'GET, pipelined in 64 KiB pushes', pieces: pipelined(GET) },
  { name: 'POST 1 KiB body, one per push', pieces: onePerPush(POST) },
  // The opt-in capture, for comparison: what an inspection endpoint pays.
  { name: 'GET, raw headers kept', pieces: onePerPush(GET), capture: () => ({ rawHeaders: true }) },
  { name: 'POST 1 KiB body, all kept', pieces: onePerPush(POST), capture: () => ({ rawHeaders: true, body: { max: 4096 } }) },
];

let minorGcs = 0;
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    // @types/node of this version lacks `detail` on the entry type; node 20 sets it on gc entries.
    const detail = (entry as unknown as { readonly detail?: { readonly kind?: number } }).detail;
    if (detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) minorGcs++;
  }
});
gcObserver.observe({ entryTypes: ['gc'] });

/** GC entries arrive after the work that caused them: let them land. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

interface Round {
  readonly opsPerSecond: number;
  readonly opsPerCpuSecond: number;
  readonly minorGcs: number;
}

async function round(scenario: Scenario): Promise<Round> {
  let seen = 0;
  let last: ParsedRequest | undefined;
  const parser = new RequestParser(
    {
      onRequest: (request) => {
        seen++;
        last = request;
      },
      onContinue: () => undefined,
      onReject: (rejection) => {
        throw rejection;
      },
    },
    undefined,
    { capture: scenario.capture },
  );
  await settle();
  const gcBefore = minorGcs;
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (const piece of scenario.pieces) parser.push(piece);
  const elapsedNs = Number(process.hrtime.bigint() - started);
  const cpu = process.cpuUsage(cpuBefore);
  await settle();
  if (seen !== REQUESTS || last === undefined) throw new Error(`${scenario.name}: parsed ${seen} of ${REQUESTS}`);
  return {
    opsPerSecond: (REQUESTS / elapsedNs) * 1e9,
    opsPerCpuSecond: (REQUESTS / (cpu.user + cpu.system)) * 1e6,
    minorGcs: minorGcs - gcBefore,
  };
}

async function main(): Promise<void> {
  console.log(`parser: ${REQUESTS} requests per round, best of ${ROUNDS} rounds (node ${process.version})`);
  for (const scenario of SCENARIOS) {
    const rounds: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await round(scenario));
    const best = Math.max(...rounds.map((r) => r.opsPerSecond));
    const bestCpu = Math.max(...rounds.map((r) => r.opsPerCpuSecond));
    const gcPer100k = (Math.min(...rounds.map((r) => r.minorGcs)) / REQUESTS) * 100_000;
    const figure = (n: number): string => Math.round(n).toString().padStart(8);
    console.log(`${scenario.name.padEnd(32)} ${figure(best)} req/s  ${figure(bestCpu)} req/CPU-s  minor GCs per 100k: ${gcPer100k.toFixed(1)}`);
  }
  gcObserver.disconnect();
}

await main();
