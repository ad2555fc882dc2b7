// /flaky on the chaos host, asserted on raw sockets (and curl, as a user sees
// it), and its control twin, which never fails.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { flakyDraw } from '../../../shared/content/fault-injection/index.js';
import { chaosHeaderNames, exchange, json, mapLimit, pipelined } from '../../helpers/final-response.js';
import { fetchJson } from '../../helpers/fetch-json.js';
import { get } from '../../helpers/raw.js';
import { startChaos, startHttp } from '../../helpers/servers.js';

const run = promisify(execFile);

t.test('/flaky: p=0 never fails, p=1 always fails, both outcomes carry the flaky headers', async (t) => {
  const { port } = await startChaos(t);
  const calls = Array.from({ length: 120 }, (_, i) => i);
  const never = await mapLimit(calls, 8, () => exchange(port, get('/flaky?p=0')));
  t.ok(never.every((ex) => ex.response.status === 200), 'p=0: 120 of 120 answered 200');
  t.ok(never.every((ex) => ex.response.header('x-chaos-flaky-failed') === 'false'));
  t.ok(never.every((ex) => ex.response.header('x-chaos-flaky-probability') === '0'));
  const always = await mapLimit(calls, 8, () => exchange(port, get('/flaky?p=1&status=503')));
  t.ok(always.every((ex) => ex.response.status === 503), 'p=1: 120 of 120 answered the chosen status');
  t.ok(always.every((ex) => ex.response.header('x-chaos-flaky-failed') === 'true'));
  t.ok(always.every((ex) => ex.response.header('x-chaos-flaky-probability') === '1'));
  const seeds = new Set(always.map((ex) => ex.response.header('x-chaos-flaky-seed')));
  t.equal(seeds.size, 120, 'without a seed every call draws a fresh one, reported in X-Chaos-Flaky-Seed');
  const failure = always[0];
  t.same(json(failure as { body: Buffer }), {
    endpoint: '/flaky',
    failed: true,
    status: 503,
    reason: 'Service Unavailable',
    probability: 1,
    seed: failure?.response.header('x-chaos-flaky-seed'),
  });
  t.equal(failure?.response.header('x-chaos-category'), 'fault-injection');
  const success = await exchange(port, get('/flaky?p=0&seed=s'));
  t.same(json(success), { endpoint: '/flaky', failed: false, status: 200, reason: 'OK', probability: 0, seed: 's' });
});

t.test('/flaky: default p=0.5 and status 500; the same seed always gives the same outcome', async (t) => {
  const { port } = await startChaos(t);
  const seeds = Array.from({ length: 40 }, (_, i) => `seed-${i}`);
  const first = await mapLimit(seeds, 8, (seed) => exchange(port, get(`/flaky?seed=${seed}`)));
  const again = await mapLimit(seeds, 8, (seed) => exchange(port, get(`/flaky?seed=${seed}`)));
  let failures = 0;
  seeds.forEach((seed, i) => {
    const a = first[i]?.response;
    const b = again[i]?.response;
    const expectFail = flakyDraw(seed) < 0.5;
    if (expectFail) failures++;
    t.equal(a?.status, expectFail ? 500 : 200, `${seed}: outcome is the seeded draw`);
    t.equal(b?.status, a?.status, `${seed}: same outcome twice`);
    t.equal(a?.header('x-chaos-flaky-failed'), String(expectFail));
    t.equal(a?.header('x-chaos-flaky-probability'), '0.5');
    t.equal(a?.header('x-chaos-flaky-seed'), seed);
  });
  t.ok(failures > 5 && failures < 35, `both outcomes occur over 40 seeds (${failures} failures)`);
});

t.test('/flaky: an unseeded call replays exactly from its reported seed', async (t) => {
  const { port } = await startChaos(t);
  const outcomes = new Set<number>();
  for (let i = 0; i < 24; i++) {
    const ex = await exchange(port, get('/flaky?p=0.5&status=502'));
    const seed = ex.response.header('x-chaos-flaky-seed') as string;
    outcomes.add(ex.response.status);
    const replay = await exchange(port, get(`/flaky?p=0.5&status=502&seed=${encodeURIComponent(seed)}`));
    t.equal(replay.response.status, ex.response.status, `seed ${seed}: same status`);
    t.same(json(replay), json(ex), `seed ${seed}: same body`);
  }
  t.same([...outcomes].sort(), [200, 502], 'unseeded calls fail sometimes and succeed sometimes');
});

t.test('/flaky: a seed that fails at p fails at every higher p (one draw per seed)', async (t) => {
  const { port } = await startChaos(t);
  const seed = 'monotone';
  const draw = flakyDraw(seed);
  for (const p of [0, 0.1, 0.3, 0.5, 0.7, 0.9, 1]) {
    const ex = await exchange(port, get(`/flaky?seed=${seed}&p=${p}`));
    t.equal(ex.response.status, draw < p ? 500 : 200, `p=${p}`);
  }
});

t.test('/flaky failure statuses that frame differently are written as /status writes them', async (t) => {
  const { port } = await startChaos(t);
  const { exchanges } = await pipelined(port, [get('/flaky?p=1&status=204'), get('/flaky?p=1&status=304'), get('/flaky?p=0')]);
  t.equal(exchanges[0]?.response.status, 204);
  t.equal(exchanges[0]?.response.header('content-length'), undefined);
  t.equal(exchanges[0]?.response.header('x-chaos-flaky-failed'), 'true');
  t.equal(exchanges[1]?.response.status, 304);
  t.equal(exchanges[2]?.response.status, 200, 'the keep-alive connection parses cleanly after bodiless failures');

  const interim = await exchange(port, get('/flaky?p=1&status=103&seed=x'));
  t.equal(interim.interims[0]?.status, 103, '1xx failure: the interim head first');
  t.equal(interim.interims[0]?.header('x-chaos-flaky-failed'), 'true');
  t.equal(interim.response.status, 200, 'then a final 200');
  t.equal(interim.response.header('x-chaos-flaky-failed'), 'true');
  t.match(json(interim), { failed: true, status: 103, interim_sent: true });

  const refused = await exchange(port, get('/flaky?p=0&status=101'));
  t.equal(refused.response.status, 400, 'status=101 is refused whatever the draw');
  t.same(chaosHeaderNames(refused.response), []);
  t.match(json(refused), { error: 'invalid_parameter', param: 'status', requested: '101' });
});

t.test('/flaky bad input: 400 for the wrong type, clamping reported for out-of-range numbers', async (t) => {
  const { port } = await startChaos(t);
  for (const query of ['p=abc', 'p=', 'status=abc', 'status=5.5', `seed=${'x'.repeat(257)}`]) {
    const ex = await exchange(port, get(`/flaky?${query}`));
    t.equal(ex.response.status, 400, `${query.slice(0, 20)}: 400`);
    t.same(chaosHeaderNames(ex.response), [], `${query.slice(0, 20)}: no X-Chaos-*`);
    t.equal(json(ex).endpoint, '/flaky');
  }
  const p = await exchange(port, get('/flaky?p=7&seed=a'));
  t.equal(p.response.header('x-chaos-clamped'), 'p=1');
  t.equal(p.response.header('x-chaos-flaky-probability'), '1');
  t.equal(p.response.status, 500);
  const negative = await exchange(port, get('/flaky?p=-1'));
  t.equal(negative.response.header('x-chaos-clamped'), 'p=0');
  t.equal(negative.response.status, 200);
  const status = await exchange(port, get('/flaky?p=1&status=700'));
  t.equal(status.response.status, 599);
  t.equal(status.response.header('x-chaos-clamped'), 'status=599');
});

t.test('as curl sees it: /flaky?p=1 fails', async (t) => {
  const { port } = await startChaos(t);
  const base = `http://127.0.0.1:${port}`;
  const flaky = await run('curl', ['-si', '--max-time', '5', `${base}/flaky?p=1&status=503`]);
  t.match(flaky.stdout, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
  t.match(flaky.stdout, /\r\nX-Chaos-Flaky-Failed: true\r\n/);
});

t.test('control /flaky never fails', async (t) => {
  const { port } = await startHttp(t, 'control');
  for (let i = 0; i < 40; i++) {
    const { res, body } = await fetchJson(`http://127.0.0.1:${port}/flaky?p=1&status=503&seed=s${i}`);
    t.equal(res.status, 200);
    t.same(body, { endpoint: '/flaky', failed: false, status: 200, reason: 'OK', probability: 1, seed: `s${i}` });
  }
  t.equal((await fetchJson(`http://127.0.0.1:${port}/flaky?status=101`)).res.status, 400, 'same parameter rules as the chaos host');
});
