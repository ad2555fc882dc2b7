// Benchmarks of the infinite-content generator (bench/infinite/README.md):
//   gen   pages per second, generator called directly, one thread, distinct tails
//   rss   RSS and heap across 1,000,000 distinct URLs (sampled every 100k)
//   http  pages per second over HTTP against a forked control service
// Usage: node --expose-gc dist/bench/infinite/bench.js [gen|rss|http|all] [--quick]
import { fork } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { INFINITE_TYPES, renderInfinite, type InfiniteFormat } from '../../services/control/infinite/index.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const mode = args.find((a) => !a.startsWith('--')) ?? 'all';
const MB = 1024 * 1024;

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Runs `fn(i)` with fresh i for `ms` after a warm-up; returns calls per second and bytes per call. */
function rate(ms: number, fn: (i: number) => number): { perSecond: number; avgBytes: number } {
  let i = 0;
  const warm = performance.now() + Math.min(1000, ms / 3);
  while (performance.now() < warm) fn(i++);
  let bytes = 0;
  let n = 0;
  const start = performance.now();
  const end = start + ms;
  // Check the clock every 64 calls: performance.now() is not free.
  while (performance.now() < end) for (let k = 0; k < 64; k++, n++) bytes += fn(i++);
  return { perSecond: (n * 1000) / (performance.now() - start), avgBytes: bytes / n };
}

function benchGenerator(): void {
  const ms = quick ? 1500 : 5000;
  console.log(`\n# generator, one thread, ${ms / 1000} s per row, distinct tails`);
  console.log('format  type        pages/s   avg bytes  µs/page');
  const row = (format: InfiniteFormat, type: (typeof INFINITE_TYPES)[number]): void => {
    const r = rate(ms, (i) => renderInfinite(format, type, `bench/${i}`).body.length);
    console.log(`${format.padEnd(7)} ${type.padEnd(9)} ${r.perSecond.toFixed(0).padStart(9)} ${r.avgBytes.toFixed(0).padStart(10)} ${(1e6 / r.perSecond).toFixed(1).padStart(8)}`);
  };
  row('html', 'users');
  for (const format of ['html', 'json'] as const) for (const type of INFINITE_TYPES) if (!(format === 'html' && type === 'users')) row(format, type);
}

function benchRss(): void {
  const total = quick ? 200_000 : 1_000_000;
  const every = quick ? 20_000 : 100_000;
  const limitMs = 300_000;
  console.log(`\n# RSS across ${total.toLocaleString('en')} distinct URLs (all formats and types in turn), sampled every ${every.toLocaleString('en')}`);
  console.log('urls        rss MB  heapUsed MB  elapsed s');
  const combos = (['html', 'json'] as const).flatMap((f) => INFINITE_TYPES.map((t) => [f, t] as const));
  const start = performance.now();
  const sample = (n: number): number => {
    gc();
    const m = process.memoryUsage();
    console.log(`${n.toLocaleString('en').padStart(9)} ${(m.rss / MB).toFixed(1).padStart(9)} ${(m.heapUsed / MB).toFixed(1).padStart(12)} ${((performance.now() - start) / 1000).toFixed(1).padStart(10)}`);
    return m.rss;
  };
  const rss: number[] = [sample(0)];
  for (let i = 1; i <= total; i++) {
    const [format, type] = combos[i % combos.length] as (typeof combos)[number];
    renderInfinite(format, type, `rss/${i}/${i.toString(36)}`);
    if (i % every === 0) {
      rss.push(sample(i));
      if (performance.now() - start > limitMs) {
        console.log(`stopped at ${i.toLocaleString('en')} URLs: the ${limitMs / 1000} s bound`);
        break;
      }
    }
  }
  const afterFirst = rss.slice(1);
  console.log(`RSS after the first sample: min ${(Math.min(...afterFirst) / MB).toFixed(1)} MB, max ${(Math.max(...afterFirst) / MB).toFixed(1)} MB`);
}

function get(agent: http.Agent, port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`${path}: ${res.statusCode}`))));
      })
      .on('error', reject);
  });
}

async function benchHttp(): Promise<void> {
  const seconds = quick ? 3 : 10;
  const connections = 16;
  const main = fileURLToPath(new URL('../../services/control/main.js', import.meta.url));
  const child = fork(main, [], {
    env: { PATH: process.env.PATH ?? '', CONTROL_PORT: '0', LOG_LEVEL: 'silent', RATE_LIMIT_INFINITE: '0', RATE_LIMIT_GENERAL: '0' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.on('message', (m: { type?: string; port?: number }) => m.type === 'ready' && resolve(m.port as number));
      child.once('exit', (code) => reject(new Error(`control exited ${code}`)));
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
    let n = 0;
    let i = 0;
    const end = performance.now() + seconds * 1000;
    const worker = async (): Promise<void> => {
      while (performance.now() < end) {
        await get(agent, port, `/infinite/html/users/http/${i++}`);
        n++;
      }
    };
    const start = performance.now();
    await Promise.all(Array.from({ length: connections }, worker));
    const elapsed = (performance.now() - start) / 1000;
    console.log(`\n# HTTP: /infinite/html/users/<distinct>, ${connections} keep-alive connections, ${seconds} s, one control process`);
    console.log(`${(n / elapsed).toFixed(0)} pages/s (${n} pages; client and server share the machine)`);
    agent.destroy();
  } finally {
    child.kill('SIGTERM');
  }
}

console.log(`node ${process.version}, ${quick ? 'quick' : 'full'} run, gc ${(globalThis as { gc?: unknown }).gc ? 'exposed' : 'not exposed'}`);
if (mode === 'gen' || mode === 'all') benchGenerator();
if (mode === 'rss' || mode === 'all') benchRss();
if (mode === 'http' || mode === 'all') await benchHttp();
