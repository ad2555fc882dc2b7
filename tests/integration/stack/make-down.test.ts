// `make up DETACH=1` runs the stack in the background (output and PID in
// RUN_DIR) and returns once it is up; `make down` stops it the way Ctrl-C
// does in the foreground, waiting for the drain, and says so plainly when
// nothing runs. Run on the embedded default (three processes) on free ports,
// with a RUN_DIR of its own so a developer's detached stack is never touched.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { get, parseHead, rawExchange } from '../../helpers/raw.js';
import { alive } from '../../helpers/stack.js';
import { freePorts } from '../../helpers/servers.js';
import { refused } from '../../helpers/process.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));

function make(args: readonly string[], env: Readonly<Record<string, string>>): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    // -o build: the tests run from the dist/ that `make test` just built; rebuilding under them would swap it.
    execFile('make', ['--no-print-directory', '-o', 'build', ...args], { cwd: repo, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 240_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

t.test('make up DETACH=1 returns with the stack up; make down drains it; nothing running is said plainly', async (t) => {
  const runDir = mkdtempSync(join(tmpdir(), 'make-down-'));
  const [chaos, control, bots] = (await freePorts(3)) as [number, number, number];
  const env = { RUN_DIR: runDir, STACK: 'embedded', CHAOS_PORT: String(chaos), CONTROL_PORT: String(control), BOTS_PORT: String(bots), LOG_LEVEL: 'warn' };
  const pidFile = join(runDir, 'make-up.pid');
  let pid = 0;
  t.teardown(() => {
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(runDir, { recursive: true, force: true });
  });

  const idle = await make(['down'], env);
  t.equal(idle.code, 0, 'make down with nothing running succeeds');
  t.match(idle.out, /make down: nothing to stop: no stack was started with 'make up DETACH=1'/);

  const up = await make(['up', 'DETACH=1'], env);
  t.equal(up.code, 0, `make up DETACH=1 returns: ${up.out.slice(-800)}`);
  t.match(up.out, `chaos    http://127.0.0.1:${chaos}/`, 'the banner is printed');
  t.notMatch(up.out, /Ctrl-C stops/, 'without the Ctrl-C line');
  t.match(up.out, /Running in the background \(pid \d+, output in .*make-up\.log\): make down stops it/);
  pid = Number(readFileSync(pidFile, 'utf8'));
  t.ok(pid > 0 && alive(pid), `the supervisor runs (pid ${pid})`);
  t.match(readFileSync(join(runDir, 'make-up.log'), 'utf8'), /Chaos Endpoint Service is up/, 'its output goes to the log');
  const twice = await make(['up', 'DETACH=1'], env);
  t.not(twice.code, 0, 'a second make up DETACH=1 refuses');

  // A response in flight when make down comes is finished before the stack stops.
  const inFlight = rawExchange(chaos, get('/slow?ms=3000', { Connection: 'close' }), { timeoutMs: 30_000 });
  await sleep(500);
  const down = await make(['down'], env);
  const slow = await inFlight;
  t.equal(down.code, 0, `make down succeeds: ${down.out}`);
  t.match(down.out, `make down: stopping the stack (pid ${pid})`);
  t.match(down.out, /make down: stopped after \d+ s/);
  t.ok(slow.data.includes('\r\n\r\n') && parseHead(slow.data).status === 200, `the /slow in flight was answered 200 (${slow.data.length} bytes after ${Math.round(slow.elapsedMs)} ms)`);
  t.notOk(alive(pid), 'the supervisor is gone when make down returns');
  for (const port of [chaos, control, bots]) t.ok(await refused(port), `port ${port} is closed`);
  t.notOk(existsSync(pidFile), 'the pid file is removed');

  const again = await make(['down'], env);
  t.match(again.out, /nothing to stop: no stack was started/, 'a second make down says nothing runs');

  // A pid file whose process is gone (a reboot, a kill -9): removed, and said so.
  writeFileSync(pidFile, `${pid}\n`);
  const stale = await make(['down'], env);
  t.equal(stale.code, 0);
  t.match(stale.out, new RegExp(`nothing to stop: the stack started with 'make up DETACH=1' \\(pid ${pid}\\) no longer runs; its stale .* is removed`));
  t.notOk(existsSync(pidFile));
});
