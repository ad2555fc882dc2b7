// Microbenchmark of the chaos host's request parser alone (no sockets):
// requests per second of wall time and of this process's CPU time (the steadier
// figure on a shared machine), and young-generation collections (a proxy for
// the bytes allocated per request) for a few input shapes. Not part of `make bench`;
// run `node dist/bench/parser.js` after `make build`. Knobs (environment):
// BENCH_PARSER_REQUESTS (per round, 200000), BENCH_PARSER_ROUNDS (best kept, 5).
// BENCH_PARSER_BEFORE=<path of another build's dist/services/chaos/parser.js>
// compares the two paired instead: rounds interleaved (order swapped every
// round), each scenario's CPU-time ratio reported as median [min–max].
import { resolve } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import * as current from '../services/chaos/parser.js';
import type { CaptureHook, ParsedRequest } from '../services/chaos/parser.js';

type ParserModule = typeof current;

const REQUESTS = Number(process.env.BENCH_PARSER_REQUESTS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_PARSER_ROUNDS ?? 5);
const SLICE = 64 * 1024;

// What autocannon sends in `make bench`.
const GET = 'GET /bytes?n=1024&mode=wrong-content-type HTTP/1.1\r\nHost: chaos.localhost\r\nConnection: keep-alive\r\n\r\n';
// What wrk sends (the profile's load, docs in shared/reviews/hot-path.md).
const WRK = 'GET /status/200 HTTP/1.1\r\nHost: 127.0.0.1:19581\r\n\r\n';
// A browser's navigation: a dozen fields, most names capitalised.
const BROWSER = [
  'GET /status/200?x=1 HTTP/1.1',
  'Host: chaos.localhost:8080',
  'User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
  'Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'Accept-Language: en-GB,en;q=0.5',
  'Accept-Encoding: gzip, deflate, br, zstd',
  'Connection: keep-alive',
  'Upgrade-Insecure-Requests: 1',
  'Sec-Fetch-Dest: document',
  'Sec-Fetch-Mode: navigate',
  'Sec-Fetch-Site: none',
  'Sec-Fetch-User: ?1',
  'Priority: u=0, i',
  '',
  '',
].join('\r\n');
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
  { name: 'wrk GET (Host only), one per push', pieces: onePerPush(WRK) },
  { name: 'browser GET (13 fields), one per push', pieces: onePerPush(BROWSER) },
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
    // @types/node types `detail` on marks and measures only; node sets it on gc entries too.
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

async function round(scenario: Scenario, parserModule: ParserModule = current): Promise<Round> {
  let seen = 0;
  let last: ParsedRequest | undefined;
  const parser = new parserModule.RequestParser(
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

/** Paired comparison with another build's parser: the ratio is this build's CPU rate ÷ the other's. */
async function compare(beforePath: string): Promise<void> {
  const before = (await import(pathToFileURL(resolve(beforePath)).href)) as ParserModule;
  console.log(`parser vs ${beforePath}: ${REQUESTS} requests per round, ${ROUNDS} paired rounds (node ${process.version})`);
  for (const scenario of SCENARIOS) {
    const ratios: number[] = [];
    let gcNow = 0;
    let gcBefore = 0;
    for (let i = 0; i < ROUNDS; i++) {
      // Alternate who goes first, so warm-up and machine drift fall on both.
      const order = i % 2 === 0 ? [current, before] : [before, current];
      const [a, b] = [await round(scenario, order[0]), await round(scenario, order[1])];
      const [now, then] = i % 2 === 0 ? [a, b] : [b, a];
      ratios.push(now.opsPerCpuSecond / then.opsPerCpuSecond);
      gcNow += now.minorGcs;
      gcBefore += then.minorGcs;
    }
    ratios.sort((x, y) => x - y);
    const median = ratios[Math.floor(ratios.length / 2)] as number;
    const gc = (n: number): string => ((n / ROUNDS / REQUESTS) * 100_000).toFixed(1);
    console.log(
      `${scenario.name.padEnd(40)} ${median.toFixed(2)}× [${(ratios[0] as number).toFixed(2)}–${(ratios.at(-1) as number).toFixed(2)}]  minor GCs per 100k: ${gc(gcNow)} (before ${gc(gcBefore)})`,
    );
  }
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
    console.log(`${scenario.name.padEnd(40)} ${figure(best)} req/s  ${figure(bestCpu)} req/CPU-s  minor GCs per 100k: ${gcPer100k.toFixed(1)}`);
  }
}

const beforePath = process.env.BENCH_PARSER_BEFORE;
if (beforePath === undefined) await main();
else await compare(beforePath);
gcObserver.disconnect();
