// The cost of metrics on the hot path (issue 11): the same chaos endpoint on
// two chaos processes in one run, one with its admin port and metrics on
// (METRICS_PORT), one without; servers pinned to core 0, wrk to core 1,
// rounds interleaved. Target: metrics on ≥ 0.9× metrics off.
// Run after `make build`: node dist/bench/metrics.js (about 1 minute).
import { envInt, forkServer } from './lib.js';
import { loadAverage, pin, wrk } from './front-door.js';
import { freeLoopbackPorts } from '../services/supervisor.js';

const ROUNDS = envInt('BENCH_ROUNDS', 3);
const PATH = '/drip?bytes=1024&chunk=4096';

/** A loopback port that was free a moment ago (the supervisor's own pick). */
async function freePort(): Promise<number> {
  return (await freeLoopbackPorts(1))[0] as number;
}

const common = { CHAOS_PORT: '0', LOG_LEVEL: 'warn', RATE_LIMIT_GENERAL: '1000000000' };
const off = await forkServer('services/chaos/main.js', common);
const on = await forkServer('services/chaos/main.js', { ...common, METRICS_PORT: String(await freePort()) });
try {
  pin(off.pid, 0);
  pin(on.pid, 0);
  for (const server of [off, on]) wrk(`http://127.0.0.1:${server.port}${PATH}`, undefined, 2);
  const runs = { off: [] as number[], on: [] as number[] };
  const loads: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    runs.off.push(wrk(`http://127.0.0.1:${off.port}${PATH}`, undefined).rps);
    runs.on.push(wrk(`http://127.0.0.1:${on.port}${PATH}`, undefined).rps);
    loads.push(loadAverage());
  }
  const best = (xs: number[]): number => Math.max(...xs);
  console.log(`\nMetrics on vs off, chaos ${PATH}, ${ROUNDS} interleaved rounds; server on core 0, wrk on core 1`);
  console.log('| chaos process | req/s (best) | all runs | on ÷ off |');
  console.log('|---|---|---|---|');
  console.log(`| metrics off | ${Math.round(best(runs.off))} | ${runs.off.map(Math.round).join(' / ')} | 1.00× |`);
  console.log(`| metrics on (METRICS_PORT) | ${Math.round(best(runs.on))} | ${runs.on.map(Math.round).join(' / ')} | **${(best(runs.on) / best(runs.off)).toFixed(2)}×** |`);
  console.log(`load average (1/5/15 min) after each round: ${loads.join('; ')}`);
} finally {
  await Promise.all([off.stop(), on.stop()]);
}
