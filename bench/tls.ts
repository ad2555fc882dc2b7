// TLS chaos beside a minimal node:https server and Debian's nginx (issue 26):
// new TLS connections per second (handshake, one request, close) and requests
// per second over kept connections, on the `good` mode, each server its own
// process (nginx: one worker), the same certificate (the `good` ECDSA P-256
// leaf, sent with its intermediate). Run: `node dist/bench/tls.js`
// (BENCH_SECONDS, BENCH_CONCURRENCY); without nginx installed its row says so.
// BENCH_ROUNDS=n drives every server n times in turn and reports the medians
// (a busy machine's drift falls on all alike); BENCH_TLS_BASELINE=<dir>, another
// build's dist/, adds its chaos host as a row (before/after a change).
// The servers run on core 0 (BENCH_SERVER_CORE) and this driver on core 1
// (BENCH_CLIENT_CORE): the node client is the bound here, so beside the rates
// each server's CPU per new connection and per kept request (utime + stime
// from /proc over its runs) is reported, the figure the client cannot skew.
// BENCH_TLS_PROFILE=<dir> writes a CPU profile of the chaos process there
// (node --cpu-prof, at its exit).
import { spawn, type ChildProcess } from 'node:child_process';
import https from 'node:https';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../shared/config/config.js';
import { TlsMaterial } from '../shared/tls/material.js';
import { CORES, cpuSeconds, envInt, forkServer, median, pin, sleep } from './lib.js';
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
async function startNginx(dir: string, key: string, cert: string, core: number | undefined): Promise<{ port: number; child: ChildProcess } | undefined> {
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
  const nginxArgs = ['-p', root, '-c', join(root, 'nginx.conf')];
  const child = core === undefined ? spawn('nginx', nginxArgs, { stdio: 'ignore' }) : spawn('taskset', ['-c', String(core), 'nginx', ...nginxArgs], { stdio: 'ignore' });
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
  /** The server's CPU µs per request served (per new connection when each request had its own). */
  readonly cpuMicros: number;
}

/** `concurrency` loops of one request each, for `seconds`; `fresh`: a new TLS connection per request; `pid`: the server's, for its CPU. */
async function drive(port: number, pid: number, fresh: boolean, seconds: number, concurrency: number): Promise<Rate> {
  const cpuBefore = cpuSeconds(pid);
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
  return { perSecond: done / ((Date.now() - started) / 1000), errors, cpuMicros: done > 0 ? ((cpuSeconds(pid) - cpuBefore) * 1e6) / done : Number.NaN };
}

async function main(): Promise<void> {
  const seconds = envInt('BENCH_SECONDS', 10);
  const concurrency = envInt('BENCH_CONCURRENCY', 8);
  const serverCore = CORES > 1 ? envInt('BENCH_SERVER_CORE', 0, 0) : undefined;
  const clientCore = CORES > 1 ? envInt('BENCH_CLIENT_CORE', 1, 0) : undefined;
  const on = serverCore === undefined ? {} : { core: serverCore };
  if (clientCore !== undefined) pin(process.pid, clientCore);
  const dir = mkdtempSync(join(tmpdir(), 'chaos-bench-tls-'));
  try {
    const material = await TlsMaterial.load(loadConfig({ TLS_DIR: dir }));
    const good = material.leaves.get('good');
    if (good === undefined) throw new Error('no good leaf');
    const [tlsPort, baselinePort] = (await freeLoopbackPorts(2)) as [number, number];
    const chaosEnv = { TLS_DIR: dir, CHAOS_PORT: '0', LOG_LEVEL: 'warn', RATE_LIMIT_GENERAL: '0', MAX_CONNECTIONS_PER_IP: '0' };
    const profileDir = process.env.BENCH_TLS_PROFILE;
    const chaos = await forkServer('services/chaos/main.js', { ...chaosEnv, CHAOS_TLS_PORT: String(tlsPort) }, {
      ...on,
      ...(profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}),
    });
    const baselineDist = process.env.BENCH_TLS_BASELINE;
    const baseline = baselineDist ? await forkServer(join(baselineDist, 'services/chaos/main.js'), { ...chaosEnv, CHAOS_TLS_PORT: String(baselinePort) }, on) : undefined;
    const minimal = await forkServer('bench/tls.js', { BENCH_TLS_ROLE: 'minimal', BENCH_TLS_KEY: String(good.context.key), BENCH_TLS_CERT: String(good.context.cert) }, on);
    const nginx = await startNginx(dir, String(good.context.key), String(good.context.cert), serverCore);
    try {
      const servers: [string, number, number][] = [['chaos good', tlsPort, chaos.pid], ['node:https', minimal.port, minimal.pid]];
      if (baseline) servers.push([`chaos good (${baselineDist} build)`, baselinePort, baseline.pid]);
      if (nginx) servers.push(['nginx (1 worker)', nginx.port, nginx.child.pid as number]);
      const runs = new Map<string, { fresh: Rate; kept: Rate }[]>(servers.map(([name]) => [name, []]));
      for (const [, port, pid] of servers) await drive(port, pid, true, 1, concurrency); // warm-up
      for (let round = 0; round < envInt('BENCH_ROUNDS', 1); round++) {
        // The order reversed every other round: a drift of the machine favours no server.
        for (const [name, port, pid] of round % 2 === 0 ? servers : [...servers].reverse()) {
          const fresh = await drive(port, pid, true, seconds, concurrency);
          await sleep(500);
          const kept = await drive(port, pid, false, seconds, concurrency);
          runs.get(name)?.push({ fresh, kept });
        }
      }
      const medianRate = (rates: readonly Rate[]): Rate => ({
        perSecond: median(rates.map((r) => r.perSecond)),
        errors: rates.reduce((n, r) => n + r.errors, 0),
        cpuMicros: median(rates.map((r) => r.cpuMicros)),
      });
      const rates = new Map([...runs].map(([name, list]) => [name, { fresh: medianRate(list.map((r) => r.fresh)), kept: medianRate(list.map((r) => r.kept)) }]));
      const node = rates.get('node:https');
      const ratio = (a: number, b: number | undefined): string => (b ? `${(a / b).toFixed(2)}×` : '');
      // CPU per operation: node:https's ÷ this server's (above 1× costs less than node:https).
      const cpuRatio = (a: number, b: number | undefined): string => (b ? `${(b / a).toFixed(2)}×` : '');
      const rows = [...rates].map(
        ([name, { fresh, kept }]) =>
          `| ${name} | ${fresh.perSecond.toFixed(0)} | ${ratio(fresh.perSecond, node?.fresh.perSecond)} | ${fresh.cpuMicros.toFixed(0)} | ${cpuRatio(fresh.cpuMicros, node?.fresh.cpuMicros)} | ` +
          `${kept.perSecond.toFixed(0)} | ${ratio(kept.perSecond, node?.kept.perSecond)} | ${kept.cpuMicros.toFixed(1)} | ${cpuRatio(kept.cpuMicros, node?.kept.cpuMicros)} | ${fresh.errors + kept.errors} |`,
      );
      if (!nginx) rows.push('| nginx | not installed (apt-get install -y nginx) | | | | | | | | |');
      process.stdout.write(
        '| server | new TLS connections/s | × node:https | server CPU µs per connection | node:https ÷ this | requests/s, kept connections | × node:https | server CPU µs per request | node:https ÷ this | errors |\n' +
          `|---|---|---|---|---|---|---|---|---|---|\n${rows.join('\n')}\n` +
          `servers on core ${serverCore ?? 'any'}, the client (this process, ${concurrency} loops) on core ${clientCore ?? 'any'}; ${envInt('BENCH_ROUNDS', 1)} round(s) of ${seconds} s each way, medians\n`,
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
