// `make up` never hurts: before it builds, scripts/check-ports.sh says which
// port is taken and which variable moves it, instead of a stack trace later.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { get, parseHead, rawExchange } from '../../helpers/raw.js';
import { alive, childrenOf } from '../../helpers/stack.js';
import { freePorts } from '../../helpers/servers.js';
import { spawnNode } from '../../helpers/process.js';
import { NODE_FLAGS, serviceOfMain } from '../../../shared/runtime/node-flags.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const script = `${repo}scripts/check-ports.sh`;

function check(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', [script], { env: { PATH: process.env.PATH ?? '', ...env } }, (error, _stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stderr });
    });
  });
}

t.test('free ports pass, a taken one is named with its variable', async (t) => {
  const [chaos, control, bots, tls, controlTls] = await freePorts(5);
  const env = { STACK: 'embedded', CHAOS_PORT: String(chaos), CONTROL_PORT: String(control), BOTS_PORT: String(bots), CHAOS_TLS_PORT: String(tls), CONTROL_TLS_PORT: String(controlTls) };
  t.same(await check(env), { code: 0, stderr: '' }, 'all free');
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(control, '127.0.0.1', resolve));
  t.teardown(() => taken.close());
  const busy = await check(env);
  t.equal(busy.code, 1);
  t.match(busy.stderr, new RegExp(`port ${control} \\(CONTROL_PORT\\) .* already in use — another stack`));
  t.match(busy.stderr, /CONTROL_PORT=<free port> make up/);
  t.notMatch(busy.stderr, /CHAOS_PORT|BOTS_PORT/, 'only the taken one');
});

t.test('the TLS chaos port is checked unless TLS is off (TLS_DIR empty)', async (t) => {
  const [chaos, control, bots, tls, controlTls] = await freePorts(5);
  const env = { STACK: 'embedded', CHAOS_PORT: String(chaos), CONTROL_PORT: String(control), BOTS_PORT: String(bots), CHAOS_TLS_PORT: String(tls), CONTROL_TLS_PORT: String(controlTls) };
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(tls, '127.0.0.1', resolve));
  t.teardown(() => taken.close());
  const busy = await check(env);
  t.equal(busy.code, 1);
  t.match(busy.stderr, new RegExp(`port ${tls} \\(CHAOS_TLS_PORT\\) .* already in use`));
  t.same(await check({ ...env, TLS_DIR: '' }), { code: 0, stderr: '' }, 'TLS off: its port is not checked');
});

t.test("control's TLS port is checked beside it, unless it is off (CONTROL_TLS_PORT or TLS_DIR empty)", async (t) => {
  const [chaos, control, bots, tls, controlTls] = await freePorts(5);
  const env = { STACK: 'embedded', CHAOS_PORT: String(chaos), CONTROL_PORT: String(control), BOTS_PORT: String(bots), CHAOS_TLS_PORT: String(tls), CONTROL_TLS_PORT: String(controlTls) };
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(controlTls, '127.0.0.1', resolve));
  t.teardown(() => taken.close());
  const busy = await check(env);
  t.equal(busy.code, 1);
  t.match(busy.stderr, new RegExp(`port ${controlTls} \\(CONTROL_TLS_PORT\\) .* already in use`));
  t.same(await check({ ...env, CONTROL_TLS_PORT: '' }), { code: 0, stderr: '' }, 'CONTROL_TLS_PORT= (off): not checked');
  t.same(await check({ ...env, TLS_DIR: '' }), { code: 0, stderr: '' }, 'TLS off: not checked');
});

t.test('the full stack listens on FRONT_PORT and FRONT_TLS_PORT only: those are the ports checked', async (t) => {
  const [front, frontTls, chaos] = await freePorts(3);
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(chaos, '127.0.0.1', resolve));
  t.teardown(() => taken.close());
  const env = { STACK: 'full', FRONT_PORT: String(front), FRONT_TLS_PORT: String(frontTls), CHAOS_PORT: String(chaos), CHAOS_TLS_PORT: String(chaos) };
  t.same(await check(env), { code: 0, stderr: '' }, 'CHAOS_PORT and CHAOS_TLS_PORT are not used by the full stack');
  const busy = await check({ ...env, FRONT_PORT: String(chaos) });
  t.equal(busy.code, 1);
  t.match(busy.stderr, new RegExp(`port ${chaos} \\(FRONT_PORT\\) .* already in use`));
  const busyTls = await check({ ...env, FRONT_TLS_PORT: String(chaos) });
  t.equal(busyTls.code, 1);
  t.match(busyTls.stderr, new RegExp(`port ${chaos} \\(FRONT_TLS_PORT\\) .* already in use`));
  t.same(await check({ ...env, FRONT_TLS_PORT: String(chaos), TLS_DIR: '' }), { code: 0, stderr: '' }, 'TLS off: FRONT_TLS_PORT is not checked');
});

t.test('make up end to end: the full stack starts, answers on every host, and Ctrl-C drains what is in flight and leaves no process behind', async (t) => {
  const [front, frontTls] = (await freePorts(2)) as [number, number];
  const tlsDir = mkdtempSync(join(tmpdir(), 'chaos-make-up-tls-'));
  t.teardown(() => rmSync(tlsDir, { recursive: true, force: true }));
  // -o build: the tests run from the dist/ that `make test` just built; rebuilding under them would swap it.
  const make = spawn('make', ['--no-print-directory', '-o', 'build', 'up'], {
    cwd: repo,
    env: { PATH: process.env.PATH ?? '', STACK: 'full', FRONT_PORT: String(front), FRONT_TLS_PORT: String(frontTls), TLS_DIR: tlsDir, LOG_LEVEL: 'warn', SHUTDOWN_GRACE_MS: '8000' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  make.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  make.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<string>((resolve) => make.once('exit', (code, signal) => resolve(signal ?? `code ${code}`)));
  t.teardown(() => {
    try {
      process.kill(-(make.pid as number), 'SIGKILL');
    } catch {
      /* already gone */
    }
  });
  const deadline = Date.now() + 90_000;
  while (!out.includes('Ctrl-C stops everything') && Date.now() < deadline && make.exitCode === null) await sleep(100);
  t.match(out, `chaos    http://chaos.localhost:${front}/`, `the banner names the URLs:\n${out.slice(-1500)}`);
  t.match(out, `hub      http://localhost:${front}/`);
  t.match(out, `Try: curl -v http://chaos.localhost:${front}/truncate`);
  // TLS chaos through the front door (docs/tls.md): its URL and the one-command trust line.
  t.match(out, `TLS: https://good.tls.localhost:${frontTls}/ and every mode in http://localhost:${front}/tls/hosts.json`);
  t.match(out, `curl -so chaos-root.pem http://localhost:${front}/tls/root.pem && curl --cacert chaos-root.pem https://good.tls.localhost:${frontTls}/`);
  const root = readFileSync(join(tlsDir, 'ca-v1', 'root.pem'), 'utf8');
  const overTls = (servername: string): Promise<string> =>
    new Promise<string>((resolve) => {
      const socket = tls.connect({ host: '127.0.0.1', port: frontTls, servername, ca: root }, () => {
        // write, not end: the chaos host reads a client's FIN as giving up (connection.ts).
        socket.write(`GET /status/200 HTTP/1.1\r\nHost: ${servername}\r\nConnection: close\r\n\r\n`);
      });
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.on('error', (error) => resolve(`error: ${error.message}`));
    });
  const served = await overTls('good.tls.localhost');
  t.match(served, /^HTTP\/1\.1 200 [\s\S]*X-Chaos-Tls-Mode: good\r\n/, `good answers through FRONT_TLS_PORT, verified against the root in TLS_DIR: ${served.slice(0, 80)}`);
  // The control twins over TLS (docs/http2.md): on in make up (the Makefile sets CONTROL_TLS_PORT), by name on the same port.
  t.match(out, `control twins over TLS (ALPN h2): https://control.tls.localhost:${frontTls}/`);
  const twin = await overTls('control.tls.localhost');
  t.match(twin, /^HTTP\/1\.1 200 [\s\S]*X-Chaos-Origin: control\r\n/, `control.tls.localhost answers through FRONT_TLS_PORT: ${twin.slice(0, 80)}`);
  for (const host of ['chaos.localhost', 'control.localhost', 'bots.localhost', 'localhost']) {
    const res = await rawExchange(front, get('/', { Host: host, Connection: 'close' }));
    t.equal(parseHead(res.data).status, 200, `${host} answers through the front door`);
  }
  const processes = descendants(make.pid as number);
  // Each replica runs with its service's node flags (shared/runtime/node-flags.ts), passed by the supervisor.
  const replicas = processes.map(commandLine).flatMap((argv) => {
    const service = serviceOfMain(argv.at(-1) ?? '');
    return service ? [{ service, flags: argv.slice(1, -1) }] : [];
  });
  t.equal(replicas.length, 6, 'six replicas found by their command lines');
  for (const { service, flags } of replicas) t.same(flags, NODE_FLAGS[service], `${service}: node ${flags.join(' ')}`);
  const prometheus = out.includes('Prometheus http://') ? 1 : 0;
  t.equal(processes.length, 9 + prometheus, `under make: the supervisor, Redis, HAProxy, six replicas${prometheus ? ' and Prometheus' : ''}`);
  // A response in flight through the front door when Ctrl-C comes: the drain lets it finish (docs/front-door.md).
  const inFlight = rawExchange(front, get('/slow?ms=4000', { Host: 'chaos.localhost', Connection: 'close' }), { timeoutMs: 30_000 });
  await sleep(700);
  // What a terminal's Ctrl-C does: SIGINT to the whole foreground process group.
  process.kill(-(make.pid as number), 'SIGINT');
  const slow = await inFlight;
  const answered = slow.data.includes('\r\n\r\n');
  t.ok(answered, `the /slow in flight gets an answer (${slow.end} after ${Math.round(slow.elapsedMs)} ms, ${slow.data.length} bytes)`);
  const slowHead = answered ? parseHead(slow.data) : undefined;
  t.equal(slowHead?.status, 200, 'the /slow in flight is answered 200');
  t.equal(slowHead?.rest.length, Number(slowHead?.header('content-length')), 'with its whole body');
  t.ok(slow.elapsedMs >= 3900, 'after its full 4 s');
  // make re-raises the SIGINT once its child (the supervisor) has stopped everything, as it does in a terminal.
  t.equal(await Promise.race([exited, sleep(30_000).then(() => 'still running')]), 'SIGINT', 'make up ends as a Ctrl-C ends it');
  t.match(out, /SIGINT: stopping/, 'the supervisor said it was stopping');
  t.notMatch(out, /exited unexpectedly/, 'no process died of the Ctrl-C itself: only the supervisor stopped them');
  await sleep(200);
  t.same(processes.filter(alive), [], 'no process is left behind');
  t.ok(await refusedPort(front), 'the front port is closed');
});

t.test('a supervisor killed outright (SIGKILL) leaves no process behind', async (t) => {
  const front = (await freePorts(1))[0] as number;
  const supervisor = spawnNode('services/main.js', { STACK: 'full', REPLICAS: '1', FRONT_PORT: String(front), LOG_LEVEL: 'warn', SHUTDOWN_GRACE_MS: '2000' });
  t.teardown(() => supervisor.child.kill('SIGKILL'));
  const deadline = Date.now() + 90_000;
  while (!supervisor.stdout().includes('Ctrl-C stops everything') && Date.now() < deadline && supervisor.child.exitCode === null) await sleep(100);
  // Its run folder (configurations, Redis's dir) is removed on exit, which a SIGKILL skips: the test removes it.
  const runDir = /config: (\S+)\/haproxy\.cfg/.exec(supervisor.stdout())?.[1];
  if (runDir) t.teardown(() => rmSync(runDir, { recursive: true, force: true }));
  const processes = descendants(supervisor.child.pid as number);
  const prometheus = supervisor.stdout().includes('Prometheus http://') ? 1 : 0;
  t.equal(processes.length, 5 + prometheus, `Redis, HAProxy, three replicas${prometheus ? ' and Prometheus' : ''}: ${supervisor.stderr().slice(-500)}`);
  t.teardown(() => processes.forEach((pid) => alive(pid) && process.kill(pid, 'SIGKILL')));
  supervisor.child.kill('SIGKILL');
  await supervisor.exited;
  // Redis, HAProxy and Prometheus get SIGTERM from the kernel at once; the replicas drain (DRAIN_NOTICE_MS, then the grace).
  const gone = Date.now() + 20_000;
  while (processes.some(alive) && Date.now() < gone) await sleep(100);
  t.same(processes.filter(alive).map((pid) => commandLine(pid).join(' ')), [], 'every child followed its supervisor');
  t.ok(await refusedPort(front), 'the front port is closed');
});

function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const child of childrenOf(pid)) out.push(child, ...descendants(child));
  return out;
}

function refusedPort(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' }, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}
