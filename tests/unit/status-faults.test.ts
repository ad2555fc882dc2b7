import t from 'tap';
import { defineChaosEndpoint } from '../../services/chaos/endpoint.js';
import { chaosEndpoints } from '../../services/chaos/endpoints/index.js';
import { serviceRegistries } from '../../services/registries.js';
import { loadConfig } from '../../shared/config/config.js';
import { int, str } from '../../shared/primitives/params.js';
import { neverRandom, pickFor, randomPool } from '../../shared/registry/random-pick.js';
import { Registry, RegistryError } from '../../shared/registry/registry.js';
import { FLAKY_PARAMS, flakyDraw, retryBody } from '../../shared/content/fault-injection/index.js';
import { bodyFraming, isInterim, switchesProtocols } from '../../shared/content/status.js';
import { defaultRealm, sanitizeRealm } from '../../shared/content/auth/index.js';
import { testConfig } from '../helpers/servers.js';

t.test('only 101 switches protocols; other 1xx are interim; 204/304 bodiless, 205 empty', async (t) => {
  t.equal(switchesProtocols(101), true);
  for (const code of [100, 102, 103, 150, 199, 200, 426]) t.equal(switchesProtocols(code), false, String(code));
  t.equal(isInterim(101), false);
  t.equal(isInterim(100), true);
  t.equal(isInterim(199), true);
  t.equal(isInterim(200), false);
  t.equal(bodyFraming(204), 'none');
  t.equal(bodyFraming(304), 'none');
  t.equal(bodyFraming(205), 'empty');
  t.equal(bodyFraming(200), 'json');
});

t.test('flaky: the draw is a pure function of the seed, uniform enough', async (t) => {
  t.equal(flakyDraw('a'), flakyDraw('a'));
  t.not(flakyDraw('a'), flakyDraw('b'));
  let below = 0;
  for (let i = 0; i < 4000; i++) {
    const d = flakyDraw(`u${i}`);
    if (d < 0 || d >= 1) t.fail(`draw ${d} outside [0, 1)`);
    if (d < 0.3) below++;
  }
  t.ok(below > 1000 && below < 1400, `about 30% below 0.3 (${below} of 4000)`);
});

t.test('flaky status parameter: 100–599 clamped, 101 refused', async (t) => {
  t.match(FLAKY_PARAMS.status.parse('101'), { ok: false });
  t.match(FLAKY_PARAMS.status.parse('100'), { ok: true, value: 100 });
  t.match(FLAKY_PARAMS.status.parse('42'), { ok: true, value: 100, clamped: true });
  t.match(FLAKY_PARAMS.status.parse('abc'), { ok: false });
  t.equal(FLAKY_PARAMS.status.default, 500);
  t.equal(FLAKY_PARAMS.p.default, 0.5);
});

t.test('realm: sanitised, then cut to 64; default from the hub host name', async (t) => {
  t.equal(sanitizeRealm('chaos.example.com'), 'chaos.example.com');
  t.equal(sanitizeRealm('a "b" \\ c\r\n'), 'a b  c');
  t.equal(sanitizeRealm('ünïcødé'), 'ncd');
  t.equal(sanitizeRealm('-'.repeat(100)).length, 64);
  t.equal(sanitizeRealm(`${'!'.repeat(100)}ok`), 'ok', 'the cut comes after sanitising');
  t.equal(defaultRealm(testConfig()), 'hub.test');
  t.equal(defaultRealm(loadConfig({})), 'localhost', 'the embedded default hub is http://localhost:<CONTROL_PORT>');
  t.equal(defaultRealm(testConfig({ PUBLIC_HUB_URL: 'https://Chaos.Example.org' })), 'chaos.example.org');
  t.equal(defaultRealm(testConfig({ PUBLIC_HUB_URL: 'http://[::1]:8080' })), '1', 'an IPv6 literal keeps only its allowed characters');
});

t.test('retry data: same shape, different items per version, deterministic per id', async (t) => {
  const one = retryBody('x', 1) as { data: { version: number; items: unknown[] } };
  const two = retryBody('x', 2) as { data: { version: number; items: unknown[] } };
  t.same(retryBody('x', 1), one);
  t.equal(one.data.version, 1);
  t.equal(two.data.version, 2);
  t.equal(one.data.items.length, two.data.items.length);
  t.notSame(one.data.items, two.data.items);
  t.notSame(retryBody('y', 1), one, 'another id, other data');
});

t.test('/random pool: built from `random`, never with /slow, /drip, /stall, /slow-headers, /jitter, /partial-stream, /bytes, /mix, /sse or /random', async (t) => {
  const registry = serviceRegistries().chaos;
  const pool = randomPool(registry);
  t.ok(pool.length >= 5);
  t.ok(pool.every((e) => e.random !== undefined && !neverRandom(e)));
  t.equal(randomPool(registry), pool, 'built once per registry');

  const forbidden = chaosEndpoints.filter((e) => neverRandom(e));
  t.same(forbidden.map((e) => e.path).sort(), [
    '/bytes', '/drip', '/h2/flow', '/h2/settings', '/h2/stall', '/h2/upload-stall', '/jitter', '/mcp', '/mix', '/partial-stream', '/random', '/slow', '/slow-headers', '/sse', '/stall',
    '/ws/close', '/ws/deflate', '/ws/frames', '/ws/handshake', '/ws/ping-flood', '/ws/pong-lie',
  ], 'held endpoints and /random itself');
  for (const endpoint of forbidden) {
    // The same definition, marked for /random by mistake.
    const rogue = { ...endpoint, random: 'seeded' as const };
    const others = chaosEndpoints.filter((e) => e !== endpoint);
    t.throws(() => randomPool(new Registry('chaos', [...others, rogue])), RegistryError, `${endpoint.path} in the pool stops start-up`);
  }
});

t.test('/random pool: a member /random cannot call stops start-up', async (t) => {
  const huge = defineChaosEndpoint({
    id: 'huge',
    path: '/huge/{n}',
    category: 'payload',
    summary: 'a path parameter no draw can fill',
    params: { n: int({ in: 'path', min: 0, max: 2 ** 40, required: true }) },
    docs: { random: 'seeded' },
    handle() {},
  });
  t.throws(() => randomPool(new Registry('chaos', [huge])), /huge.*cannot call it/);
});

t.test('/random pick: forwards the seed, or a short digest when the seed does not fit; fills required values', async (t) => {
  const seeded = defineChaosEndpoint({
    id: 'short-seed',
    path: '/short-seed',
    category: 'payload',
    summary: 'accepts short seeds only',
    params: { seed: str({ maxLength: 16 }), token: str({ minLength: 1, maxLength: 32, required: true }) },
    docs: { random: 'seeded' },
    handle() {},
  });
  const pool = randomPool(new Registry('chaos', [seeded]));
  const short = pickFor(pool, 'abc');
  t.equal(short.values.seed, 'abc');
  t.match(short.values.token, /^r[0-9a-f]{8}$/);
  t.same(pickFor(pool, 'abc'), short, 'deterministic');
  const long = pickFor(pool, 'x'.repeat(100));
  t.match(long.values.seed, /^[0-9a-f]{16}$/);
  t.equal(long.target, `/short-seed?seed=${String(long.values.seed)}&token=${String(long.values.token)}`);
});
