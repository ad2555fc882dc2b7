// This build's chaos host beside another build's (BENCH_BEFORE_DIST) at the
// same moment, on the same core: both servers pinned to the server core, two
// wrk (one per server) on the client core, started together. While both are
// busy the kernel shares the core between them, so a change of the core's
// speed (a virtual machine's core slows with no process of ours busy; see the
// wrk suite's probe) falls on both alike, and the ratio of what each served
// is the ratio of their costs. The wrk suite runs them one after the other,
// which this machine's core cannot be trusted to do alike.
// Run after `make build`: BENCH_BEFORE_DIST=<other build>/dist node dist/bench/paired.js
import { cpus } from 'node:os';
import { cpuSeconds, envInt, forkServer, freePort, loadAverage, markdownTable, type Child } from './lib.js';
import { wrkAsync, type WrkResult } from './wrk.js';

const SECONDS = envInt('BENCH_SECONDS', 5);
const ROUNDS = envInt('BENCH_ROUNDS', 6);
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

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
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

async function main(): Promise<void> {
  if (!BEFORE_DIST) throw new Error('BENCH_BEFORE_DIST: the dist/ folder of the build to compare with');
  const after = await startChaos('services/chaos/main.js');
  const before = await startChaos(`${BEFORE_DIST}/services/chaos/main.js`);
  try {
    const rows = [['path', 'rounds: this ÷ before, requests served', 'median', 'CPU µs/req this / before (median)', 'errors']];
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
        process.stderr.write(`bench paired: ${path} round ${round + 1}/${ROUNDS}: ${a.requests} / ${b.requests} requests\n`);
      }
      rows.push([
        path,
        ratios.map((r) => `${r.toFixed(3)}×`).join(' '),
        `${median(ratios).toFixed(3)}×`,
        `${median(cpu[0]).toFixed(1)} / ${median(cpu[1]).toFixed(1)}`,
        String(errors),
      ]);
    }
    process.stdout.write(
      `machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}; before: ${BEFORE_DIST}\n` +
        `both chaos servers on core ${SERVER_CORE} at once, one wrk -t1 -c${CONNECTIONS} -d${SECONDS}s each on core ${CLIENT_CORE}; ` +
        `${ROUNDS} rounds per path after a warm-up; load average after: ${loadAverage()}\n\n${markdownTable(rows)}\n`,
    );
  } finally {
    await Promise.all([after.stop(), before.stop()]);
  }
}

await main();
