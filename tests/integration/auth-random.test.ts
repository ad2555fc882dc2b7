// /auth-required and /random on the chaos host, on raw sockets.
import t from 'tap';
import { neverRandom, pickFor, randomPool } from '../../shared/registry/random-pick.js';
import { digestNonce } from '../../shared/content/auth/index.js';
import { chaosHeaderNames, exchange, exchangesComplete, json, lenientExchange, linesWithoutDate, mapLimit } from '../helpers/final-response.js';
import { get, rawExchange } from '../helpers/raw.js';
import { startChaos } from '../helpers/servers.js';
import { serviceRegistries } from '../../services/registries.js';

// testConfig() names the hub http://hub.test:8080: the realm defaults to its host name.
const REALM = 'hub.test';

t.test('/auth-required without Authorization: 401 with the chosen challenge', async (t) => {
  const { port } = await startChaos(t);
  const basic = await exchange(port, get('/auth-required'));
  t.equal(basic.response.status, 401);
  t.same(basic.response.headers('www-authenticate'), [`Basic realm="${REALM}"`], 'basic is the default; realm is the domain, quoted');
  t.equal(basic.response.header('x-chaos-auth-scheme'), 'basic');
  t.equal(basic.response.header('x-chaos-auth-accepted'), 'false');
  t.equal(basic.response.header('x-chaos-category'), 'auth');
  t.match(json(basic), { endpoint: '/auth-required', authenticated: false, scheme: 'basic', realm: REALM });

  const bearer = await exchange(port, get('/auth-required?scheme=bearer'));
  t.same(bearer.response.headers('www-authenticate'), [`Bearer realm="${REALM}"`]);

  const digest = await exchange(port, get('/auth-required?scheme=digest'));
  const { nonce, opaque } = digestNonce(REALM);
  t.same(digest.response.headers('www-authenticate'), [
    `Digest realm="${REALM}", qop="auth", algorithm=SHA-256, nonce="${nonce}", opaque="${opaque}"`,
  ]);
  t.match(nonce, /^[0-9a-f]{32}$/);
  const again = await exchange(port, get('/auth-required?scheme=digest'));
  t.equal(again.response.header('www-authenticate'), digest.response.header('www-authenticate'), 'the digest challenge is reproducible');

  const none = await exchange(port, get('/auth-required?scheme=none'));
  t.equal(none.response.status, 401, 'scheme=none: still 401');
  t.same(none.response.headers('www-authenticate'), [], 'scheme=none: no WWW-Authenticate at all');
  t.equal(none.response.header('x-chaos-auth-scheme'), 'none');
});

t.test('/auth-required with any Authorization header at all: 200', async (t) => {
  const { port } = await startChaos(t);
  const values = ['Basic Zm9vOmJhcg==', 'Bearer nonsense', 'Digest username="x"', 'garbage', ''];
  for (const scheme of ['basic', 'bearer', 'digest', 'none']) {
    for (const value of values) {
      const ex = await exchange(port, `GET /auth-required?scheme=${scheme} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${value}\r\n\r\n`);
      t.equal(ex.response.status, 200, `${scheme} with ${JSON.stringify(value)}: 200`);
      t.same(ex.response.headers('www-authenticate'), [], 'no challenge on success');
      t.equal(ex.response.header('x-chaos-auth-accepted'), 'true');
      t.match(json(ex), { endpoint: '/auth-required', authenticated: true, scheme });
    }
  }
  const lower = await exchange(port, `GET /auth-required HTTP/1.1\r\nHost: 127.0.0.1\r\nauthorization: x\r\n\r\n`);
  t.equal(lower.response.status, 200, 'the header name is case-insensitive');
  const body = json(lower);
  t.notOk(JSON.stringify(body).includes('"x"'), 'the credential is never echoed');
});

t.test('/auth-required realm: sanitised to letters, digits, . _ - and space, then cut to 64', async (t) => {
  const { port } = await startChaos(t);
  const cases: [string, string][] = [
    ['My%20Realm', 'My Realm'],
    ['a%22b%5Cc%2Cd%3De', 'abcde'],
    ['%3Cscript%3Ealert(1)%3C%2Fscript%3E', 'scriptalert1script'],
    ['r%C3%A9alm_1.0-x', 'ralm_1.0-x'],
    [`${'x'.repeat(70)}`, 'x'.repeat(64)],
    [`${'!'.repeat(10)}${'y'.repeat(80)}`, 'y'.repeat(64)],
    ['%0D%0AX-Injected:%201', 'X-Injected 1'],
    ['', ''],
    ['!!!', ''],
  ];
  for (const [raw, expected] of cases) {
    const ex = await exchange(port, get(`/auth-required?realm=${raw}`));
    t.equal(ex.response.status, 401, `${raw.slice(0, 20)}: longer input is cut, not refused`);
    t.same(ex.response.headers('www-authenticate'), [`Basic realm="${expected}"`], `${raw.slice(0, 20)} → ${JSON.stringify(expected)}`);
    t.equal(json(ex).realm, expected);
    t.equal(ex.response.header('x-injected'), undefined);
  }
  const long = await exchange(port, get(`/auth-required?scheme=bearer&realm=${'z'.repeat(2000)}`));
  t.equal(long.response.header('www-authenticate'), `Bearer realm="${'z'.repeat(64)}"`);
});

t.test('/auth-required bad input: unknown scheme is a 400 without X-Chaos-*', async (t) => {
  const { port } = await startChaos(t);
  for (const scheme of ['ntlm', 'Basic', '']) {
    const ex = await exchange(port, get(`/auth-required?scheme=${scheme}`));
    t.equal(ex.response.status, 400, `scheme=${scheme}`);
    t.same(chaosHeaderNames(ex.response), []);
    t.match(json(ex), { error: 'invalid_parameter', param: 'scheme', accepted: ['basic', 'bearer', 'digest', 'none'] });
  }
});

const SEEDS = ['a', 'b', 'c', '1', '2', '42', 'chaos', 'é✓', 'with space'];

t.test('/random: the same seed picks the same endpoint and, for seeded picks, the same response', async (t) => {
  const { port } = await startChaos(t);
  const pool = randomPool(serviceRegistries().chaos);
  const picked = new Set<string>();
  for (const seed of SEEDS) {
    const q = `/random?seed=${encodeURIComponent(seed)}`;
    const a = await lenientExchange(port, get(q));
    const b = await lenientExchange(port, get(q));
    const from = a.response.header('x-chaos-random-from') as string;
    picked.add(from);
    const expected = pickFor(pool, seed);
    t.equal(from, expected.path, `${seed}: X-Chaos-Random-From names the pick`);
    t.equal(b.response.header('x-chaos-random-from'), from, `${seed}: same pick twice`);
    t.equal(a.response.header('x-chaos-random-seed'), encodeURIComponent(seed));
    t.equal(a.response.header('x-chaos-random-target'), expected.target);
    t.equal(a.response.header('x-chaos-endpoint'), expected.endpoint.path, `${seed}: the picked endpoint answers as itself`);
    t.equal(a.response.header('x-chaos-category'), expected.endpoint.category);
    if (expected.endpoint.random === 'seeded') {
      t.equal(b.response.statusLine, a.response.statusLine, `${seed}: same status`);
      t.same(linesWithoutDate(b.response), linesWithoutDate(a.response), `${seed}: same headers`);
      t.ok(b.body.equals(a.body), `${seed}: same body`);
      // The pick is the picked endpoint's own answer to its defaults plus the seed.
      const direct = await lenientExchange(port, get(expected.target));
      t.equal(direct.response.statusLine, a.response.statusLine, `${seed}: same as calling ${expected.target} directly`);
      t.same(
        linesWithoutDate(a.response).filter((l) => !/^X-Chaos-Random-/.test(l)),
        linesWithoutDate(direct.response),
        `${seed}: only X-Chaos-Random-* added`,
      );
      t.ok(direct.body.equals(a.body));
    }
  }
  t.ok(picked.size >= 3, `several endpoints come up (${[...picked].join(', ')})`);
});

t.test('/random never picks /slow, /drip, /partial-stream, /bytes, /mix (nor itself), over many seeds', async (t) => {
  const { port } = await startChaos(t);
  const pool = randomPool(serviceRegistries().chaos);
  const excluded = new Set(serviceRegistries().chaos.endpoints.filter((e) => neverRandom(e)).map((e) => e.path));
  t.same([...excluded].sort(), ['/bytes', '/drip', '/jitter', '/mix', '/partial-stream', '/random', '/slow', '/slow-headers', '/sse', '/stall'], 'the exclusions');
  for (const endpoint of pool) t.notOk(excluded.has(endpoint.path), `${endpoint.path} may be picked`);
  const paths = new Set<string>();
  for (let i = 0; i < 3000; i++) paths.add(pickFor(pool, `many-${i}`).endpoint.path);
  t.same([...paths].sort(), pool.map((e) => e.path).sort(), 'over 3000 seeds every pool member, and only those, comes up');
  const seeds = Array.from({ length: 80 }, (_, i) => `wire-${i}`);
  const answers = await mapLimit(seeds, 8, (seed) => lenientExchange(port, get(`/random?seed=${seed}`)));
  for (const ex of answers) {
    const from = ex.response.header('x-chaos-random-from') ?? '';
    const endpoint = ex.response.header('x-chaos-endpoint') ?? '';
    if (excluded.has(from) || excluded.has(endpoint) || from === '') t.fail(`picked ${from} (${endpoint})`);
  }
  t.pass('80 calls on the wire, none of them a forbidden pick');
});

t.test('/random: no pick stalls or holds the connection (each answer completes or closes within 3 s)', async (t) => {
  const { port } = await startChaos(t);
  const pool = randomPool(serviceRegistries().chaos);
  t.notOk(pool.some((e) => e.path === '/bytes'), '/bytes is not in the pool: its default overshoot holds the connection');
  for (const endpoint of pool) {
    const seed = Array.from({ length: 3000 }, (_, i) => `ends-${i}`).find((s) => pickFor(pool, s).endpoint === endpoint);
    if (seed === undefined) {
      t.fail(`no seed picks ${endpoint.path}`);
      continue;
    }
    const raw = await rawExchange(port, get(`/random?seed=${seed}`), { until: exchangesComplete(1), timeoutMs: 3000 });
    t.not(raw.end, 'timeout', `${endpoint.path} (seed ${seed}): the answer completes or the connection closes`);
  }
});

t.test('/random picks a seeded code for /status/{code} and forwards the seed where there is one', async (t) => {
  const { port } = await startChaos(t);
  const pool = randomPool(serviceRegistries().chaos);
  const statusSeed = Array.from({ length: 200 }, (_, i) => `s${i}`).find((s) => pickFor(pool, s).endpoint.id === 'status') as string;
  const flakySeed = Array.from({ length: 200 }, (_, i) => `f${i}`).find((s) => pickFor(pool, s).endpoint.id === 'flaky') as string;
  t.ok(statusSeed && flakySeed, 'seeds exist for both picks');
  const status = await lenientExchange(port, get(`/random?seed=${statusSeed}`));
  const from = status.response.header('x-chaos-random-from') as string;
  t.match(from, /^\/status\/\d{3}$/, 'the template is filled in');
  t.equal(status.response.status, Number(from.slice('/status/'.length)), 'the response has the picked code');
  t.equal(status.response.header('x-chaos-status'), from.slice('/status/'.length));
  const flaky = await lenientExchange(port, get(`/random?seed=${flakySeed}`));
  t.equal(flaky.response.header('x-chaos-flaky-seed'), flakySeed, 'the seed is forwarded as the pick’s own seed');
  t.equal(flaky.response.header('x-chaos-random-target'), `/flaky?seed=${flakySeed}`);
});

t.test('/random without a seed reports the one it drew; replaying it gives the same pick', async (t) => {
  const { port } = await startChaos(t);
  for (let i = 0; i < 6; i++) {
    const ex = await lenientExchange(port, get('/random'));
    const seed = ex.response.header('x-chaos-random-seed') as string;
    t.match(seed, /^[0-9a-f]{16}$/);
    const replay = await lenientExchange(port, get(`/random?seed=${seed}`));
    t.equal(replay.response.header('x-chaos-random-from'), ex.response.header('x-chaos-random-from'));
  }
});

t.test('/random: HEAD gives the head only; a too-long seed is a 400; pipelining stays clean', async (t) => {
  const { port } = await startChaos(t);
  const head = await exchange(port, get('/random?seed=a', {}, 'HEAD'), true);
  t.ok(head.response.header('x-chaos-random-from'));
  t.equal(head.response.rest.length, 0, 'no body bytes');
  const long = await exchange(port, get(`/random?seed=${'x'.repeat(257)}`));
  t.equal(long.response.status, 400);
  t.same(chaosHeaderNames(long.response), []);
});

t.test('the catalog says which /random picks the seed does not cover', async (t) => {
  const { port } = await startChaos(t);
  const html = (await exchange(port, get('/'))).body.toString('utf8');
  t.match(html, /Seeding does not cover: <code>\/retry-mismatch<\/code>/);
  t.match(html, /id="chaos-ep-retry-mismatch">[^\n]*NOT covered by the seed/);
  const catalog = json(await exchange(port, get('/', { Accept: 'application/json' }))) as {
    categories: { endpoints: { path: string; random?: string }[] }[];
  };
  const entries = catalog.categories.flatMap((c) => c.endpoints);
  t.equal(entries.find((e) => e.path === '/retry-mismatch')?.random, 'unseeded');
  t.equal(entries.find((e) => e.path === '/flaky')?.random, 'seeded');
  t.equal(entries.find((e) => e.path === '/slow')?.random, undefined);
});
