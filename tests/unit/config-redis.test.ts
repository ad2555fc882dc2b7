// REDIS_URL and REDIS_PREFIX (DESIGN §7, §9): what parses, what stops
// start-up with a clear message, and that a refused URL's password is not
// echoed in it. The prefix reaching the keys is tested on a real Redis
// (tests/integration/store-redis.test.ts, redis-processes.test.ts).
import t from 'tap';
import { ConfigError, loadConfig } from '../../shared/config/config.js';
import { spawnNode } from '../helpers/process.js';

t.test('REDIS_URL: redis://, rediss:// and unix sockets are accepted as given; unset means memory', async (t) => {
  t.equal(loadConfig({}).redisUrl, undefined);
  t.equal(loadConfig({ REDIS_URL: '' }).redisUrl, undefined, 'empty is unset');
  for (const url of [
    'redis://127.0.0.1:6379',
    'redis://redis',
    'redis://:secret@redis.internal:6380/2',
    'redis://user:secret@[::1]:6379/0',
    'rediss://cache.example.com:6380',
    'redis://127.0.0.1:6379?family=4',
    '/var/run/redis/redis.sock',
    'unix:///var/run/redis/redis.sock',
  ]) {
    t.equal(loadConfig({ REDIS_URL: url }).redisUrl, url, url);
  }
});

t.test('REDIS_URL: anything else stops start-up, naming the variable and the accepted forms', async (t) => {
  for (const url of [
    'localhost:6379',
    'http://127.0.0.1:6379',
    'redis//127.0.0.1',
    'redis://',
    'redis://127.0.0.1:6379/not-a-db',
    'redis://127.0.0.1:notaport',
    'tcp://127.0.0.1:6379',
    'unix://host/path.sock',
    'unix:',
    'relative/redis.sock',
    'redis://127.0.0.1 :6379',
  ]) {
    try {
      loadConfig({ REDIS_URL: url });
      t.fail(`${url} was accepted`);
    } catch (error) {
      t.ok(error instanceof ConfigError, url);
      t.equal((error as ConfigError).variable, 'REDIS_URL');
      t.match((error as Error).message, /expected redis:\/\/host:port\[\/db\], rediss:\/\/host:port\[\/db\], a unix socket/);
    }
  }
  try {
    loadConfig({ REDIS_URL: 'http://:hunter2@redis.internal:6379' });
  } catch (error) {
    t.notMatch((error as Error).message, /hunter2/, 'a refused URL\'s password is not repeated');
  }
});

t.test('REDIS_PREFIX: default chaos:, a short key-safe string, else a clear error', async (t) => {
  t.equal(loadConfig({}).redisPrefix, 'chaos:');
  t.equal(loadConfig({ REDIS_PREFIX: '' }).redisPrefix, 'chaos:', 'empty is the default');
  t.equal(loadConfig({ REDIS_PREFIX: 'staging:chaos:' }).redisPrefix, 'staging:chaos:');
  t.equal(loadConfig({ REDIS_PREFIX: '{chaos}:' }).redisPrefix, '{chaos}:', 'a cluster hash tag');
  for (const prefix of ['with space', 'a\nb', 'x'.repeat(65), 'é:']) {
    t.throws(() => loadConfig({ REDIS_PREFIX: prefix }), { name: 'ConfigError', variable: 'REDIS_PREFIX' }, JSON.stringify(prefix));
  }
});

t.test('a bad REDIS_URL stops a service before it listens (exit 2, the reason on stderr)', async (t) => {
  const svc = spawnNode('services/chaos/main.js', { CHAOS_PORT: '0', REDIS_URL: 'localhost:6379' });
  t.teardown(() => svc.child.kill('SIGKILL'));
  const exit = await svc.exited;
  t.equal(exit.code, 2);
  t.match(svc.stderr(), /configuration error: REDIS_URL=.* is not valid: expected redis:\/\/host:port/);
});
