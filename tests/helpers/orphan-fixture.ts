// Not a test of its own (no .test. in its name, so scripts/test.sh never runs
// it): tests/integration/front-door/orphans.test.ts runs it under make test's
// runner with a short --timeout, or signals it, and checks that what it started
// died with it. It starts HAProxy, redis-server and a chaos service through the
// shared helpers, prints their pids on stderr, then hangs in one of two ways
// (the first argument, or ORPHAN_FIXTURE_MODE, since the runner passes none):
//   block  the event loop stops (Atomics.wait), as in a test process too busy
//          to see its own timeout: the runner kills it and no teardown runs;
//   await  a promise that never settles: whatever ends the process, teardowns
//          that do run may not finish, and a program without one (the service
//          here, as spawnNode registers none) is left behind.
import t from 'tap';
import { startHaproxy } from './haproxy.js';
import { freePort, spawnNode, waitForPort } from './process.js';
import { startRedis } from './redis.js';

/** The line orphans.test.ts reads (it cannot import it: importing this file runs the hanging test). */
const PIDS_LINE = 'orphan-fixture pids:';
const MODE = process.argv[2] ?? process.env['ORPHAN_FIXTURE_MODE'] ?? 'await';

t.test(`starts HAProxy, redis-server and a chaos service, then hangs (${MODE})`, async (t) => {
  const front = await freePort();
  const haproxy = await startHaproxy(
    t,
    'orphan-fixture',
    ['defaults', '  mode http', '  timeout connect 1s', '  timeout client 5s', '  timeout server 5s', 'frontend front', `  bind 127.0.0.1:${front}`, '  http-request return status 200', ''].join('\n'),
    front,
  );
  t.teardown(() => console.error('orphan-fixture: a teardown ran, which a timeout or a kill skips'));
  const redis = await startRedis(t);
  const chaosPort = await freePort();
  const chaos = spawnNode('services/chaos/main.js', { CHAOS_PORT: String(chaosPort) });
  await waitForPort(chaosPort);
  console.error(`${PIDS_LINE} haproxy=${haproxy.pid} redis=${redis.pid()} chaos=${chaos.child.pid}`);
  if (MODE === 'block') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  // A timer keeps the process alive; the promise never settles.
  setInterval(() => undefined, 1000);
  await new Promise<never>(() => undefined);
});
