// /status/{code} and /flaky on the chaos host, asserted on raw sockets.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { REASONS } from '../../shared/primitives/headers.js';
import { flakyDraw } from '../../shared/content/fault-injection/index.js';
import { chaosHeaderNames, exchange, json, mapLimit, pipelined } from '../helpers/final-response.js';
import { get } from '../helpers/raw.js';
import { startChaos } from '../helpers/servers.js';

const reason = (code: number): string => REASONS[code] ?? 'Unknown';
const run = promisify(execFile);

t.test('/status/{code}: the requested status, JSON naming it, X-Chaos-Status', async (t) => {
  const { port } = await startChaos(t);
  for (const code of [200, 201, 202, 299, 301, 302, 400, 401, 404, 418, 429, 500, 503, 599]) {
    const ex = await exchange(port, get(`/status/${code}`));
    const r = ex.response;
    t.equal(r.status, code, `${code}: status line`);
    t.equal(r.reason, reason(code), `${code}: reason phrase from REASONS`);
    t.equal(r.header('content-type'), 'application/json');
    t.equal(r.header('x-chaos-status'), String(code), `${code}: X-Chaos-Status`);
    t.equal(r.header('x-chaos-category'), 'status');
    t.equal(r.header('x-chaos-endpoint'), '/status/{code}');
    t.same(json(ex), { endpoint: '/status/{code}', status: code, reason: reason(code) }, `${code}: body`);
    t.equal(ex.interims.length, 0, `${code}: no interim head`);
  }
});

t.test('/status/101 (switches protocols) is refused with 400 and the spec error shape', async (t) => {
  const { port } = await startChaos(t);
  const ex = await exchange(port, get('/status/101'));
  t.equal(ex.response.status, 400);
  t.equal(ex.interims.length, 0, 'no 101 ever goes out');
  t.equal(ex.response.header('x-chaos-status'), '400', 'X-Chaos-Status is on this answer too (the returned code)');
  const body = json(ex);
  t.same(Object.keys(body).sort(), ['endpoint', 'error', 'reason', 'requested']);
  t.equal(body.endpoint, '/status/{code}');
  t.equal(body.requested, 101);
  t.equal(body.error, 'protocol_switching_status');
  t.match(body.reason, /101 Switching Protocols/);
  t.notOk(ex.raw.data.includes('HTTP/1.1 101'), 'the bytes hold no 101 status line');
});

t.test('/status/1xx: the interim head, then a final 200 JSON naming it', async (t) => {
  const { port } = await startChaos(t);
  for (const code of [100, 102, 103, 150, 199]) {
    const ex = await exchange(port, get(`/status/${code}`));
    const text = ex.raw.data.toString('latin1');
    t.ok(text.startsWith(`HTTP/1.1 ${code} ${reason(code)}\r\n`), `${code}: the first bytes are the interim status line`);
    t.equal(ex.interims.length, 1, `${code}: exactly one interim head`);
    const interim = ex.interims[0];
    t.equal(interim?.status, code);
    t.equal(interim?.header('content-length'), undefined, `${code}: the interim head has no Content-Length`);
    t.equal(interim?.header('x-chaos-status'), String(code));
    t.equal(interim?.header('x-chaos-endpoint'), '/status/{code}');
    t.equal(ex.response.status, 200, `${code}: final 200`);
    t.equal(ex.response.header('x-chaos-status'), String(code), `${code}: X-Chaos-Status carries the requested code`);
    t.same(json(ex), {
      endpoint: '/status/{code}',
      status: 200,
      reason: 'OK',
      interim_status: code,
      interim_reason: reason(code),
      interim_sent: true,
    });
  }
});

t.test('/status/1xx to an HTTP/1.0 client: no interim (RFC 9110 §15.2), the final 200 says so', async (t) => {
  const { port } = await startChaos(t);
  const ex = await exchange(port, 'GET /status/103 HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n');
  t.equal(ex.interims.length, 0);
  t.ok(ex.raw.data.toString('latin1').startsWith('HTTP/1.1 200 OK\r\n'));
  t.equal(ex.response.header('x-chaos-status'), '103');
  t.equal(json(ex).interim_sent, false);
});

t.test('/status/204 and /status/304: no body bytes; the next pipelined request parses cleanly', async (t) => {
  const { port } = await startChaos(t);
  for (const code of [204, 304]) {
    const { raw, exchanges } = await pipelined(port, [get(`/status/${code}`), get('/status/200'), get(`/status/${code}`), get('/status/418')]);
    const [first, second, third, fourth] = exchanges;
    t.equal(first?.response.status, code);
    t.equal(first?.response.header('content-length'), undefined, `${code}: no Content-Length`);
    t.equal(first?.response.header('content-type'), undefined, `${code}: no Content-Type`);
    t.equal(first?.response.header('x-chaos-status'), String(code));
    t.ok(first?.response.rest.subarray(0, 9).equals(Buffer.from('HTTP/1.1 ')), `${code}: the next status line follows the blank line at once`);
    t.equal(second?.response.status, 200);
    t.same(json(second as { body: Buffer }), { endpoint: '/status/{code}', status: 200, reason: 'OK' });
    t.equal(third?.response.status, code);
    t.equal(fourth?.response.status, 418);
    t.equal(raw.end, 'stopped', 'the connection stayed open for more');
    // Exactly four heads and two 67/52-byte bodies: nothing else on the wire.
    const heads = raw.data.toString('latin1').match(/HTTP\/1\.1 \d{3}/g) ?? [];
    t.equal(heads.length, 4);
  }
});

t.test('/status/205: Content-Length 0 and no content (RFC 9110 §15.3.6)', async (t) => {
  const { port } = await startChaos(t);
  const { exchanges } = await pipelined(port, [get('/status/205'), get('/status/200')]);
  t.equal(exchanges[0]?.response.status, 205);
  t.equal(exchanges[0]?.response.header('content-length'), '0');
  t.equal(exchanges[0]?.body.length, 0);
  t.equal(exchanges[1]?.response.status, 200);
});

t.test('HEAD /status/{code}: the head with the body length, no body', async (t) => {
  const { port } = await startChaos(t);
  const { exchanges } = await pipelined(port, [get('/status/418', {}, 'HEAD'), get('/status/200')], [true, false]);
  t.equal(exchanges[0]?.response.status, 418);
  t.equal(exchanges[0]?.response.header('content-length'), String(Buffer.byteLength(JSON.stringify({ endpoint: '/status/{code}', status: 418, reason: reason(418) }) + '\n')));
  t.equal(exchanges[1]?.response.status, 200, 'no body bytes came between the two');
});

t.test('/status/{code} clamps into 100–599 and reports it; bad input is a 400 without X-Chaos-*', async (t) => {
  const { port } = await startChaos(t);
  const high = await exchange(port, get('/status/99999'));
  t.equal(high.response.status, 599);
  t.equal(high.response.header('x-chaos-clamped'), 'code=599');
  t.equal(high.response.header('x-chaos-status'), '599');
  for (const low of ['0', '99', '-5']) {
    const ex = await exchange(port, get(`/status/${low}`));
    t.equal(ex.interims[0]?.status, 100, `${low}: clamped to 100, an interim Continue`);
    t.equal(ex.response.status, 200);
    t.equal(ex.response.header('x-chaos-clamped'), 'code=100');
  }
  const inRange = await exchange(port, get('/status/404'));
  t.equal(inRange.response.header('x-chaos-clamped'), undefined, 'no X-Chaos-Clamped when nothing was clamped');
  for (const bad of ['abc', '1.5', '2e2', '%20200', '0x1f']) {
    const ex = await exchange(port, get(`/status/${bad}`));
    t.equal(ex.response.status, 400, `${bad}: 400`);
    t.same(chaosHeaderNames(ex.response), [], `${bad}: a real error carries no X-Chaos-*`);
    const body = json(ex);
    t.equal(body.error, 'invalid_parameter');
    t.equal(body.param, 'code');
    t.equal(body.endpoint, '/status/{code}');
  }
  for (const path of ['/status/', '/status/200/extra']) {
    const ex = await exchange(port, get(path));
    t.equal(ex.response.status, 404, `${path}: not this endpoint (catalog fallback)`);
  }
});

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

t.test('as curl sees it: the interim head before the final one; 204 ends cleanly; /flaky?p=1 fails', async (t) => {
  const { port } = await startChaos(t);
  const base = `http://127.0.0.1:${port}`;
  const interim = await run('curl', ['-si', '--max-time', '5', `${base}/status/103`]);
  t.match(interim.stdout, /^HTTP\/1\.1 103 Early Hints\r\n(?:[^\r]+\r\n)*\r\nHTTP\/1\.1 200 OK\r\n/);
  t.match(interim.stdout, /"interim_status":103/);
  // Two URLs on one curl connection: the 204 must not swallow or leak bytes.
  const noContent = await run('curl', ['-si', '--max-time', '5', `${base}/status/204`, `${base}/status/418`]);
  t.match(noContent.stdout, /^HTTP\/1\.1 204 No Content\r\n(?:[^\r]+\r\n)*\r\nHTTP\/1\.1 418 I'm a teapot\r\n/);
  const flaky = await run('curl', ['-si', '--max-time', '5', `${base}/flaky?p=1&status=503`]);
  t.match(flaky.stdout, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
  t.match(flaky.stdout, /\r\nX-Chaos-Flaky-Failed: true\r\n/);
});
