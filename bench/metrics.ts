// The cost of metrics on the hot path (issue 11): the same chaos endpoint on
// two chaos processes in one run, one with its admin port and metrics on
// (METRICS_PORT), one without; servers pinned to core 0, wrk to core 1,
// rounds interleaved. Target: metrics on ≥ 0.9× metrics off. Beside req/s,
// the server's CPU time per request, which the load generator cannot skew.
// Run after `make build`: node dist/bench/metrics.js (about 1 minute).
import { cpuSeconds, envInt, forkServer, freePort, loadAverage, pin } from './lib.js';
import { wrk } from './wrk.js';

const ROUNDS = envInt('BENCH_ROUNDS', 3);
const SECONDS = envInt('BENCH_SECONDS', 8);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 10);
const PATH = '/drip?bytes=1024&chunk=4096';

const common = { CHAOS_PORT: '0', LOG_LEVEL: 'warn', RATE_LIMIT_GENERAL: '1000000000' };
const off = await forkServer('services/chaos/main.js', common);
const on = await forkServer('services/chaos/main.js', { ...common, METRICS_PORT: String(await freePort()) });
try {
  pin(off.pid, 0);
  pin(on.pid, 0);
  for (const server of [off, on]) wrk({ url: `http://127.0.0.1:${server.port}${PATH}`, connections: CONNECTIONS, seconds: 2, core: 1 });
  const runs = { off: [] as number[], on: [] as number[] };
  const cpu = { off: [] as number[], on: [] as number[] };
  const loads: string[] = [];
  /** One wrk run: req/s, and the server's CPU µs per request during it. */
  const measure = (name: 'off' | 'on', server: typeof off): void => {
    const before = cpuSeconds(server.pid);
    const rps = wrk({ url: `http://127.0.0.1:${server.port}${PATH}`, connections: CONNECTIONS, seconds: SECONDS, core: 1 }).requestsPerSecond;
    runs[name].push(rps);
    cpu[name].push(((cpuSeconds(server.pid) - before) * 1e6) / (rps * SECONDS));
  };
  for (let round = 0; round < ROUNDS; round++) {
    measure('off', off);
    measure('on', on);
    loads.push(loadAverage());
  }
  const best = (xs: number[]): number => Math.max(...xs);
  const least = (xs: number[]): number => Math.min(...xs);
  console.log(`\nMetrics on vs off, chaos ${PATH}, ${ROUNDS} interleaved rounds of ${SECONDS} s; server on core 0, wrk on core 1`);
  console.log('| chaos process | req/s (best) | all runs | on ÷ off | CPU µs per request (least) | all runs | on ÷ off |');
  console.log('|---|---|---|---|---|---|---|');
  const row = (label: string, name: 'off' | 'on'): string =>
    `| ${label} | ${Math.round(best(runs[name]))} | ${runs[name].map(Math.round).join(' / ')} | **${(best(runs[name]) / best(runs.off)).toFixed(2)}×** | ` +
    `${least(cpu[name]).toFixed(1)} | ${cpu[name].map((x) => x.toFixed(1)).join(' / ')} | **${(least(cpu[name]) / least(cpu.off)).toFixed(2)}×** |`;
  console.log(row('metrics off', 'off'));
  console.log(row('metrics on (METRICS_PORT)', 'on'));
  console.log(`load average (1/5/15 min) after each round: ${loads.join('; ')}`);
} finally {
  await Promise.all([off.stop(), on.stop()]);
}
