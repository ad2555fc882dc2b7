// The service runner owns the store: one per process, built from config,
// handed to the service, closed after the service stopped and on a failed
// start (startService, the part of runService that needs no process.exit).
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { ChaosServer } from '../../services/chaos/server.js';
import type { Config } from '../../shared/config/config.js';
import { createLogger, type Logger } from '../../shared/config/log.js';
import { startService, type Service } from '../../shared/runtime/run.js';
import { retryStoreKey } from '../../shared/content/fault-injection/index.js';
import { FallbackStore } from '../../shared/store/fallback.js';
import { createStore } from '../../shared/store/index.js';
import { MemoryStore } from '../../shared/store/memory.js';
import type { Store } from '../../shared/store/types.js';
import { freePort } from '../helpers/process.js';
import { testConfig } from '../helpers/servers.js';
import { serviceRegistries } from '../../services/registries.js';

const silent = createLogger('control', 'silent');

/** A logger whose lines are kept for inspection. */
function capturingLogger(): { logger: Logger; lines: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines: () => text };
}

/** Whether the store refuses work as a closed store does. */
async function isClosed(store: Store): Promise<boolean> {
  try {
    await store.countInWindow('probe', 1000);
    return false;
  } catch (error) {
    return (error as { code?: unknown }).code === 'ERR_CHAOS_STORE_CLOSED';
  }
}

/** A service that records what happens to it and can be told to fail. */
function fakeService(events: string[], store: Store, fail: { listen?: Error; shutdown?: Error } = {}): Service {
  return {
    async listen(port) {
      events.push(`listen ${port}`);
      if (fail.listen) throw fail.listen;
      return 4321;
    },
    async shutdown(graceMs) {
      // Responses still finishing during the grace may use the store.
      events.push(`shutdown ${graceMs}, store ${(await isClosed(store)) ? 'closed' : 'open'}`);
      if (fail.shutdown) throw fail.shutdown;
    },
  };
}

t.test('createStore: the in-memory store when REDIS_URL is unset, without a word', async (t) => {
  const { logger, lines } = capturingLogger();
  const store = await createStore(testConfig(), logger);
  t.teardown(() => store.close());
  t.type(store, MemoryStore);
  t.equal(await store.countInWindow('k', 1000), 1);
  t.equal(lines(), '', 'nothing logged');
});

t.test('createStore: REDIS_URL set and Redis unreachable: start degraded with a warning, serve from memory, never log the URL', async (t) => {
  const { logger, lines } = capturingLogger();
  const port = await freePort();
  const store = await createStore(testConfig({ REDIS_URL: `redis://:s3cret@127.0.0.1:${port}/0` }), logger);
  t.teardown(() => store.close());
  t.type(store, FallbackStore, 'Redis behind the local fallback');
  await (store as FallbackStore).started;
  t.equal(await store.countInWindow('k', 1000), 1, 'answers from memory');
  const logged = lines().trim().split('\n').map((line) => JSON.parse(line) as { level: number; msg: string });
  t.equal(logged.length, 1);
  t.equal(logged[0]?.level, 40, 'at warn');
  t.match(logged[0]?.msg, /Redis unreachable at start: serving from local memory/);
  t.notMatch(lines(), new RegExp(`s3cret|${port}`), 'neither the password nor the address reaches the log');
});

t.test('startService: the factory gets the store; stop shuts the service down, then closes the store', async (t) => {
  const events: string[] = [];
  let given: Store | undefined;
  const config: Config = testConfig({ CONTROL_PORT: '1234' });
  const started = await startService(
    (c, logger, store) => {
      t.equal(c, config, 'the config it was given');
      t.equal(logger, silent);
      given = store;
      return fakeService(events, store);
    },
    (c) => c.ports.control,
    config,
    silent,
  );
  t.equal(started.port, 4321, 'the port the service bound');
  t.equal(started.url, 'http://127.0.0.1:4321');
  if (!given) throw new Error('the factory was not called');
  t.equal(await isClosed(given), false, 'open while the service runs');
  await started.stop(250);
  t.same(events, ['listen 1234', 'shutdown 250, store open']);
  t.equal(await isClosed(given), true, 'closed once the service stopped');
});

t.test('startService: the store is closed even when the shutdown fails', async (t) => {
  let given: Store | undefined;
  const started = await startService(
    (_c, _l, store) => {
      given = store;
      return fakeService([], store, { shutdown: new Error('stuck') });
    },
    () => 0,
    testConfig(),
    silent,
  );
  await t.rejects(started.stop(0), { message: 'stuck' }, 'the shutdown error reaches the caller');
  if (!given) throw new Error('the factory was not called');
  t.equal(await isClosed(given), true);
});

t.test('startService: a failed start closes the store and rejects with the cause', async (t) => {
  for (const failure of ['listen', 'factory'] as const) {
    let given: Store | undefined;
    const cause = new Error(`${failure} failed`);
    await t.rejects(
      startService(
        (_c, _l, store) => {
          given = store;
          if (failure === 'factory') throw cause;
          return fakeService([], store, { listen: cause });
        },
        () => 0,
        testConfig(),
        silent,
      ),
      cause,
      `${failure}: rejects with its error`,
    );
    if (!given) throw new Error('the factory was not called');
    t.equal(await isClosed(given), true, `${failure}: store closed`);
  }
});

t.test('startService with a real service: it serves with the store it was given, then releases it', async (t) => {
  let given: Store | undefined;
  const config = testConfig({ CHAOS_PORT: '0' });
  const started = await startService(
    (c, logger, store) => {
      given = store;
      return new ChaosServer({ config: c, logger, registry: serviceRegistries().chaos, store });
    },
    (c) => c.ports.chaos,
    config,
    silent,
  );
  let stopped = false;
  t.teardown(() => (stopped ? undefined : started.stop(0)));
  const response = await fetch(`${started.url}/retry-mismatch?id=run-test`);
  t.equal(response.status, 200);
  await response.arrayBuffer();
  if (!given) throw new Error('the factory was not called');
  t.equal(await given.countInWindow(retryStoreKey('run-test'), 60_000), 2, 'the endpoint counted in the given store');
  await started.stop(0);
  stopped = true;
  t.equal(await isClosed(given), true);
});
