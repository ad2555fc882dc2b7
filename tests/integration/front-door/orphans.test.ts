// A test that dies leaves nothing running (tests/helpers/process.ts,
// spawnFollowing). A test file too busy to see its own timeout is killed by
// make test's runner (scripts/run-tests.ts: SIGKILL to its process group): no
// teardown runs, and before spawnFollowing an HAProxy started by edge.test.ts
// outlived a killed test, holding its port. The fixture
// (tests/helpers/orphan-fixture.ts) starts HAProxy, redis-server and a chaos
// service through the shared helpers, then hangs; here it is ended as the
// runner ends it, and by SIGTERM, and each process it started must be gone
// within a few seconds.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { DIST, processRunning } from '../../helpers/process.js';

const ROOT = join(DIST, '..');
const FIXTURE = join(DIST, 'tests/helpers/orphan-fixture.js');
const RUNNER = join(DIST, 'scripts/run-tests.js');
/** The fixture's own timeout under the runner: enough to start its three programs on a busy machine. */
const FIXTURE_TIMEOUT_S = 20;
/** The line the fixture prints (not imported: importing the fixture would run its hanging test here). */
const PIDS_LINE = 'orphan-fixture pids:';
/** How long the programs may take to die after the fixture did. */
const GONE_WITHIN_MS = 10_000;

/** Our environment without tap's own variables (this file runs under tap; the fixture must not think it is a child of ours). */
function cleanEnv(mode: string): NodeJS.ProcessEnv {
  const env = Object.entries(process.env).filter(([name]) => !name.startsWith('TAP') && name !== 'NODE_OPTIONS');
  return { ...Object.fromEntries(env), ORPHAN_FIXTURE_MODE: mode };
}

interface Started {
  readonly child: ChildProcess;
  /** Resolves with the fixture's programs, name → pid, once it printed them. */
  readonly pids: Promise<Record<string, number>>;
  readonly output: () => string;
  readonly closed: Promise<void>;
}

function start(t: Test, mode: string, file: string, args: readonly string[]): Started {
  const child = spawn(process.execPath, [file, ...args], { cwd: ROOT, env: cleanEnv(mode), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let found: Record<string, number> | undefined;
  const pids = new Promise<Record<string, number>>((resolve, reject) => {
    const read = (d: Buffer): void => {
      output += d.toString();
      const line = output.split('\n').find((l) => l.startsWith(PIDS_LINE));
      if (line && !found) {
        found = Object.fromEntries([...line.matchAll(/(\w+)=(\d+)/g)].map((m) => [m[1] as string, Number(m[2])]));
        resolve(found);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('close', () => reject(new Error(`the fixture ended before it printed its pids:\n${output.slice(-3000)}`)));
  });
  pids.catch(() => undefined);
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  // Whatever happens here (a mutation, a failure), nothing outlives this test either.
  t.teardown(() => {
    child.kill('SIGKILL');
    for (const pid of Object.values(found ?? {})) if (processRunning(pid)) process.kill(pid, 'SIGKILL');
  });
  return { child, pids, output: () => output, closed };
}

/** Asserts that every program is gone within GONE_WITHIN_MS of the fixture's end. */
async function allGone(t: Test, pids: Record<string, number>, how: string): Promise<void> {
  const deadline = Date.now() + GONE_WITHIN_MS;
  while (Object.values(pids).some(processRunning) && Date.now() < deadline) await sleep(100);
  for (const [name, pid] of Object.entries(pids)) t.notOk(processRunning(pid), `${how}: ${name} (pid ${pid}) is gone within ${GONE_WITHIN_MS} ms`);
}

t.test("make test's runner, killing a test too busy to see its own timeout, takes HAProxy, redis-server and the service down", async (t) => {
  const fixture = start(t, 'block', RUNNER, [`--timeout=${FIXTURE_TIMEOUT_S}`, 'dist/tests/helpers/orphan-fixture.js']);
  const pids = await fixture.pids;
  t.same(Object.keys(pids).sort(), ['chaos', 'haproxy', 'redis'], 'the fixture started its three programs');
  for (const [name, pid] of Object.entries(pids)) t.ok(processRunning(pid), `${name} (pid ${pid}) runs while the fixture hangs`);
  await Promise.race([fixture.closed, sleep((FIXTURE_TIMEOUT_S + 30) * 1000, undefined, { ref: false })]);
  t.equal(fixture.child.exitCode, 1, 'the run failed');
  // Killed from outside: its own test reports nothing (it could not answer).
  t.match(fixture.output(), /not ok 1 - dist\/tests\/helpers\/orphan-fixture\.js # time=[\d.]+ms\n {2}---\n {2}killed: still running/, 'the runner killed the fixture after its timeout');
  t.notMatch(fixture.output(), /a teardown ran/, 'and no teardown ran');
  await allGone(t, pids, 'after the timeout');
});

t.test('SIGTERM (a cancelled run, a Ctrl-C) of a test awaiting something takes them down too', async (t) => {
  const fixture = start(t, 'await', FIXTURE, []);
  const pids = await fixture.pids;
  for (const [name, pid] of Object.entries(pids)) t.ok(processRunning(pid), `${name} (pid ${pid}) runs while the fixture hangs`);
  fixture.child.kill('SIGTERM');
  await fixture.closed;
  t.equal(fixture.child.signalCode, 'SIGTERM', 'the fixture died of it');
  await allGone(t, pids, 'after SIGTERM');
});
