// The container image without Docker (none runs here, and its base images
// come from a registry this machine cannot reach): the runtime stage of
// deploy/Dockerfile is laid out in a temporary directory exactly as its COPY
// lines say, with the production dependencies only (what `npm ci
// --omit=dev` installs), then each service is started through the image's
// entrypoint with the image's environment, answers, passes the image's own
// HEALTHCHECK command, and drains on SIGTERM. A runtime import of a dev
// dependency, a file the image does not copy, or a broken entrypoint fails here.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { NODE_FLAGS } from '../../../shared/runtime/node-flags.js';
import { DIST, freePort, waitForPort } from '../../helpers/process.js';
import { get, parseHead, rawExchange } from '../../helpers/raw.js';

const ROOT = path.resolve(DIST, '..');
const dockerfile = readFileSync(path.join(ROOT, 'deploy/Dockerfile'), 'utf8');
const runtime = dockerfile.slice(dockerfile.indexOf(' AS runtime'));

/** `COPY --from=build /app/<from> ./<to>` lines of the runtime stage: [from, to] relative to /app. */
const builtCopies = [...runtime.matchAll(/^COPY --from=build \/app\/(\S+) \.\/(\S+)$/gm)].map((m) => [m[1] as string, m[2] as string] as const);
/** The ENV lines of the runtime stage, as name → value. */
const imageEnv = Object.fromEntries([...runtime.matchAll(/\b([A-Z_]+)=(\$\{SERVICE\}|[^\s\\]+)/g)].map((m) => [m[1] as string, m[2] as string]));
const healthcheck = JSON.parse(/HEALTHCHECK [^\n]*\\\n\s*CMD (\[.*\])/.exec(runtime)?.[1] ?? '[]') as string[];

t.test('the Dockerfile names what this test lays out', async (t) => {
  t.same(builtCopies.map(([from]) => from), ['dist/services', 'dist/shared', 'dist/proxy'], 'the runtime copies the compiled services, shared code and proxy generator');
  t.match(runtime, /RUN npm ci --omit=dev/, 'production dependencies only');
  t.match(runtime, /COPY package\.json package-lock\.json \.\//, 'package.json (its "type": "module" makes dist/ ESM)');
  t.equal(imageEnv.NODE_ENV, 'production');
  t.equal(healthcheck[0], 'node', `the health check runs node: ${JSON.stringify(healthcheck)}`);
});

t.test('each service starts from the image layout, answers, is healthy, and drains on SIGTERM', async (t) => {
  const app = mkdtempSync(path.join(tmpdir(), 'chaos-image-'));
  t.teardown(() => rmSync(app, { recursive: true, force: true }));
  cpSync(path.join(ROOT, 'package.json'), path.join(app, 'package.json'));
  for (const [from, to] of builtCopies) cpSync(path.join(ROOT, from), path.join(app, to), { recursive: true });
  // Exactly the packages `npm ci --omit=dev` would install, copied (not linked: a link would resolve from the full tree).
  const production = execFileSync('npm', ['ls', '--omit=dev', '--parseable', '--all'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .map((line) => path.relative(ROOT, line.trim()))
    .filter((rel) => rel.startsWith('node_modules'));
  t.ok(production.includes(path.join('node_modules', 'prom-client')) && !production.includes(path.join('node_modules', 'tap')), 'prom-client is a production dependency, tap is not');
  for (const rel of production) cpSync(path.join(ROOT, rel), path.join(app, rel), { recursive: true, dereference: true });

  const bad = spawn('sh', [path.join(ROOT, 'deploy/entrypoint.sh')], { env: { PATH: process.env.PATH ?? '', SERVICE: 'nonsense', APP_DIR: app } });
  t.equal(await new Promise((resolve) => bad.once('exit', resolve)), 64, 'an unknown SERVICE stops the entrypoint with 64');

  for (const [service, variable, path_] of [
    ['chaos', 'CHAOS_PORT', '/status/418'],
    ['control', 'CONTROL_PORT', '/status/418'],
    ['bots', 'BOTS_PORT', '/robots.txt'],
  ] as const) {
    const [port, admin] = [await freePort(), await freePort()];
    // The image's environment, on the loopback instead of every address.
    const env = { ...imageEnv, PATH: process.env.PATH ?? '', APP_DIR: app, SERVICE: service, BIND_ADDRESS: '127.0.0.1', [variable]: String(port), METRICS_PORT: String(admin), LOG_LEVEL: 'warn' };
    const child = spawn('sh', [path.join(ROOT, 'deploy/entrypoint.sh')], { env, cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    t.teardown(() => {
      child.kill('SIGKILL');
    });
    await waitForPort(port, 30_000).catch((error: unknown) => {
      throw new Error(`${service} did not start from the image layout: ${String(error)}\n${output}`);
    });
    const res = await rawExchange(port, get(path_, { Connection: 'close' }));
    t.equal(parseHead(res.data).status, service === 'bots' ? 200 : 418, `${service} answers ${path_}`);
    // exec: the shell's pid is node's now, started with the flags of shared/runtime/node-flags.ts and no others.
    const argv = readFileSync(`/proc/${child.pid as number}/cmdline`, 'latin1').split('\0').filter(Boolean);
    t.same(argv.slice(1, -1), NODE_FLAGS[service], `${service}: the entrypoint passes the service's node flags (${NODE_FLAGS[service].join(' ') || 'none'})`);
    await waitForPort(admin, 10_000);
    const [command, ...args] = healthcheck as [string, ...string[]];
    const health = spawn(command, args, { env: { PATH: process.env.PATH ?? '', METRICS_PORT: String(admin) } });
    t.equal(await new Promise((resolve) => health.once('exit', resolve)), 0, `${service}: the image's HEALTHCHECK passes`);
    // exec in the entrypoint: the shell is gone, SIGTERM reaches node itself.
    child.kill('SIGTERM');
    const code = await Promise.race([exited, sleep(15_000).then(() => 'still running')]);
    t.equal(code, 0, `${service} drains and exits 0 on SIGTERM\n${output.slice(-500)}`);
    t.notMatch(output, 'started without the node flags', `${service} does not warn about its node flags`);
  }
});
