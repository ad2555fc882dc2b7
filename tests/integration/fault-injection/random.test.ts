// /random on the chaos host, on raw sockets, and its control twin's
// deterministic pick among the twins.
import t from 'tap';
import { neverRandom, pickFor, randomPool } from '../../../shared/registry/random-pick.js';
import { chaosHeaderNames, exchange, exchangesComplete, json, lenientExchange, linesWithoutDate, mapLimit } from '../../helpers/final-response.js';
import { get, rawExchange } from '../../helpers/raw.js';
import { startChaos, startHttp } from '../../helpers/servers.js';
import { serviceRegistries } from '../../../services/registries.js';

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

t.test('/random never picks /slow, /drip, /partial-stream, /bytes, /mix, the WebSockets, the held HTTP/2 lies (nor itself), over many seeds', async (t) => {
  const { port } = await startChaos(t);
  const pool = randomPool(serviceRegistries().chaos);
  const excluded = new Set(serviceRegistries().chaos.endpoints.filter((e) => neverRandom(e)).map((e) => e.path));
  t.same([...excluded].sort(), [
    // /mcp: its session modes hold the connection (a stream the client reads).
    '/bytes', '/drip',
    // The HTTP/2 lies that hold a stream (in some or all of their modes).
    '/h2/flow', '/h2/settings', '/h2/stall', '/h2/upload-stall',
    '/jitter', '/mcp', '/mix', '/partial-stream', '/random', '/slow', '/slow-headers', '/sse', '/stall',
    // WebSockets hold their connection (and need an Upgrade the /random caller did not send).
    '/ws/close', '/ws/deflate', '/ws/frames', '/ws/handshake', '/ws/ping-flood', '/ws/pong-lie',
  ], 'the exclusions');
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

t.test('control /random: a deterministic pick among the twins, default seed 42', async (t) => {
  const { port } = await startHttp(t, 'control');
  const pool = randomPool(serviceRegistries().control);
  for (const seed of ['42', 'a', 'b', 'é']) {
    const query = seed === '42' ? '/random' : `/random?seed=${encodeURIComponent(seed)}`;
    const a = await exchange(port, get(query));
    const b = await exchange(port, get(query));
    const expected = pickFor(pool, seed);
    t.equal(a.response.header('x-chaos-random-from'), expected.path, `${seed}: the pick`);
    t.equal(b.response.statusLine, a.response.statusLine);
    t.ok(b.body.equals(a.body), `${seed}: same body twice`);
    t.equal(a.response.header('x-chaos-origin'), 'control');
  }
  for (let i = 0; i < 500; i++) {
    const path = pickFor(pool, `c${i}`).endpoint.path;
    if (['/slow', '/drip', '/partial-stream', '/random'].includes(path)) t.fail(`picked ${path}`);
  }
});
