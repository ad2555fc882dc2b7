// REDIS_URL and REDIS_PREFIX (DESIGN §7, §9): what parses, what stops
// start-up with a clear message, and that a refused URL's password is not
// echoed in it. The prefix reaching the keys is tested on a real Redis
// (tests/integration/store/redis.test.ts, store/processes.test.ts).
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

t.test('REDIS_SENTINELS + REDIS_SENTINEL_NAME, REDIS_CLUSTER_NODES: host:port lists, one topology at a time', async (t) => {
  const sentinel = loadConfig({ REDIS_SENTINELS: '10.0.0.1:26379, 10.0.0.2:26379,[fd00::3]:26379', REDIS_SENTINEL_NAME: 'mymaster' });
  t.same(sentinel.redisSentinel, { sentinels: [{ host: '10.0.0.1', port: 26379 }, { host: '10.0.0.2', port: 26379 }, { host: 'fd00::3', port: 26379 }], name: 'mymaster' });
  t.equal(sentinel.redisUrl, undefined);
  const cluster = loadConfig({ REDIS_CLUSTER_NODES: 'redis-0.redis:6379,redis-1.redis:6379' });
  t.same(cluster.redisClusterNodes, [{ host: 'redis-0.redis', port: 6379 }, { host: 'redis-1.redis', port: 6379 }]);
  t.equal(loadConfig({}).redisSentinel, undefined);
  t.equal(loadConfig({}).redisClusterNodes, undefined);
  const refused: [Record<string, string>, string, RegExp][] = [
    [{ REDIS_SENTINELS: '10.0.0.1' }, 'REDIS_SENTINELS', /comma-separated list of host:port/],
    [{ REDIS_SENTINELS: '10.0.0.1:26379,,10.0.0.2:26379', REDIS_SENTINEL_NAME: 'm' }, 'REDIS_SENTINELS', /host:port/],
    [{ REDIS_SENTINELS: '10.0.0.1:26379,10.0.0.1:26379', REDIS_SENTINEL_NAME: 'm' }, 'REDIS_SENTINELS', /without repeats/],
    [{ REDIS_SENTINELS: '10.0.0.1:99999', REDIS_SENTINEL_NAME: 'm' }, 'REDIS_SENTINELS', /host:port/],
    [{ REDIS_SENTINELS: '10.0.0.1:26379' }, 'REDIS_SENTINEL_NAME', /required with REDIS_SENTINELS/],
    [{ REDIS_SENTINELS: '10.0.0.1:26379', REDIS_SENTINEL_NAME: 'my master' }, 'REDIS_SENTINEL_NAME', /master name/],
    [{ REDIS_SENTINEL_NAME: 'mymaster' }, 'REDIS_SENTINEL_NAME', /together with REDIS_SENTINELS/],
    [{ REDIS_CLUSTER_NODES: 'redis://10.0.0.1:6379' }, 'REDIS_CLUSTER_NODES', /host:port/],
    [{ REDIS_URL: 'redis://:pw@10.0.0.1:6379', REDIS_SENTINELS: '10.0.0.1:26379', REDIS_SENTINEL_NAME: 'm' }, 'REDIS_SENTINELS', /one Redis topology.*not REDIS_URL and REDIS_SENTINELS/],
    [{ REDIS_URL: 'redis://10.0.0.1:6379', REDIS_CLUSTER_NODES: '10.0.0.1:7000' }, 'REDIS_CLUSTER_NODES', /not REDIS_URL and REDIS_CLUSTER_NODES/],
    [{ REDIS_SENTINELS: '10.0.0.1:26379', REDIS_SENTINEL_NAME: 'm', REDIS_CLUSTER_NODES: '10.0.0.1:7000' }, 'REDIS_CLUSTER_NODES', /not REDIS_SENTINELS and REDIS_CLUSTER_NODES/],
    [{ REDIS_CLUSTER_NODES: '10.0.0.1:7000', REDIS_PREFIX: '{chaos}:' }, 'REDIS_PREFIX', /no \{ or \} with REDIS_CLUSTER_NODES/],
  ];
  for (const [env, variable, message] of refused) {
    try {
      loadConfig(env);
      t.fail(`${JSON.stringify(env)} was accepted`);
    } catch (error) {
      t.ok(error instanceof ConfigError, JSON.stringify(env));
      t.equal((error as ConfigError).variable, variable);
      t.match((error as Error).message, message);
      t.notMatch((error as Error).message, /:pw@/, 'a password in REDIS_URL is never echoed');
    }
  }
  t.equal(loadConfig({ REDIS_URL: 'redis://10.0.0.1:6379', REDIS_PREFIX: '{chaos}:' }).redisPrefix, '{chaos}:', 'a brace prefix is fine on one node');
});
