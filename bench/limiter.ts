// The per-IP limiter's cost: one cheap chaos endpoint (/status/200) served by
// three chaos processes side by side in one run, interleaved: limiter off
// (RATE_LIMIT_GENERAL=0), in-memory limiter, Redis limiter (a redis-server on
// a free loopback port, started here). Limits are set high enough that no run
// is refused, so the whole cost of asking is measured. Reports req/s
// (autocannon), server CPU per request, and the latency of one request at a
// time on a keep-alive connection (p50/p99: autocannon mis-times responses
// after a server-closed keep-alive connection, see README.md). Bounded: about
// 60 s with the defaults. Knobs: BENCH_LIMITER_SECONDS (8), BENCH_ROUNDS (2),
// BENCH_CONNECTIONS (10), BENCH_LIMITER_PROBES (3000).
import { cpus, loadavg } from 'node:os';
import net from 'node:net';
import { cpuSeconds, envInt, forkServer, quantile, startRedis, type Child } from './lib.js';
import { measure, warmUp, type LoadOptions, type Target, type ThroughputSample } from './throughput.js';

const PATH = '/status/200';
const TARGET_RATIO = 0.8;
const MODES = ['off', 'memory', 'redis'] as const;
type Mode = (typeof MODES)[number];

const load: LoadOptions = {
  connections: envInt('BENCH_CONNECTIONS', 10),
  durationSeconds: envInt('BENCH_LIMITER_SECONDS', 8),
  pipelining: 1,
};
const rounds = envInt('BENCH_ROUNDS', 2);
const probes = envInt('BENCH_LIMITER_PROBES', 3000);

function log(line: string): void {
  process.stderr.write(`bench limiter: ${line}\n`);
}

/** One request at a time on a keep-alive connection (a new one when the server closes it): each latency in ms. */
async function latencies(port: number, n: number): Promise<number[]> {
  const out: number[] = [];
  const request = Buffer.from(`GET ${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, 'latin1');
  while (out.length < n) {
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect({ port, host: '127.0.0.1' });
      socket.setNoDelay(true);
      let buffer = Buffer.alloc(0);
      let start = 0;
      const send = (): void => {
        start = performance.now();
        socket.write(request);
      };
      socket.once('connect', send);
      socket.on('data', (chunk: Buffer) => {
        buffer = Buffer.concat([buffer, chunk]);
        const end = buffer.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = buffer.toString('latin1', 0, end);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        out.push(performance.now() - start);
        buffer = buffer.subarray(end + 4 + length);
        if (!/^HTTP\/1\.1 200 /.test(head)) {
          socket.destroy();
          reject(new Error(`unexpected answer: ${head.split('\r\n')[0]}`));
        } else if (/\r\nconnection: *close/i.test(head) || out.length >= n) {
          socket.destroy();
          resolve();
        } else {
          send();
        }
      });
      socket.once('error', reject);
      socket.once('close', () => resolve());
    });
  }
  return out;
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const line = (r: readonly string[]): string => `| ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const [header, ...body] = rows;
  if (!header) return '';
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

async function main(): Promise<void> {
  const redis = await startRedis();
  const servers = new Map<Mode, Child>();
  const samples = new Map<Mode, ThroughputSample[]>();
  const probed = new Map<Mode, number[]>();
  let redisCpu = 0;
  let redisRequests = 0;
  try {
    const base = { CHAOS_PORT: '0', LOG_LEVEL: 'warn' };
    servers.set('off', await forkServer('services/chaos/main.js', { ...base, RATE_LIMIT_GENERAL: '0' }));
    servers.set('memory', await forkServer('services/chaos/main.js', { ...base, RATE_LIMIT_GENERAL: '1000000000' }));
    servers.set(
      'redis',
      await forkServer('services/chaos/main.js', { ...base, RATE_LIMIT_GENERAL: '1000000000', REDIS_URL: `redis://127.0.0.1:${redis.port}`, REDIS_PREFIX: 'bench:' }),
    );
    const targets = new Map<Mode, Target>();
    for (const mode of MODES) {
      const child = servers.get(mode) as Child;
      targets.set(mode, { name: mode, pid: child.pid, url: `http://127.0.0.1:${child.port}${PATH}` });
    }
    for (const mode of MODES) {
      log(`warming up ${mode}`);
      await warmUp(targets.get(mode) as Target, load, 2);
    }
    for (let round = 1; round <= rounds; round++) {
      for (const mode of MODES) {
        log(`round ${round}/${rounds}: ${mode} for ${load.durationSeconds} s`);
        const redisBefore = mode === 'redis' && redis.process.pid ? cpuSeconds(redis.process.pid) : 0;
        const sample = await measure(targets.get(mode) as Target, load);
        if (mode === 'redis' && redis.process.pid) {
          redisCpu += cpuSeconds(redis.process.pid) - redisBefore;
          redisRequests += sample.requests;
        }
        log(`  ${Math.round(sample.requestsPerSecond)} req/s, ${sample.serverCpuMicrosPerRequest.toFixed(1)} µs server CPU/req, errors ${sample.errors + sample.non2xx}`);
        samples.set(mode, [...(samples.get(mode) ?? []), sample]);
      }
      for (const mode of MODES) {
        const list = await latencies((servers.get(mode) as Child).port, Math.ceil(probes / rounds));
        probed.set(mode, [...(probed.get(mode) ?? []), ...list]);
      }
    }
  } finally {
    for (const child of servers.values()) await child.stop();
    await redis.stop();
  }

  const best = (mode: Mode): ThroughputSample =>
    (samples.get(mode) ?? []).reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
  const leanest = (mode: Mode): number => Math.min(...(samples.get(mode) ?? []).map((s) => s.serverCpuMicrosPerRequest));
  const sorted = (mode: Mode): number[] => [...(probed.get(mode) ?? [])].sort((a, b) => a - b);
  const off = best('off');
  const offP99 = quantile(sorted('off'), 0.99);
  const rows: string[][] = [
    ['limiter', 'req/s (best)', 'all runs', '÷ off', 'server CPU µs/req', 'one-at-a-time p50 / p99 ms', 'p99 added', 'server waited for CPU'],
  ];
  for (const mode of MODES) {
    const top = best(mode);
    const lat = sorted(mode);
    rows.push([
      mode,
      String(Math.round(top.requestsPerSecond)),
      (samples.get(mode) ?? []).map((s) => Math.round(s.requestsPerSecond)).join(' / '),
      `${(top.requestsPerSecond / off.requestsPerSecond).toFixed(2)}×`,
      leanest(mode).toFixed(1),
      `${quantile(lat, 0.5).toFixed(3)} / ${quantile(lat, 0.99).toFixed(3)}`,
      mode === 'off' ? '-' : `${(quantile(lat, 0.99) - offP99).toFixed(3)} ms`,
      (samples.get(mode) ?? []).map((s) => `${(s.serverRunQueueShare * 100).toFixed(0)} %`).join(' / '),
    ]);
    const errors = (samples.get(mode) ?? []).reduce((n, s) => n + s.errors + s.non2xx, 0);
    if (errors > 0) rows.push([`warning: ${mode} had ${errors} errors or non-2xx responses`]);
  }
  const ratio = best('redis').requestsPerSecond / off.requestsPerSecond;
  const perRound = (samples.get('redis') ?? []).map((s, i) => {
    const o = samples.get('off')?.[i];
    return o ? `${(s.requestsPerSecond / o.requestsPerSecond).toFixed(2)}×` : '-';
  });
  const [l1, l5] = loadavg();
  process.stdout.write(
    [
      `machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}, load average ${l1?.toFixed(2)} / ${l5?.toFixed(2)} (1 / 5 min) at the end`,
      '',
      `Limiter: GET ${PATH}, autocannon ${load.connections} connections, ${load.durationSeconds} s per run, best of ${rounds} interleaved rounds; ` +
        `latency: ${probes} requests one at a time on a keep-alive connection per limiter`,
      '',
      table(rows),
      '',
      `redis-server CPU: ${redisRequests > 0 ? ((redisCpu * 1e6) / redisRequests).toFixed(1) : '-'} µs per request (one EVALSHA each)`,
      `Redis limiter ÷ off (best ÷ best): ${ratio.toFixed(2)}× (target ≥ ${TARGET_RATIO}×): ${ratio >= TARGET_RATIO ? 'met' : 'MISSED'}; round by round: ${perRound.join(', ')}`,
      '',
    ].join('\n'),
  );
}

await main();
