// The service embedded in another project's tests (docs/embedding.md): start()
// in this process (free ports, real public URLs, limits off, close() that
// leaves nothing behind), then the package as a user gets it: `npm pack`, the
// tarball installed in a temporary project (runtime dependencies from the npm
// registry, or its cache), its files, its bin and its declarations, and the
// docs' node:test example run there with `node --test`.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { start, startEnv } from '../../../services/embed.js';
import { ConfigError, loadConfig } from '../../../shared/config/config.js';
import { DIST, freePort, refused, waitForPort } from '../../helpers/process.js';
import { startRedis } from '../../helpers/redis.js';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from '../../helpers/raw.js';

// npm install and a tsc run on a machine shared with other test files: bounded, with room.
t.setTimeout(360_000);

const ROOT = path.resolve(DIST, '..');
const portOf = (url: string): number => Number(new URL(url).port);

/** One GET over a raw socket, with the Host of `url` (the hosts check it), read to its Content-Length. */
async function getFrom(url: string, target: string, headers: Readonly<Record<string, string>> = {}): Promise<ParsedResponse> {
  const { data } = await rawExchange(portOf(url), get(target, { Host: new URL(url).host, ...headers }), { until: completeByLength, timeoutMs: 10_000 });
  return parseHead(data);
}

/** Every variable loadConfig reads: it is handed an environment that records each name asked for. */
function variablesRead(): string[] {
  const asked = new Set<string>();
  const recording = new Proxy({} as Record<string, string | undefined>, {
    get: (_, name) => {
      if (typeof name === 'string') asked.add(name);
      return undefined;
    },
  });
  loadConfig(recording);
  return [...asked].sort();
}

interface Ran {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a program to its end (killed after `timeoutMs`), with `env` only: no tap loader or npm_* variables leak in. */
function run(command: string, args: readonly string[], options: { cwd: string; env: Readonly<Record<string, string>>; timeoutMs: number }): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: options.cwd, env: options.env, timeout: options.timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const failed = error as (Error & { code?: number | string; signal?: NodeJS.Signals }) | null;
      resolve({ code: failed ? (typeof failed.code === 'number' ? failed.code : null) : 0, signal: failed?.signal ?? null, stdout, stderr });
    });
  });
}

/** The environment of every program this test runs: a PATH to find node and npm, a HOME for npm's cache. */
const baseEnv: Readonly<Record<string, string>> = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? tmpdir(),
  ...(process.env.npm_config_cache ? { npm_config_cache: process.env.npm_config_cache } : {}),
};

t.test('startEnv: defaults for a test suite, under the caller\'s env, under the typed options', async (t) => {
  t.same(startEnv(), {
    CHAOS_PORT: '0', CONTROL_PORT: '0', BOTS_PORT: '0', LOG_LEVEL: 'warn',
    RATE_LIMIT_GENERAL: '0', RATE_LIMIT_INFINITE: '0', MAX_HELD_PER_IP: '0', MAX_CONNECTIONS_PER_IP: '0',
  });
  const limited = startEnv({ limits: true });
  t.same(['RATE_LIMIT_GENERAL', 'RATE_LIMIT_INFINITE', 'MAX_HELD_PER_IP', 'MAX_CONNECTIONS_PER_IP'].filter((name) => name in limited), [], 'limits: true leaves the service\'s own');
  const layered = startEnv({ chaosPort: 7001, redisUrl: 'redis://127.0.0.1:7002', logLevel: 'silent', bindAddress: '::1', env: { CHAOS_PORT: '5', HOLD_MS: '900', RATE_LIMIT_GENERAL: '7' } });
  t.match(layered, { CHAOS_PORT: '7001', REDIS_URL: 'redis://127.0.0.1:7002', LOG_LEVEL: 'silent', BIND_ADDRESS: '::1', HOLD_MS: '900', RATE_LIMIT_GENERAL: '7', CONTROL_PORT: '0' });
  const config = loadConfig(layered);
  t.equal(config.holdMs, 900, 'read by loadConfig like any environment');
  t.equal(config.redisUrl, 'redis://127.0.0.1:7002');
});

t.test('start(): free ports, public URLs that name them, every host answering, limits off', async (t) => {
  const service = await start();
  t.teardown(() => service.close());
  const ports = [service.chaosUrl, service.controlUrl, service.botsUrl].map(portOf);
  t.ok(ports.every((port) => port > 0) && new Set(ports).size === 3, `three distinct real ports: ${ports.join(', ')}`);
  t.equal(service.chaosUrl, `http://127.0.0.1:${ports[0]}`);
  t.equal(service.hubUrl, `http://localhost:${ports[1]}`, 'the hub is a name of the control port');
  t.ok(Object.isFrozen(service) && Object.isFrozen(service.config));

  const chaos = await getFrom(service.chaosUrl, '/status/418');
  t.equal(chaos.status, 418);
  t.equal(chaos.header('x-chaos-category'), 'status', 'the chaos host names its lie');
  const twin = await getFrom(service.controlUrl, '/truncate');
  t.equal(twin.header('x-chaos-origin'), 'control');
  t.equal(twin.header('x-chaos-counterpart'), `${service.chaosUrl}/truncate`, 'the twin names the chaos host at its real port');
  t.equal((await getFrom(service.botsUrl, '/robots.txt')).status, 200);
  const hub = await getFrom(service.hubUrl, '/', { Accept: 'application/json' });
  const hosts = (JSON.parse(hub.rest.toString('utf8')) as { hosts: { url: string }[] }).hosts.map((h) => h.url);
  t.same(hosts, [service.chaosUrl, service.controlUrl, service.botsUrl], 'the hub lists the three hosts at their real URLs');

  t.same(
    [service.config.rateLimit.general, service.config.rateLimit.infinite, service.config.maxHeldPerIp, service.config.maxConnectionsPerIp],
    [0, 0, 0, 0],
    'per-client limits off',
  );
  const statuses = new Set<number>();
  for (let i = 0; i < 70; i++) statuses.add((await getFrom(service.controlUrl, '/status/200')).status);
  t.same([...statuses], [200], '70 requests from one address in a row, past the service\'s 60 a minute: no 429');
});

t.test('start({ limits: true }) keeps the real limit; a bad option names its variable', async (t) => {
  const service = await start({ limits: true, logLevel: 'silent', env: { RATE_LIMIT_GENERAL: '2' } });
  t.teardown(() => service.close());
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) statuses.push((await getFrom(service.controlUrl, '/status/200')).status);
  t.same(statuses, [200, 200, 429], 'RATE_LIMIT_GENERAL=2: the third is the real 429');
  await t.rejects(start({ chaosPort: -1 }), { name: 'ConfigError', variable: 'CHAOS_PORT' });
  await t.rejects(start({ env: { LOG_LEVEL: 'loud' } }), ConfigError);
});

t.test('a port that is taken: start() rejects with EADDRINUSE and leaves nothing listening', async (t) => {
  const occupier = net.createServer();
  await new Promise<void>((resolve) => occupier.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => occupier.close(resolve)));
  const taken = (occupier.address() as net.AddressInfo).port;
  const [control, bots] = [await freePort(), await freePort()];
  await t.rejects(start({ chaosPort: taken, controlPort: control, botsPort: bots, logLevel: 'silent' }), { code: 'EADDRINUSE' });
  t.ok((await refused(control)) && (await refused(bots)), 'the hosts that did start were stopped');
});

t.test('close(): cuts a held response and closes idle keep-alive connections at once by default, lets responses finish within graceMs', async (t) => {
  const cut = await start({ logLevel: 'silent' });
  const chaosHost = new URL(cut.chaosUrl).host;
  // A chaos response held for 8 s, and a control connection left open after its answer (keep-alive).
  const held = rawExchange(portOf(cut.chaosUrl), get('/slow?ms=8000', { Host: chaosHost }), { timeoutMs: 20_000 });
  const idle = rawExchange(portOf(cut.controlUrl), get('/status/200', { Host: new URL(cut.controlUrl).host }), { timeoutMs: 20_000 });
  await sleep(500); // the request read, the answer sent
  const began = Date.now();
  const closing = cut.close();
  t.equal(cut.close(), closing, 'a second close() is the same promise');
  await closing;
  t.ok(Date.now() - began < 4_000, `closed in ${Date.now() - began} ms, not after /slow's 8 s`);
  const [chaos, control] = await Promise.all([held, idle]);
  t.ok(chaos.end === 'fin' || chaos.end === 'reset', `chaos: the connection was ended (${chaos.end})`);
  t.notMatch(chaos.data.toString('latin1'), /^HTTP\/1\.1 200/, 'chaos: the held response was cut, not completed');
  t.equal(control.end, 'fin', 'control: the idle keep-alive connection was closed');
  t.match(control.data.toString('latin1'), /^HTTP\/1\.1 200/, 'control: after its answer');
  for (const url of [cut.chaosUrl, cut.controlUrl, cut.botsUrl]) t.ok(await refused(portOf(url)), `${url} refuses after close()`);

  const graceful = await start({ logLevel: 'silent' });
  const slow = rawExchange(portOf(graceful.chaosUrl), get('/slow?ms=1500', { Host: new URL(graceful.chaosUrl).host }), { timeoutMs: 20_000, until: completeByLength });
  await sleep(300);
  await graceful.close(15_000);
  t.equal(parseHead((await slow).data).status, 200, 'with graceMs, the in-flight response finishes');
});

t.test('a process that calls start() and close() exits by itself, with the in-memory store and with Redis', async (t) => {
  const redis = await startRedis(t);
  const embed = path.join(DIST, 'services/embed.js');
  for (const options of [{}, { redisUrl: redis.url, limits: true }]) {
    // No process.exit: the process ends only if close() left no handle behind.
    const script = `const { start } = await import(${JSON.stringify(embed)});
const service = await start(${JSON.stringify({ ...options, logLevel: 'silent' })});
const answers = [];
for (const url of [service.chaosUrl + '/status/418', service.controlUrl + '/status/200', service.botsUrl + '/robots.txt', service.hubUrl + '/']) answers.push((await fetch(url)).status);
await service.close();
console.log(JSON.stringify({ answers, store: service.config.redisUrl ? 'redis' : 'memory' }));`;
    const ran = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, env: baseEnv, timeoutMs: 60_000 });
    t.equal(ran.code, 0, `exited 0 by itself (${JSON.stringify(options)}) ${ran.stderr}`);
    t.same(JSON.parse(ran.stdout.trim() || '{}'), { answers: [418, 200, 200, 200], store: options.redisUrl ? 'redis' : 'memory' });
  }
  t.match(await redis.command('DBSIZE'), /^:[1-9]/, 'the Redis run kept its state there (the rate counters)');
});

t.test('the packed package, installed in a new project: files, imports, bin, declarations, node --test', async (t) => {
  const work = mkdtempSync(path.join(tmpdir(), 'chaos-embed-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));

  // --ignore-scripts: pack the dist/ these tests run from (prepack would rebuild it under the running suite).
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT, env: baseEnv, timeoutMs: 120_000 });
  t.equal(packed.code, 0, `npm pack ${packed.stderr}`);
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  const files = (info?.files ?? []).map((f) => f.path);
  for (const needed of ['package.json', 'README.md', 'docs/embedding.md', 'dist/services/embed.js', 'dist/services/embed.d.ts', 'dist/services/cli.js', 'dist/shared/config/config.d.ts']) {
    t.ok(files.includes(needed), `the tarball has ${needed}`);
  }
  t.same(files.filter((f) => !/^dist\/(services|shared)\/.*\.(js|d\.ts)$/.test(f) && !['package.json', 'README.md', 'docs/embedding.md'].includes(f)), [], 'only compiled services and shared code');
  t.same(files.filter((f) => f === 'dist/services/main.js' || f.endsWith('.map')), [], 'no make up launcher (it needs proxy/), no source maps');

  const project = path.join(work, 'project');
  const tarball = path.join(work, info?.filename ?? 'missing.tgz');
  mkdirSync(project);
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'embed-probe', private: true, type: 'module' }));
  // --prefer-offline: the cache `npm ci` filled serves what it holds, the registry the rest.
  const installed = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: project, env: baseEnv, timeoutMs: 180_000 });
  t.equal(installed.code, 0, `npm install <tarball> ${installed.stderr}`);
  const pkgDir = path.join(project, 'node_modules', 'chaos-endpoint-service');

  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  const shipped = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? shipped(path.join(dir, e.name)) : e.name.endsWith('.js') ? [path.join(dir, e.name)] : []));
  const problems: string[] = [];
  const builtins = new Set(builtinModules);
  for (const file of shipped(path.join(pkgDir, 'dist'))) {
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm)) {
      const spec = (m[1] ?? m[2] ?? m[3]) as string;
      const where = path.relative(pkgDir, file);
      if (spec.startsWith('.')) {
        if (!files.includes(path.relative(pkgDir, path.resolve(path.dirname(file), spec)))) problems.push(`${where} imports ${spec}, not in the package`);
      } else if (!spec.startsWith('node:') && !builtins.has(spec)) {
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string);
        if (!(name in manifest.dependencies)) problems.push(`${where} imports ${spec}, ${name in manifest.devDependencies ? 'a dev dependency' : 'not a dependency'}`);
      }
    }
  }
  t.same(problems, [], 'every import of every shipped module resolves to a shipped file, node itself or a runtime dependency');

  const bin = path.join(project, 'node_modules', '.bin', 'chaos-endpoint-service');
  const help = await run(bin, ['--help'], { cwd: project, env: baseEnv, timeoutMs: 30_000 });
  t.equal(help.code, 0, `--help exits 0 ${help.stderr}`);
  t.match(help.stdout, /^Usage: chaos-endpoint-service/);
  const unnamed = variablesRead().filter((name) => !new RegExp(`\\b${name}\\b`).test(help.stdout));
  t.same(unnamed, [], '--help names every variable loadConfig reads');
  const bad = await run(bin, [], { cwd: project, env: { ...baseEnv, CHAOS_PORT: 'eighty' }, timeoutMs: 30_000 });
  t.equal(bad.code, 2, 'a bad setting exits 2');
  t.match(bad.stderr, /CHAOS_PORT="eighty" is not valid/);

  // The bin serves on the port its environment gives, and drains on SIGTERM.
  const chaosPort = await freePort();
  const served = spawn(bin, [], { cwd: project, env: { ...baseEnv, CHAOS_PORT: String(chaosPort), CONTROL_PORT: '0', BOTS_PORT: '0', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let banner = '';
  served.stdout.on('data', (d: Buffer) => (banner += d.toString()));
  served.stderr.on('data', (d: Buffer) => (banner += d.toString()));
  const exited = new Promise<number | null>((resolve) => served.once('exit', (code) => resolve(code)));
  t.teardown(() => void served.kill('SIGKILL'));
  await waitForPort(chaosPort, 60_000);
  const answer = await getFrom(`http://127.0.0.1:${chaosPort}`, '/status/418');
  t.equal(answer.status, 418, 'the bin serves the chaos host on CHAOS_PORT');
  t.equal(answer.header('x-chaos-category'), 'status');
  for (const deadline = Date.now() + 10_000; !banner.includes('Ctrl-C stops it') && Date.now() < deadline; ) await sleep(50);
  t.match(banner, `chaos    http://127.0.0.1:${chaosPort}/`);
  t.match(banner, /hub {6}http:\/\/localhost:\d+\//);
  served.kill('SIGTERM');
  t.equal(await exited, 0, 'SIGTERM: drained and exited 0');

  // The declarations: a strict TypeScript consumer compiles against them, and a wrong option does not.
  writeFileSync(
    path.join(project, 'check.ts'),
    `import { start, ConfigError, type RunningService, type StartOptions } from 'chaos-endpoint-service';
const options: StartOptions = { chaosPort: 0, redisUrl: 'redis://127.0.0.1:6379', limits: true, logLevel: 'silent', env: { HOLD_MS: '1000' } };
// @ts-expect-error a port is a number
const wrongPort: StartOptions = { chaosPort: '8081' };
// @ts-expect-error not a log level
const wrongLevel: StartOptions = { logLevel: 'loud' };
export async function use(): Promise<string> {
  const service: RunningService = await start(options);
  const urls: string[] = [service.chaosUrl, service.controlUrl, service.botsUrl, service.hubUrl];
  await service.close(100);
  return urls.join() + ConfigError.name + String(wrongPort) + String(wrongLevel) + String(service.config.ports.chaos);
}
`,
  );
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const typeRoots = path.join(ROOT, 'node_modules', '@types');
  const checked = await run(
    process.execPath,
    [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--typeRoots', typeRoots, '--types', 'node', 'check.ts'],
    { cwd: project, env: baseEnv, timeoutMs: 120_000 },
  );
  t.equal(checked.code, 0, `tsc --strict against the shipped declarations: ${checked.stdout}${checked.stderr}`);

  // The node:test example of docs/embedding.md, verbatim.
  const docs = readFileSync(path.join(ROOT, 'docs/embedding.md'), 'utf8');
  const example = /\n## node:test\n[\s\S]*?```js\n([\s\S]*?)```/.exec(docs)?.[1];
  t.ok(example?.includes("from 'chaos-endpoint-service'"), 'docs/embedding.md has the node:test example');
  writeFileSync(path.join(project, 'chaos.test.js'), example ?? '');
  const tested = await run(process.execPath, ['--test', '--test-reporter=tap', 'chaos.test.js'], { cwd: project, env: baseEnv, timeoutMs: 90_000 });
  t.equal(tested.code, 0, `node --test passes and exits by itself: ${tested.stdout.slice(-1500)}${tested.stderr}`);
  t.match(tested.stdout, /^# pass 3$/m, 'its three tests pass');
  t.match(tested.stdout, /^# fail 0$/m);
});
