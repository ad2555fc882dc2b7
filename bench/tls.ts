// TLS chaos beside a minimal node:https server and Debian's nginx (issue 26):
// new TLS connections per second (handshake, one request, close) and requests
// per second over kept connections, on the `good` mode, each server its own
// process (nginx: one worker), the same certificate (the `good` ECDSA P-256
// leaf, sent with its intermediate). Run: `node dist/bench/tls.js`
// (BENCH_SECONDS, BENCH_CONCURRENCY); without nginx installed its row says so.
// BENCH_ROUNDS=n drives every server n times in turn and reports the medians
// (a busy machine's drift falls on all alike); BENCH_TLS_BASELINE=<dir>, another
// build's dist/, adds its chaos host as a row (before/after a change).
import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../shared/config/config.js';
import { TlsMaterial } from '../shared/tls/material.js';
import { envInt, forkServer, median, sleep } from './lib.js';
import { freeLoopbackPorts, portAccepts } from '../services/supervisor.js';

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

/**
 * nginx with one worker (the others are one process too) in `dir`, answering
 * every request with the minimal server's body; keepalive_requests as the
 * chaos host's 1000 per connection. Undefined when nginx is not installed.
 */
async function startNginx(dir: string, key: string, cert: string): Promise<{ port: number; child: ChildProcess } | undefined> {
  const [port] = (await freeLoopbackPorts(1)) as [number];
  const root = join(dir, 'nginx');
  mkdirSync(join(root, 'tmp'), { recursive: true });
  writeFileSync(join(root, 'key.pem'), key, { mode: 0o600 });
  writeFileSync(join(root, 'cert.pem'), cert);
  writeFileSync(
    join(root, 'nginx.conf'),
    [
      'daemon off;', 'master_process off;', 'worker_processes 1;', `pid ${root}/nginx.pid;`, `error_log ${root}/error.log warn;`,
      'events { worker_connections 4096; }',
      'http {',
      '  access_log off;',
      `  client_body_temp_path ${root}/tmp; proxy_temp_path ${root}/tmp; fastcgi_temp_path ${root}/tmp; uwsgi_temp_path ${root}/tmp; scgi_temp_path ${root}/tmp;`,
      '  keepalive_requests 1000;',
      '  server {',
      `    listen 127.0.0.1:${port} ssl;`,
      `    ssl_certificate ${root}/cert.pem;`, `    ssl_certificate_key ${root}/key.pem;`,
      '    ssl_protocols TLSv1.2 TLSv1.3;',
      '    location / { default_type application/json; return 200 \'{"status":200}\\n\'; }',
      '  }',
      '}',
    ].join('\n'),
  );
  const child = spawn('nginx', ['-p', root, '-c', join(root, 'nginx.conf')], { stdio: 'ignore' });
  const missing = await new Promise<boolean>((resolve) => {
    child.once('error', () => resolve(true));
    portAccepts(port, 10_000).then(() => resolve(false), () => resolve(true));
  });
  if (missing) {
    child.kill('SIGKILL');
    return undefined;
  }
  return { port, child };
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
    const [tlsPort, baselinePort] = (await freeLoopbackPorts(2)) as [number, number];
    const chaosEnv = { TLS_DIR: dir, CHAOS_PORT: '0', LOG_LEVEL: 'warn', RATE_LIMIT_GENERAL: '0', MAX_CONNECTIONS_PER_IP: '0' };
    const chaos = await forkServer('services/chaos/main.js', { ...chaosEnv, CHAOS_TLS_PORT: String(tlsPort) });
    const baselineDist = process.env.BENCH_TLS_BASELINE;
    const baseline = baselineDist ? await forkServer(join(baselineDist, 'services/chaos/main.js'), { ...chaosEnv, CHAOS_TLS_PORT: String(baselinePort) }) : undefined;
    const minimal = await forkServer('bench/tls.js', { BENCH_TLS_ROLE: 'minimal', BENCH_TLS_KEY: String(good.context.key), BENCH_TLS_CERT: String(good.context.cert) });
    const nginx = await startNginx(dir, String(good.context.key), String(good.context.cert));
    try {
      const servers: [string, number][] = [['chaos good', tlsPort], ['node:https', minimal.port]];
      if (baseline) servers.push([`chaos good (${baselineDist} build)`, baselinePort]);
      if (nginx) servers.push(['nginx (1 worker)', nginx.port]);
      const runs = new Map<string, { fresh: Rate; kept: Rate }[]>(servers.map(([name]) => [name, []]));
      for (const [, port] of servers) await drive(port, true, 1, concurrency); // warm-up
      for (let round = 0; round < envInt('BENCH_ROUNDS', 1); round++) {
        for (const [name, port] of servers) {
          const fresh = await drive(port, true, seconds, concurrency);
          await sleep(500);
          const kept = await drive(port, false, seconds, concurrency);
          runs.get(name)?.push({ fresh, kept });
        }
      }
      const medianRate = (rates: readonly Rate[]): Rate => ({ perSecond: median(rates.map((r) => r.perSecond)), errors: rates.reduce((n, r) => n + r.errors, 0) });
      const rates = new Map([...runs].map(([name, list]) => [name, { fresh: medianRate(list.map((r) => r.fresh)), kept: medianRate(list.map((r) => r.kept)) }]));
      const node = rates.get('node:https');
      const ratio = (a: number, b: number | undefined): string => (b ? `${(a / b).toFixed(2)}×` : '');
      const rows = [...rates].map(
        ([name, { fresh, kept }]) =>
          `| ${name} | ${fresh.perSecond.toFixed(0)} | ${ratio(fresh.perSecond, node?.fresh.perSecond)} | ${kept.perSecond.toFixed(0)} | ${ratio(kept.perSecond, node?.kept.perSecond)} | ${fresh.errors + kept.errors} |`,
      );
      if (!nginx) rows.push('| nginx | not installed (apt-get install -y nginx) | | | | |');
      process.stdout.write(
        `| server | new TLS connections/s | × node:https | requests/s, kept connections | × node:https | errors |\n|---|---|---|---|---|---|\n${rows.join('\n')}\n`,
      );
    } finally {
      await chaos.stop();
      await minimal.stop();
      await baseline?.stop();
      nginx?.child.kill('SIGTERM');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.env.BENCH_TLS_ROLE === 'minimal') serveMinimal();
  else await main();
}
