// Throughput that its client cannot fool (issue 15): wrk on a core of its own,
// every server on the other, all targets in one run with interleaved rounds.
// Servers run as users run them: the per-IP limiter on (in memory, with a
// limit no run reaches) and metrics on (an admin port), plus a chaos process
// on a Redis store. Baselines: the least node:net can do (bench/minimal-responder.ts),
// the least node:http can do (bench/minimal-http.ts), and go-httpbin when its
// binary is there. Per target: req/s, p50/p99 latency (wrk), the server's CPU µs
// per request (/proc), and per run how much CPU other processes took.
// Run after `make build`: node dist/bench/wrk-suite.js (about 4 minutes with the defaults).
import { cpus } from 'node:os';
import {
  CORES,
  cpuSeconds,
  envInt,
  forkServer,
  freePort,
  goHttpbinPath,
  loadAverage,
  markdownTable as table,
  median,
  NOISY_SHARE,
  cpuProbeMs,
  Quietness,
  startGoHttpbin,
  startRedis,
  type Child,
  type Peer,
} from './lib.js';
import type { CannedBody } from './minimal-http.js';
import { cannedFrom, captureResponse } from './canned.js';
import { wrk } from './wrk.js';

const SECONDS = envInt('BENCH_SECONDS', 5);
const ROUNDS = envInt('BENCH_ROUNDS', 3);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 64);
const WARM_SECONDS = envInt('BENCH_WARMUP_SECONDS', 2);
const SERVER_CORE = envInt('BENCH_SERVER_CORE', 0, 0);
const CLIENT_CORE = envInt('BENCH_CLIENT_CORE', 1, 0);
const CHAOS_MAIN = process.env.BENCH_CHAOS_MAIN || 'services/chaos/main.js';
/**
 * Another build's dist/ (e.g. a checkout of the commit before a change): its
 * chaos, control and bots run beside this build's, in the same rounds, so a
 * change is measured before and after in one run.
 */
const BEFORE_DIST = process.env.BENCH_BEFORE_DIST || undefined;
/** Target ids to run (comma-separated, e.g. `net,chaos-floor,chaos-status`): a quicker look at a few rows; every row by default. */
const ONLY_IDS = (process.env.BENCH_ONLY ?? '').split(',').map((id) => id.trim()).filter((id) => id !== '');
const ONLY = ONLY_IDS.length > 0 ? new Set(ONLY_IDS) : undefined;
/** RATE_LIMIT_GENERAL: the limiter asks on every request, and never says no. */
const NO_LIMIT = '1000000000';
// The per-IP connection cap stays on (it is counted on every accept), above wrk's
// connections: at exactly the cap, a reconnect after the server closes a
// kept-alive connection (every 1000 requests) can race the old socket's close.
const CONNECTION_CAP = String(CONNECTIONS * 4);

function log(line: string): void {
  process.stderr.write(`bench wrk: ${line}\n`);
}


interface Target {
  readonly id: string;
  readonly label: string;
  readonly path: string;
  readonly port: number;
  /** The processes whose CPU is the server's (chaos and its redis-server for the Redis row). */
  readonly pids: readonly number[];
}

interface Run {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuMicrosPerRequest: number;
  /** CPU other processes took during the run, as a share of every core's capacity. */
  readonly othersShare: number;
  /** cpuProbeMs on the server core just before the run. */
  readonly probeMs: number;
  readonly errors: number;
}

/** A run whose probe took this much longer than the suite's fastest probe ran on a slowed core. */
const SLOWED_FACTOR = 1.2;

interface Comparison {
  readonly label: string;
  readonly of: string;
  readonly over: string;
  readonly atLeast: number;
}

const COMPARISONS: readonly Comparison[] = [
  { label: 'chaos /bytes ÷ minimal node:net', of: 'chaos-bytes', over: 'net', atLeast: 0.8 },
  { label: 'chaos /status/200 ÷ minimal node:net', of: 'chaos-status', over: 'net', atLeast: 0.8 },
  { label: 'chaos /status/200 ÷ go-httpbin /status/200', of: 'chaos-status', over: 'go-status', atLeast: 1.5 },
  { label: 'chaos /bytes ÷ go-httpbin /bytes/1024', of: 'chaos-bytes', over: 'go-bytes', atLeast: 1.5 },
  { label: 'chaos on Redis ÷ chaos in memory (/status/200)', of: 'chaos-redis-status', over: 'chaos-status', atLeast: 0.8 },
  { label: 'control /status/200 ÷ minimal node:http', of: 'control-status', over: 'http-status', atLeast: 0.9 },
  { label: 'control /bytes ÷ minimal node:http', of: 'control-bytes', over: 'http-bytes', atLeast: 0.9 },
  { label: 'bots /robots.txt ÷ minimal node:http', of: 'bots-robots', over: 'http-robots', atLeast: 0.9 },
];

/**
 * Where the gap to the minimal node:net responder lies (no target): the chaos
 * transport alone (bench/chaos-floor.ts) against it, and chaos against that
 * floor, which is what routing, parameters, the limiter, metrics and the head cost.
 */
const FLOOR_COMPARISONS: readonly Omit<Comparison, 'atLeast'>[] = [
  { label: 'chaos transport floor ÷ minimal node:net (the ceiling for chaos ÷ minimal)', of: 'chaos-floor', over: 'net' },
  { label: 'chaos /status/200 ÷ chaos transport floor', of: 'chaos-status', over: 'chaos-floor' },
  { label: 'chaos /bytes ÷ chaos transport floor', of: 'chaos-bytes', over: 'chaos-floor' },
  {
    label: 'node:http with control /status/200\'s header lines ÷ minimal node:http (the ceiling for control ÷ minimal)',
    of: 'lines-status',
    over: 'http-status',
  },
  { label: 'control /status/200 ÷ node:http with its header lines', of: 'control-status', over: 'lines-status' },
  { label: 'node:http with bots /robots.txt\'s header lines ÷ minimal node:http (the ceiling for bots ÷ minimal)', of: 'lines-robots', over: 'http-robots' },
  { label: 'bots /robots.txt ÷ node:http with its header lines', of: 'bots-robots', over: 'lines-robots' },
];

/** This build over the BENCH_BEFORE_DIST build, when one is given (no target: the change's effect). */
const BEFORE_COMPARISONS: readonly Omit<Comparison, 'atLeast'>[] = [
  { label: 'chaos /status/200, this build ÷ before', of: 'chaos-status', over: 'before-chaos-status' },
  { label: 'chaos /bytes, this build ÷ before', of: 'chaos-bytes', over: 'before-chaos-bytes' },
  { label: 'control /status/200, this build ÷ before', of: 'control-status', over: 'before-control-status' },
  { label: 'bots /robots.txt, this build ÷ before', of: 'bots-robots', over: 'before-bots-robots' },
];

function measure(target: Target): Run {
  const probeMs = cpuProbeMs(SERVER_CORE);
  const cpuBefore = target.pids.reduce((n, pid) => n + cpuSeconds(pid), 0);
  // Only the server under test (and wrk, and this runner) are ours: a server waiting for its turn that
  // stays busy meanwhile is a neighbour like any other.
  const quiet = new Quietness(() => target.pids);
  quiet.start();
  const result = wrk({ url: `http://127.0.0.1:${target.port}${target.path}`, connections: CONNECTIONS, seconds: SECONDS, core: CLIENT_CORE });
  const othersShare = quiet.share();
  const cpu = target.pids.reduce((n, pid) => n + cpuSeconds(pid), 0) - cpuBefore;
  return {
    requestsPerSecond: result.requestsPerSecond,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    cpuMicrosPerRequest: result.requests > 0 ? (cpu * 1e6) / result.requests : Number.NaN,
    othersShare,
    probeMs,
    errors: result.socketErrors + result.non2xx,
  };
}

const percent = (share: number): string => `${(share * 100).toFixed(0)} %`;

async function main(): Promise<void> {
  const servers: (Child | Peer)[] = [];
  const started = <T extends Child | Peer>(server: T): T => {
    servers.push(server);
    return server;
  };
  try {
    const on = { core: SERVER_CORE };
    const common = { LOG_LEVEL: 'warn', RATE_LIMIT_GENERAL: NO_LIMIT, MAX_CONNECTIONS_PER_IP: CONNECTION_CAP };
    log(`starting servers on core ${SERVER_CORE}`);
    const redis = started(await startRedis(SERVER_CORE));
    const chaos = started(await forkServer(CHAOS_MAIN, { ...common, CHAOS_PORT: '0', METRICS_PORT: String(await freePort()) }, on));
    const chaosRedis = started(
      await forkServer(
        CHAOS_MAIN,
        { ...common, CHAOS_PORT: '0', METRICS_PORT: String(await freePort()), REDIS_URL: `redis://127.0.0.1:${redis.port}`, REDIS_PREFIX: 'bench:' },
        on,
      ),
    );
    const control = started(await forkServer('services/control/main.js', { ...common, CONTROL_PORT: '0', METRICS_PORT: String(await freePort()) }, on));
    const bots = started(await forkServer('services/bots/main.js', { ...common, BOTS_PORT: '0', METRICS_PORT: String(await freePort()) }, on));

    // The baselines put the same bytes on the wire as what they are compared with:
    // node:net replays chaos /bytes whole; node:http sends the same bodies and types.
    const netCanned = await captureResponse(chaos.port, '/bytes?n=1024&mode=wrong-content-type');
    const minimalNet = started(await forkServer('bench/minimal-responder.js', { MINIMAL_RESPONSE_B64: netCanned.toString('base64') }, on));
    const chaosFloor = started(await forkServer('bench/chaos-floor.js', { MINIMAL_RESPONSE_B64: netCanned.toString('base64') }, on));
    const routes: Record<string, CannedBody> = {};
    const routesWithLines: Record<string, CannedBody> = {};
    for (const [server, path] of [
      [control, '/status/200'],
      [control, '/bytes?n=1024'],
      [bots, '/robots.txt'],
    ] as const) {
      const { plain, withLines } = await cannedFrom(server.port, path);
      routes[path] = plain;
      routesWithLines[path] = withLines;
    }
    const minimalHttp = started(await forkServer('bench/minimal-http.js', { MINIMAL_HTTP_ROUTES: JSON.stringify(routes) }, on));
    // The same, sending every header line control and bots sent (X-Chaos-* included): node:http's floor for those answers.
    const linesHttp = started(await forkServer('bench/minimal-http.js', { MINIMAL_HTTP_ROUTES: JSON.stringify(routesWithLines) }, on));

    const before = BEFORE_DIST
      ? {
          chaos: started(await forkServer(`${BEFORE_DIST}/services/chaos/main.js`, { ...common, CHAOS_PORT: '0', METRICS_PORT: String(await freePort()) }, on)),
          control: started(await forkServer(`${BEFORE_DIST}/services/control/main.js`, { ...common, CONTROL_PORT: '0', METRICS_PORT: String(await freePort()) }, on)),
          bots: started(await forkServer(`${BEFORE_DIST}/services/bots/main.js`, { ...common, BOTS_PORT: '0', METRICS_PORT: String(await freePort()) }, on)),
        }
      : undefined;

    const goBinary = goHttpbinPath();
    const go = goBinary ? started(await startGoHttpbin(goBinary, SERVER_CORE)) : undefined;
    if (!go) log('go-httpbin not found (BENCH_GO_HTTPBIN, ../shared/peers/go-httpbin or PATH): its rows are left out');

    const allTargets: Target[] = [
      { id: 'net', label: 'minimal node:net', path: '/', port: minimalNet.port, pids: [minimalNet.pid] },
      { id: 'chaos-floor', label: 'chaos transport floor (canned answer)', path: '/', port: chaosFloor.port, pids: [chaosFloor.pid] },
      { id: 'chaos-status', label: 'chaos', path: '/status/200', port: chaos.port, pids: [chaos.pid] },
      { id: 'chaos-bytes', label: 'chaos', path: '/bytes?n=1024&mode=wrong-content-type', port: chaos.port, pids: [chaos.pid] },
      { id: 'chaos-redis-status', label: 'chaos, Redis store (+ redis-server CPU)', path: '/status/200', port: chaosRedis.port, pids: [chaosRedis.pid, redis.pid] },
      { id: 'http-status', label: 'minimal node:http', path: '/status/200', port: minimalHttp.port, pids: [minimalHttp.pid] },
      { id: 'http-bytes', label: 'minimal node:http', path: '/bytes?n=1024', port: minimalHttp.port, pids: [minimalHttp.pid] },
      { id: 'http-robots', label: 'minimal node:http', path: '/robots.txt', port: minimalHttp.port, pids: [minimalHttp.pid] },
      { id: 'lines-status', label: 'minimal node:http, same header lines', path: '/status/200', port: linesHttp.port, pids: [linesHttp.pid] },
      { id: 'lines-robots', label: 'minimal node:http, same header lines', path: '/robots.txt', port: linesHttp.port, pids: [linesHttp.pid] },
      { id: 'control-status', label: 'control', path: '/status/200', port: control.port, pids: [control.pid] },
      { id: 'control-bytes', label: 'control', path: '/bytes?n=1024', port: control.port, pids: [control.pid] },
      { id: 'bots-robots', label: 'bots', path: '/robots.txt', port: bots.port, pids: [bots.pid] },
      ...(before
        ? [
            { id: 'before-chaos-status', label: 'chaos, before', path: '/status/200', port: before.chaos.port, pids: [before.chaos.pid] },
            { id: 'before-chaos-bytes', label: 'chaos, before', path: '/bytes?n=1024&mode=wrong-content-type', port: before.chaos.port, pids: [before.chaos.pid] },
            { id: 'before-control-status', label: 'control, before', path: '/status/200', port: before.control.port, pids: [before.control.pid] },
            { id: 'before-bots-robots', label: 'bots, before', path: '/robots.txt', port: before.bots.port, pids: [before.bots.pid] },
          ]
        : []),
      ...(go
        ? [
            { id: 'go-status', label: 'go-httpbin', path: '/status/200', port: go.port, pids: [go.pid] },
            { id: 'go-bytes', label: 'go-httpbin', path: '/bytes/1024', port: go.port, pids: [go.pid] },
          ]
        : []),
    ];
    const unknown = ONLY ? [...ONLY].filter((id) => !allTargets.some((t) => t.id === id)) : [];
    if (unknown.length > 0) throw new Error(`BENCH_ONLY: no row ${unknown.join(', ')} in this run; the ids are ${allTargets.map((t) => t.id).join(', ')}`);
    const targets = ONLY ? allTargets.filter((t) => ONLY.has(t.id)) : allTargets;
    for (const t of targets) {
      log(`warming up ${t.label} ${t.path}`);
      wrk({ url: `http://127.0.0.1:${t.port}${t.path}`, connections: CONNECTIONS, seconds: WARM_SECONDS, core: CLIENT_CORE });
    }
    // Round-robin, the order reversed every other round (A B C, C B A, …): a neighbour's burst lands on
    // every target alike, and a slow drift of the host favours no target of a pair.
    const runs = new Map<string, Run[]>(targets.map((t) => [t.id, []]));
    const loads: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const t of round % 2 === 1 ? targets : [...targets].reverse()) {
        const run = measure(t);
        runs.get(t.id)?.push(run);
        log(
          `round ${round}/${ROUNDS} ${t.label} ${t.path}: ${Math.round(run.requestsPerSecond)} req/s, ` +
            `${run.cpuMicrosPerRequest.toFixed(1)} µs/req, others took ${percent(run.othersShare)}, probe ${run.probeMs.toFixed(0)} ms`,
        );
      }
      loads.push(loadAverage());
    }
    report(targets, runs, loads, go !== undefined);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

function report(targets: readonly Target[], runs: Map<string, Run[]>, loads: readonly string[], withGo: boolean): void {
  const out: string[] = [];
  const summary = (id: string): { rps: number; cpu: number } | undefined => {
    const list = runs.get(id);
    return list && list.length > 0 ? { rps: median(list.map((r) => r.requestsPerSecond)), cpu: median(list.map((r) => r.cpuMicrosPerRequest)) } : undefined;
  };
  out.push(
    `machine: ${CORES} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}; chaos entry: ${CHAOS_MAIN}` +
      (BEFORE_DIST ? `; before: ${BEFORE_DIST}` : ''),
    '',
    `Throughput: wrk -t1 -c${CONNECTIONS} -d${SECONDS}s --latency on core ${CLIENT_CORE}; every server started under taskset -c ${SERVER_CORE}; ` +
      `${ROUNDS} interleaved rounds, each figure the MEDIAN of the rounds (a ${WARM_SECONDS} s unrecorded warm-up per target first).`,
    `Services run as users run them: per-IP limiter on (in-memory store, RATE_LIMIT_GENERAL=${NO_LIMIT}: no 429s), metrics on ` +
      `(METRICS_PORT set, nothing scraping), MAX_CONNECTIONS_PER_IP=${CONNECTION_CAP}, LOG_LEVEL=warn; the Redis row adds REDIS_URL ` +
      `(a redis-server on core ${SERVER_CORE}, --save '' --appendonly no) and counts redis-server's CPU with chaos's.`,
    `"others" = CPU that processes other than the one under test took during the run (/proc/stat busy time minus the measured server's, ` +
      `wrk's and the runner's; the servers waiting for their turn count as others), as a share of ${CORES} cores; a run above ${percent(NOISY_SHARE)} is marked noisy.`,
    `"probe" = a fixed CPU loop timed on core ${SERVER_CORE} just before each run; a run whose probe took more than ${SLOWED_FACTOR}× the fastest ` +
      `probe of the suite is marked slowed (a virtual machine's core can slow down with no process of ours busy; every server's CPU per request grows with it).`,
    '',
  );
  const all = [...runs.values()].flat();
  const fastestProbe = Math.min(...all.map((r) => r.probeMs));
  const slowed = (r: Run): boolean => r.probeMs > SLOWED_FACTOR * fastestProbe;
  const marks = (r: Run): string =>
    `${percent(r.othersShare)}${r.othersShare > NOISY_SHARE ? ' noisy' : ''}${slowed(r) ? `, slowed ×${(r.probeMs / fastestProbe).toFixed(1)}` : ''}`;
  const rows: string[][] = [['target', 'path', 'req/s (median)', 'each run: req/s (others; slowed)', 'p50 / p99 ms (median)', 'server CPU µs/req (median)', 'errors']];
  for (const t of targets) {
    const list = runs.get(t.id) ?? [];
    const s = summary(t.id);
    if (!s) continue;
    rows.push([
      t.label,
      t.path,
      String(Math.round(s.rps)),
      list.map((r) => `${Math.round(r.requestsPerSecond)} (${marks(r)})`).join(' / '),
      `${median(list.map((r) => r.p50Ms)).toFixed(2)} / ${median(list.map((r) => r.p99Ms)).toFixed(2)}`,
      s.cpu.toFixed(1),
      String(list.reduce((n, r) => n + r.errors, 0)),
    ]);
  }
  out.push(table(rows), '');
  const noisy = all.filter((r) => r.othersShare > NOISY_SHARE).length;
  const probes = all.map((r) => r.probeMs);
  out.push(
    `noisy runs: ${noisy} of ${all.length}; slowed runs: ${all.filter(slowed).length} of ${all.length} ` +
      `(probe ms min / median / max: ${fastestProbe.toFixed(0)} / ${median(probes).toFixed(0)} / ${Math.max(...probes).toFixed(0)}); ` +
      `load average (1/5/15 min) after each round: ${loads.join('; ')}`,
  );
  if (all.some(slowed)) out.push('Slowed runs measure the host as much as the server: a ratio is only as good as the rounds in which neither side was slowed.');
  out.push('');
  out.push('Targets (median ÷ median; in brackets: server CPU per request, the other ÷ this, which the client cannot skew):');
  for (const c of COMPARISONS) {
    const of = summary(c.of);
    const over = summary(c.over);
    if (!of || !over) {
      if (!withGo && c.over.startsWith('go-')) continue;
      out.push(`- ${c.label}: not measured`);
      continue;
    }
    const ratio = of.rps / over.rps;
    out.push(
      `- ${c.label}: ${ratio.toFixed(2)}× (target ≥ ${c.atLeast}×): ${ratio >= c.atLeast ? 'met' : 'NOT MET'} ` +
        `(CPU/req ${(over.cpu / of.cpu).toFixed(2)}×)`,
    );
  }
  /** Ratios without a target, for the pairs measured. */
  const ratios = (comparisons: readonly Omit<Comparison, 'atLeast'>[]): void => {
    for (const c of comparisons) {
      const of = summary(c.of);
      const over = summary(c.over);
      if (of && over) out.push(`- ${c.label}: ${(of.rps / over.rps).toFixed(2)}× (CPU/req ${(over.cpu / of.cpu).toFixed(2)}×)`);
    }
  };
  out.push('', 'Where the gap lies (median ÷ median, no target; CPU per request, the other ÷ this, in brackets):');
  ratios(FLOOR_COMPARISONS);
  if (BEFORE_DIST) {
    out.push('', `Before and after (BENCH_BEFORE_DIST=${BEFORE_DIST}; median ÷ median, CPU per request before ÷ after in brackets):`);
    ratios(BEFORE_COMPARISONS);
    out.push(
      '',
      'Before and after, paired round by round (the median of each round\'s ratio; "CPU/probe" divides each run\'s CPU per request ' +
        'by its probe, so a core that slowed between the two runs of a round does not count as the server\'s cost):',
    );
    for (const c of BEFORE_COMPARISONS) {
      const of = runs.get(c.of) ?? [];
      const over = runs.get(c.over) ?? [];
      const rounds = Math.min(of.length, over.length);
      if (rounds === 0) continue;
      const pairs = Array.from({ length: rounds }, (_, i) => [of[i] as Run, over[i] as Run] as const);
      const rps = pairs.map(([a, b]) => a.requestsPerSecond / b.requestsPerSecond);
      const cpu = pairs.map(([a, b]) => b.cpuMicrosPerRequest / b.probeMs / (a.cpuMicrosPerRequest / a.probeMs));
      const spread = (list: readonly number[]): string => `${Math.min(...list).toFixed(2)}–${Math.max(...list).toFixed(2)}`;
      out.push(
        `- ${c.label}: req/s ${median(rps).toFixed(2)}× (rounds ${spread(rps)}), CPU/probe before ÷ after ${median(cpu).toFixed(2)}× ` +
          `(rounds ${spread(cpu)}), ${rounds} rounds`,
      );
    }
  }
  const errors = all.reduce((n, r) => n + r.errors, 0);
  if (errors > 0) out.push(`warning: ${errors} socket errors or non-2xx responses in all (see the errors column)`);
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
