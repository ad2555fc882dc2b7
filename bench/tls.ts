// TLS chaos beside a minimal node:https server (issue 26): new TLS connections
// per second (handshake, one request, close) and requests per second over
// kept connections, on the `good` mode, each server a child process, the same
// kind of certificate (an ECDSA P-256 leaf from the same test intermediate,
// sent with it). Run: `node dist/bench/tls.js` (BENCH_SECONDS, BENCH_CONCURRENCY).
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../shared/config/config.js';
import { TlsMaterial } from '../shared/tls/material.js';
import { envInt, forkServer, sleep } from './lib.js';
import { freeLoopbackPorts } from '../services/supervisor.js';

const HOST = 'good.tls.localhost';

/** The minimal server: node:https answering every request with a small body (BENCH_TLS_KEY, BENCH_TLS_CERT). */
function serveMinimal(): void {
  const body = Buffer.from('{"status":200}\n');
  const server = https.createServer({ key: process.env.BENCH_TLS_KEY, cert: process.env.BENCH_TLS_CERT }, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 });
  });
}

interface Rate {
  readonly perSecond: number;
  readonly errors: number;
}

/** `concurrency` loops of one request each, for `seconds`; `fresh`: a new TLS connection per request. */
async function drive(port: number, fresh: boolean, seconds: number, concurrency: number): Promise<Rate> {
  const agent = fresh ? undefined : new https.Agent({ keepAlive: true, maxSockets: concurrency });
  const until = Date.now() + seconds * 1000;
  let done = 0;
  let errors = 0;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const req = https.get(
        { host: '127.0.0.1', port, servername: HOST, path: '/status/200', rejectUnauthorized: false, headers: { Host: HOST }, ...(agent ? { agent } : { agent: false }) },
        (res) => {
          res.resume();
          res.on('end', () => {
            done++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
    });
  const started = Date.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (Date.now() < until) await one();
  }));
  agent?.destroy();
  return { perSecond: done / ((Date.now() - started) / 1000), errors };
}

async function main(): Promise<void> {
  const seconds = envInt('BENCH_SECONDS', 10);
  const concurrency = envInt('BENCH_CONCURRENCY', 8);
  const dir = mkdtempSync(join(tmpdir(), 'chaos-bench-tls-'));
  try {
    const material = await TlsMaterial.load(loadConfig({ TLS_DIR: dir }));
    const good = material.leaves.get('good');
    if (good === undefined) throw new Error('no good leaf');
    const [tlsPort] = await freeLoopbackPorts(1);
    const chaos = await forkServer('services/chaos/main.js', { TLS_DIR: dir, CHAOS_PORT: '0', CHAOS_TLS_PORT: String(tlsPort), LOG_LEVEL: 'warn', RATE_LIMIT_GENERAL: '0', MAX_CONNECTIONS_PER_IP: '0' });
    const minimal = await forkServer('bench/tls.js', { BENCH_TLS_ROLE: 'minimal', BENCH_TLS_KEY: String(good.context.key), BENCH_TLS_CERT: String(good.context.cert) });
    try {
      const rows: string[] = [];
      for (const [name, port] of [['chaos good', tlsPort as number], ['node:https', minimal.port]] as const) {
        await drive(port, true, 1, concurrency); // warm-up
        const fresh = await drive(port, true, seconds, concurrency);
        await sleep(500);
        const kept = await drive(port, false, seconds, concurrency);
        rows.push(`| ${name} | ${fresh.perSecond.toFixed(0)} | ${kept.perSecond.toFixed(0)} | ${fresh.errors + kept.errors} |`);
      }
      process.stdout.write(`| server | new TLS connections/s | requests/s, kept connections | errors |\n|---|---|---|---|\n${rows.join('\n')}\n`);
    } finally {
      await chaos.stop();
      await minimal.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.env.BENCH_TLS_ROLE === 'minimal') serveMinimal();
  else await main();
}
