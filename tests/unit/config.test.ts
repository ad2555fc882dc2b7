import t from 'tap';
import { ConfigError, loadConfig } from '../../shared/config.js';

t.test('defaults are the embedded stack', async (t) => {
  const c = loadConfig({});
  t.same(c.ports, { chaos: 8081, control: 8082, bots: 8083, front: 8080 });
  t.equal(c.urls.base, 'http://127.0.0.1:8081');
  t.equal(c.urls.control, 'http://127.0.0.1:8082');
  t.equal(c.urls.bots, 'http://127.0.0.1:8083');
  t.equal(c.redisUrl, undefined);
  t.same(c.rateLimit, { general: 60, infinite: 10 });
  t.equal(c.logLevel, 'info');
  t.ok(Object.isFrozen(c) && Object.isFrozen(c.urls), 'frozen');
});

t.test('public URLs follow the ports unless set', async (t) => {
  t.equal(loadConfig({ CHAOS_PORT: '9001' }).urls.base, 'http://127.0.0.1:9001');
  t.equal(loadConfig({ PUBLIC_BASE_URL: 'http://chaos.localhost:8080/' }).urls.base, 'http://chaos.localhost:8080');
});

const bad: [string, string, RegExp][] = [
  ['CHAOS_PORT', 'abc', /CHAOS_PORT="abc" is not valid: expected an integer from 0 to 65535/],
  ['CONTROL_PORT', '70000', /CONTROL_PORT/],
  ['RATE_LIMIT_GENERAL', '-1', /RATE_LIMIT_GENERAL/],
  ['LOG_LEVEL', 'loud', /LOG_LEVEL="loud" is not valid: expected one of fatal, error/],
  ['PUBLIC_BASE_URL', 'not a url', /PUBLIC_BASE_URL/],
  ['PUBLIC_BOTS_URL', 'ftp://x', /PUBLIC_BOTS_URL/],
  ['PUBLIC_HUB_URL', 'http://x/with/path', /PUBLIC_HUB_URL/],
  ['REDIS_URL', 'localhost:6379', /REDIS_URL/],
  ['TRUST_PROXY', 'evil host', /TRUST_PROXY/],
  ['SHUTDOWN_GRACE_MS', '1.5', /SHUTDOWN_GRACE_MS/],
];
for (const [name, value, message] of bad) {
  t.test(`${name}=${value} stops start-up`, async (t) => {
    t.throws(() => loadConfig({ [name]: value }), message);
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      t.ok(error instanceof ConfigError);
      t.equal((error as ConfigError).variable, name);
    }
  });
}
