// Throughput ratios that a busy machine cannot skew much: the two servers of a
// pair under load AT THE SAME MOMENT, both pinned to the server core, one wrk
// each on the client core (as bench/paired.ts does for two chaos builds).
// While both are busy the kernel gives each half of the core, so what each
// served is the inverse of its cost per request, whatever the core's speed or
// the neighbours did meanwhile; each round is a fresh launch of both (two
// launches of one build differ by up to 1.2x here), and which side starts
// first alternates. Pairs (ids for BENCH_PAIRS_ONLY):
//   control-status  control /status/200  ÷ minimal node:http sending control's header lines
//   control-bytes   control /bytes?n=1024 ÷ the same for that path
//   bots-robots     bots /robots.txt ÷ minimal node:http sending bots' header lines
//   control-proxied control as behind the front door (TRUST_PROXY=loopback, every
//                   request with the X-Forwarded-For HAProxy adds) ÷ control
//                   direct: the replica's share of the front door's cost
//   chaos-net       chaos /status/200 ÷ the minimal node:net responder replaying
//                   the exact bytes chaos sent for it (bench/minimal-responder.ts)
//   chaos-bytes-net the same for chaos /bytes?n=1024&mode=wrong-content-type
//   floor-net       chaos's transport floor (bench/chaos-floor.ts, answering
//                   with those /status/200 bytes straight after parsing) ÷ that
//                   node:net responder: the ceiling for chaos-net
//   chaos-redis     chaos on a Redis store ÷ chaos in memory, /status/200; the
//                   redis-server runs on the server core and its CPU counts with
//                   chaos's, so the figure judged is the CPU per request (the
//                   wrk suite's ratio, which runs each alone, is that one); a
//                   round in which a chaos process fell back to memory (a
//                   command past its 100 ms timeout on a busy machine) is
//                   reported and left out of the medians
// With BENCH_BEFORE_DIST=<another build's dist/>, also control-before,
// bots-before, control-proxied-before and chaos-redis-before: this build ÷
// that build, same paths.
// Knobs: BENCH_ROUNDS (4), BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2),
// BENCH_CONNECTIONS (32 per wrk), BENCH_SERVER_CORE (0), BENCH_CLIENT_CORE (1).
// Run after `make build`: node dist/bench/side-by-side.js
import http from 'node:http';
import { cpus } from 'node:os';
import { cannedFrom, captureResponse } from './canned.js';
import { cpuSeconds, envInt, forkServer, freePort, loadAverage, markdownTable, median, startRedis, type Child, type Peer } from './lib.js';
import type { CannedBody } from './minimal-http.js';
import { wrkAsync, type WrkResult } from './wrk.js';

const SECONDS = envInt('BENCH_SECONDS', 10);
const WARM_SECONDS = envInt('BENCH_WARMUP_SECONDS', 2);
const ROUNDS = envInt('BENCH_ROUNDS', 4);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 32);
const SERVER_CORE = envInt('BENCH_SERVER_CORE', 0, 0);
const CLIENT_CORE = envInt('BENCH_CLIENT_CORE', 1, 0);
const BEFORE_DIST = process.env.BENCH_BEFORE_DIST || undefined;
const ONLY = new Set((process.env.BENCH_PAIRS_ONLY ?? '').split(',').map((s) => s.trim()).filter((s) => s !== ''));
/** RATE_LIMIT_GENERAL: the limiter asks on every request and never says no (as the wrk suite runs them). */
const NO_LIMIT = '1000000000';

function log(line: string): void {
  process.stderr.write(`bench side-by-side: ${line}\n`);
}

interface Started {
  readonly port: number;
  /** Every process whose CPU is this side's. */
  readonly pids: readonly number[];
  /** Its chaos_store_fallback_total so far (a side on Redis). */
  readonly fallbacks?: () => Promise<number>;
  stop(): Promise<void>;
}

/** One side of a pair, started fresh for every round. */
interface Side {
  readonly label: string;
  readonly path: string;
  /** Header lines wrk adds to every request. */
  readonly headers?: readonly string[];
  /** Started on the server core. */
  start(): Promise<Started>;
}

/** The sum of chaos_store_fallback_total on a metrics port. */
function fallbacksAt(metricsPort: number): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: metricsPort, path: '/metrics', agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve([...text.matchAll(/^chaos_store_fallback_total\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0)));
    }).on('error', reject);
  });
}

interface Pair {
  readonly id: string;
  readonly a: Side;
  readonly b: Side;
  /** The figure the target is judged on: requests served (the default) or CPU per request. */
  readonly judgedOn: 'served' | 'cpu';
}

const on = { core: SERVER_CORE };
const common = { LOG_LEVEL: 'warn', RATE_LIMIT_GENERAL: NO_LIMIT, MAX_CONNECTIONS_PER_IP: String(CONNECTIONS * 4) };

function one(child: Child): Started {
  return { port: child.port, pids: [child.pid], stop: () => child.stop() };
}

function service(dist: string | undefined, name: 'control' | 'bots' | 'chaos', env: Record<string, string> = {}): (metricsPort?: number) => Promise<Child> {
  const main = `${dist === undefined ? '' : `${dist}/`}services/${name}/main.js`;
  const portVariable = `${name.toUpperCase()}_PORT`;
  return async (metricsPort) => forkServer(main, { ...common, [portVariable]: '0', METRICS_PORT: String(metricsPort ?? (await freePort())), ...env }, on);
}

function serviceSide(label: string, path: string, dist: string | undefined, name: 'control' | 'bots' | 'chaos'): Side {
  const start = service(dist, name);
  return { label, path, start: async () => one(await start()) };
}

/** What HAProxy's `option forwardfor` adds for a client (a documentation address, RFC 5737). */
const FORWARDED = ['X-Forwarded-For: 203.0.113.7'];

/** Control as a replica behind the front door: it trusts loopback and every request names its client in X-Forwarded-For. */
function proxiedSide(label: string, dist: string | undefined): Side {
  const start = service(dist, 'control', { TRUST_PROXY: 'loopback' });
  return { label, path: '/status/200', headers: FORWARDED, start: async () => one(await start()) };
}

/** A chaos process on a fresh redis-server (both on the server core): the redis-server's CPU is this side's too. */
function redisSide(label: string, dist: string | undefined): Side {
  return {
    label,
    path: '/status/200',
    async start() {
      const redis: Peer = await startRedis(SERVER_CORE);
      const metricsPort = await freePort();
      const chaos = await service(dist, 'chaos', { REDIS_URL: `redis://127.0.0.1:${redis.port}`, REDIS_PREFIX: 'bench:' })(metricsPort);
      return {
        port: chaos.port,
        pids: [chaos.pid, redis.pid],
        fallbacks: () => fallbacksAt(metricsPort),
        stop: async () => {
          await chaos.stop();
          await redis.stop();
        },
      };
    },
  };
}

function minimalSide(label: string, path: string, routes: Record<string, CannedBody>): Side {
  return { label, path, start: async () => one(await forkServer('bench/minimal-http.js', { MINIMAL_HTTP_ROUTES: JSON.stringify(routes) }, on)) };
}

/** A server that answers every request with `response` (base64), byte for byte: the node:net responder or chaos's transport floor. */
function replaySide(label: string, module: 'bench/minimal-responder.js' | 'bench/chaos-floor.js', response: string): Side {
  return { label, path: '/', start: async () => one(await forkServer(module, { MINIMAL_RESPONSE_B64: response }, on)) };
}

const CHAOS_NET_PATHS = ['/status/200', '/bytes?n=1024&mode=wrong-content-type'] as const;

/** The exact bytes chaos sends for each compared path (base64), captured from a process started once. */
async function capturedChaos(): Promise<Record<string, string>> {
  const child = await service(undefined, 'chaos')();
  try {
    const bytes: Record<string, string> = {};
    for (const path of CHAOS_NET_PATHS) bytes[path] = (await captureResponse(child.port, path)).toString('base64');
    return bytes;
  } finally {
    await child.stop();
  }
}

/** The header lines control and bots send for the compared paths, captured from a process started once. */
async function capturedLines(): Promise<Record<string, CannedBody>> {
  const routes: Record<string, CannedBody> = {};
  for (const [name, path] of [['control', '/status/200'], ['control', '/bytes?n=1024'], ['bots', '/robots.txt']] as const) {
    const child = await service(undefined, name)();
    try {
      routes[path] = (await cannedFrom(child.port, path)).withLines;
    } finally {
      await child.stop();
    }
  }
  return routes;
}

interface Measured {
  readonly requests: number;
  readonly cpuMicrosPerRequest: number;
  readonly errors: number;
}

/** Both sides under load at once for `seconds`. */
async function together(
  ports: readonly [number, number],
  pids: readonly [readonly number[], readonly number[]],
  sides: readonly [Side, Side],
  seconds: number,
): Promise<[Measured, Measured]> {
  const cpu = (list: readonly number[]): number => list.reduce((n, pid) => n + cpuSeconds(pid), 0);
  const before = [cpu(pids[0]), cpu(pids[1])];
  const results: WrkResult[] = await Promise.all(
    ports.map((port, i) => {
      const side = sides[i] as Side;
      return wrkAsync({ url: `http://127.0.0.1:${port}${side.path}`, connections: CONNECTIONS, seconds, core: CLIENT_CORE, ...(side.headers ? { headers: side.headers } : {}) });
    }),
  );
  return [0, 1].map((i) => {
    const r = results[i] as WrkResult;
    const used = cpu(pids[i] as readonly number[]) - (before[i] as number);
    return { requests: r.requests, cpuMicrosPerRequest: r.requests > 0 ? (used * 1e6) / r.requests : Number.NaN, errors: r.socketErrors + r.non2xx };
  }) as [Measured, Measured];
}

interface Round {
  readonly a: Measured;
  readonly b: Measured;
  readonly load: string;
  /** Operations a side on Redis answered from memory during the round (0: none fell back). */
  readonly fallbacks: number;
}

async function runPair(pair: Pair): Promise<Round[]> {
  const rounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Which side is launched first alternates: neither always gets the earlier address space or core time.
    const first = round % 2 === 0 ? pair.a : pair.b;
    const second = round % 2 === 0 ? pair.b : pair.a;
    const started1 = await first.start();
    const started2 = await second.start();
    const [a, b] = round % 2 === 0 ? [started1, started2] : [started2, started1];
    try {
      await together([a.port, b.port], [a.pids, b.pids], [pair.a, pair.b], WARM_SECONDS);
      const fellBack = async (): Promise<number> => (await a.fallbacks?.() ?? 0) + (await b.fallbacks?.() ?? 0);
      const fallbacksBefore = await fellBack();
      const [ma, mb] = await together([a.port, b.port], [a.pids, b.pids], [pair.a, pair.b], SECONDS);
      const fallbacks = (await fellBack()) - fallbacksBefore;
      const load = loadAverage();
      rounds.push({ a: ma, b: mb, load, fallbacks });
      log(
        `${pair.id} round ${round + 1}/${ROUNDS}: served ${(ma.requests / mb.requests).toFixed(3)}×, CPU/req ${ma.cpuMicrosPerRequest.toFixed(1)} / ` +
          `${mb.cpuMicrosPerRequest.toFixed(1)} µs (${(mb.cpuMicrosPerRequest / ma.cpuMicrosPerRequest).toFixed(3)}×), load ${load}` +
          (fallbacks > 0 ? `; ${fallbacks} operations fell back to memory: left out` : ''),
      );
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }
  return rounds;
}

const spread = (list: readonly number[]): string => `${Math.min(...list).toFixed(2)}–${Math.max(...list).toFixed(2)}`;

async function main(): Promise<void> {
  log('capturing the header lines of control and bots');
  const lines = await capturedLines();
  const chaosBytes = await capturedChaos();
  const [statusPath, bytesPath] = CHAOS_NET_PATHS;
  const netReplay = (path: string): Side => replaySide('node:net, same bytes', 'bench/minimal-responder.js', chaosBytes[path] as string);
  const pairs: Pair[] = [
    { id: 'chaos-net', a: serviceSide('chaos', statusPath, undefined, 'chaos'), b: netReplay(statusPath), judgedOn: 'served' },
    { id: 'chaos-bytes-net', a: serviceSide('chaos', bytesPath, undefined, 'chaos'), b: netReplay(bytesPath), judgedOn: 'served' },
    { id: 'floor-net', a: replaySide('chaos transport floor', 'bench/chaos-floor.js', chaosBytes[statusPath] as string), b: netReplay(statusPath), judgedOn: 'served' },
    { id: 'control-status', a: serviceSide('control', '/status/200', undefined, 'control'), b: minimalSide('node:http, same lines', '/status/200', lines), judgedOn: 'served' },
    { id: 'control-bytes', a: serviceSide('control', '/bytes?n=1024', undefined, 'control'), b: minimalSide('node:http, same lines', '/bytes?n=1024', lines), judgedOn: 'served' },
    { id: 'bots-robots', a: serviceSide('bots', '/robots.txt', undefined, 'bots'), b: minimalSide('node:http, same lines', '/robots.txt', lines), judgedOn: 'served' },
    { id: 'control-proxied', a: proxiedSide('control behind a proxy', undefined), b: serviceSide('control direct', '/status/200', undefined, 'control'), judgedOn: 'served' },
    { id: 'chaos-redis', a: redisSide('chaos on Redis (+ redis-server)', undefined), b: serviceSide('chaos in memory', '/status/200', undefined, 'chaos'), judgedOn: 'cpu' },
    ...(BEFORE_DIST
      ? ([
          { id: 'control-before', a: serviceSide('control', '/status/200', undefined, 'control'), b: serviceSide('control, before', '/status/200', BEFORE_DIST, 'control'), judgedOn: 'served' },
          { id: 'bots-before', a: serviceSide('bots', '/robots.txt', undefined, 'bots'), b: serviceSide('bots, before', '/robots.txt', BEFORE_DIST, 'bots'), judgedOn: 'served' },
          { id: 'control-proxied-before', a: proxiedSide('control behind a proxy', undefined), b: proxiedSide('control behind a proxy, before', BEFORE_DIST), judgedOn: 'served' },
          { id: 'chaos-redis-before', a: redisSide('chaos on Redis', undefined), b: redisSide('chaos on Redis, before', BEFORE_DIST), judgedOn: 'cpu' },
        ] satisfies Pair[])
      : []),
  ];
  const unknown = [...ONLY].filter((id) => !pairs.some((p) => p.id === id));
  if (unknown.length > 0) throw new Error(`BENCH_PAIRS_ONLY: no pair ${unknown.join(', ')}; the ids are ${pairs.map((p) => p.id).join(', ')}`);
  const chosen = ONLY.size > 0 ? pairs.filter((p) => ONLY.has(p.id)) : pairs;
  const rows = [['pair', 'A ÷ B', 'served A ÷ B: median (rounds)', 'CPU µs/req A / B (median)', 'CPU B ÷ A: median (rounds)', 'judged on', 'rounds left out (fell back)', 'errors', 'load average after each round']];
  const loadBefore = loadAverage();
  for (const pair of chosen) {
    const all = await runPair(pair);
    const clean = all.filter((r) => r.fallbacks === 0);
    const rounds = clean.length > 0 ? clean : all;
    const served = rounds.map((r) => r.a.requests / r.b.requests);
    const cpu = rounds.map((r) => r.b.cpuMicrosPerRequest / r.a.cpuMicrosPerRequest);
    rows.push([
      pair.id,
      `${pair.a.label} ${pair.a.path} ÷ ${pair.b.label}${pair.b.path === pair.a.path ? '' : ` ${pair.b.path}`}`,
      `${median(served).toFixed(3)}× (${spread(served)})`,
      `${median(rounds.map((r) => r.a.cpuMicrosPerRequest)).toFixed(1)} / ${median(rounds.map((r) => r.b.cpuMicrosPerRequest)).toFixed(1)}`,
      `${median(cpu).toFixed(3)}× (${spread(cpu)})`,
      pair.judgedOn === 'served' ? 'requests served' : 'CPU per request',
      clean.length > 0 ? String(all.length - clean.length) : `none clean: all ${all.length} kept`,
      String(rounds.reduce((n, r) => n + r.a.errors + r.b.errors, 0)),
      all.map((r) => r.load.split(' ')[0]).join(' / '),
    ]);
  }
  process.stdout.write(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}` +
      (BEFORE_DIST ? `; before: ${BEFORE_DIST}` : '') +
      `\nEach pair: ${ROUNDS} rounds, each a fresh launch of both sides on core ${SERVER_CORE} under load at once (one wrk -t1 -c${CONNECTIONS} ` +
      `each on core ${CLIENT_CORE}), ${WARM_SECONDS} s warm-up then ${SECONDS} s measured; load average before: ${loadBefore}\n\n${markdownTable(rows)}\n`,
  );
}

await main();
