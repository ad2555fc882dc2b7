// This build's chaos host beside another build's (BENCH_BEFORE_DIST) at the
// same moment, on the same core: both servers pinned to the server core, two
// wrk (one per server) on the client core, started together. While both are
// busy the kernel shares the core between them, so a change of the core's
// speed (a virtual machine's core slows with no process of ours busy; see the
// wrk suite's probe) falls on both alike, and the ratio of what each served
// is the ratio of their costs. The wrk suite runs them one after the other,
// which this machine's core cannot be trusted to do alike. Each pair is a
// fresh pair of processes: the ratio is the median over the pairs.
// Run after `make build`: BENCH_BEFORE_DIST=<other build>/dist node dist/bench/paired.js
import { cpus } from 'node:os';
import { cpuSeconds, envInt, forkServer, freePort, loadAverage, markdownTable, median, type Child } from './lib.js';
import { wrkAsync, type WrkResult } from './wrk.js';

const SECONDS = envInt('BENCH_SECONDS', 5);
const ROUNDS = envInt('BENCH_ROUNDS', 3);
// A process keeps its speed for its life but two launches of one build differ (measured: up to 1.2x), so the
// ratio is taken over several fresh pairs.
const PAIRS = envInt('BENCH_PAIRS', 6);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 32);
const SERVER_CORE = envInt('BENCH_SERVER_CORE', 0, 0);
const CLIENT_CORE = envInt('BENCH_CLIENT_CORE', 1, 0);
const BEFORE_DIST = process.env.BENCH_BEFORE_DIST;
const PATHS = ['/status/200', '/bytes?n=1024&mode=wrong-content-type'] as const;
const NO_LIMIT = '1000000000';

interface Side {
  readonly requests: number;
  readonly cpuMicrosPerRequest: number;
  readonly errors: number;
}

async function startChaos(main: string): Promise<Child> {
  const env = { LOG_LEVEL: 'warn', RATE_LIMIT_GENERAL: NO_LIMIT, MAX_CONNECTIONS_PER_IP: String(CONNECTIONS * 4), CHAOS_PORT: '0', METRICS_PORT: String(await freePort()) };
  return forkServer(main, env, { core: SERVER_CORE });
}

/** Both servers under load at once for SECONDS: what each served and its CPU per request. */
async function together(servers: readonly [Child, Child], path: string): Promise<[Side, Side]> {
  const cpuBefore = servers.map((s) => cpuSeconds(s.pid));
  const results: WrkResult[] = await Promise.all(
    servers.map((s) => wrkAsync({ url: `http://127.0.0.1:${s.port}${path}`, connections: CONNECTIONS, seconds: SECONDS, core: CLIENT_CORE })),
  );
  return servers.map((s, i) => {
    const r = results[i] as WrkResult;
    const cpu = cpuSeconds(s.pid) - (cpuBefore[i] as number);
    return { requests: r.requests, cpuMicrosPerRequest: (cpu * 1e6) / r.requests, errors: r.socketErrors + r.non2xx };
  }) as [Side, Side];
}

/** One fresh pair of processes: per path, the median of its rounds' ratios and CPU per request. */
async function onePair(index: number): Promise<Map<string, { ratio: number; cpu: [number, number]; errors: number }>> {
  // Which build starts first alternates, so neither always gets the earlier (or later) address space and core time.
  const first = await startChaos(index % 2 === 0 ? 'services/chaos/main.js' : `${BEFORE_DIST}/services/chaos/main.js`);
  const second = await startChaos(index % 2 === 0 ? `${BEFORE_DIST}/services/chaos/main.js` : 'services/chaos/main.js');
  const [after, before] = index % 2 === 0 ? [first, second] : [second, first];
  const out = new Map<string, { ratio: number; cpu: [number, number]; errors: number }>();
  try {
    for (const path of PATHS) {
      await together([after, before], path); // warm-up, not recorded
      const ratios: number[] = [];
      const cpu: [number[], number[]] = [[], []];
      let errors = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const [a, b] = await together([after, before], path);
        ratios.push(a.requests / b.requests);
        cpu[0].push(a.cpuMicrosPerRequest);
        cpu[1].push(b.cpuMicrosPerRequest);
        errors += a.errors + b.errors;
      }
      out.set(path, { ratio: median(ratios), cpu: [median(cpu[0]), median(cpu[1])], errors });
      process.stderr.write(`bench paired: pair ${index + 1}/${PAIRS} ${path}: ${ratios.map((r) => r.toFixed(3)).join(' ')}\n`);
    }
  } finally {
    await Promise.all([after.stop(), before.stop()]);
  }
  return out;
}

async function main(): Promise<void> {
  if (!BEFORE_DIST) throw new Error('BENCH_BEFORE_DIST: the dist/ folder of the build to compare with');
  const pairs: Awaited<ReturnType<typeof onePair>>[] = [];
  for (let i = 0; i < PAIRS; i++) pairs.push(await onePair(i));
  const rows = [['path', 'each pair: this ÷ before, requests served (median of its rounds)', 'median of pairs', 'CPU µs/req this / before (median)', 'errors']];
  for (const path of PATHS) {
    const results = pairs.map((p) => p.get(path)).filter((r) => r !== undefined);
    rows.push([
      path,
      results.map((r) => `${r.ratio.toFixed(3)}×`).join(' '),
      `${median(results.map((r) => r.ratio)).toFixed(3)}×`,
      `${median(results.map((r) => r.cpu[0])).toFixed(1)} / ${median(results.map((r) => r.cpu[1])).toFixed(1)}`,
      String(results.reduce((n, r) => n + r.errors, 0)),
    ]);
  }
  process.stdout.write(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}; before: ${BEFORE_DIST}\n` +
      `${PAIRS} fresh pairs of processes; in each, both chaos servers on core ${SERVER_CORE} at once, one wrk -t1 -c${CONNECTIONS} -d${SECONDS}s each ` +
      `on core ${CLIENT_CORE}, ${ROUNDS} rounds per path after a warm-up; load average after: ${loadAverage()}\n\n${markdownTable(rows)}\n`,
  );
}

await main();
