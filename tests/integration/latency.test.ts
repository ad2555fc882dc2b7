// The latency category on real sockets: /slow, /drip and /stall (SPEC §4.1),
// /slow-headers and /jitter (issue 12: the exact bytes, their schedule, their
// bounds, the 400s), and their well-formed control twins.
import { execFile } from 'node:child_process';
import http from 'node:http';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { completeByLength, get, parseHead, rawExchange } from '../helpers/raw.js';
import { nodeGet, type NodeAnswer } from '../helpers/node-get.js';
import { startChaos, startHttp, testConfig } from '../helpers/servers.js';

const withoutDate = (text: string): string => text.replace(/\r\nDate: [^\r]*/, '\r\nDate: <date>');
const chaosLines = (data: Buffer): string[] =>
  parseHead(data).headerLines.filter(([n]) => /^x-chaos-/i.test(n)).map(([n]) => n);

t.test('chaos host', async (t) => {
  const { port } = await startChaos(t);
  const fetchRaw = (path: string, timeoutMs = 5000) => rawExchange(port, get(path), { until: completeByLength, timeoutMs });

  t.test('/slow waits ms, then sends everything at once', async (t) => {
    const r = await fetchRaw('/slow?ms=300');
    const head = parseHead(r.data);
    t.equal(head.status, 200);
    t.equal(head.header('content-type'), 'application/json');
    t.equal(head.header('x-chaos-delayed-ms'), '300');
    t.equal(head.header('x-chaos-category'), 'latency');
    t.same(JSON.parse(head.rest.toString()), { endpoint: '/slow', delayed_ms: 300, max_ms: 15000 });
    const first = r.arrivals[0]!.at;
    t.ok(first >= 290, `nothing before the delay (first byte at ${first.toFixed(0)} ms)`);
    t.ok(first < 2000, 'and not absurdly later');
    t.equal(r.arrivals.length, 1, 'head and body arrive together');
  });

  t.test('/slow defaults to 1000 ms and clamps to 15000', async (t) => {
    const r = await fetchRaw('/slow');
    t.equal(parseHead(r.data).header('x-chaos-delayed-ms'), '1000');
    t.ok(r.arrivals[0]!.at >= 990);
    // Clamping is reported; we don't wait 15 s for it: the client leaves early.
    const clamped = await rawExchange(port, get('/slow?ms=99999'), { timeoutMs: 200 });
    t.equal(clamped.end, 'timeout', 'still waiting after 200 ms');
  });

  t.test('/slow ms=abc is a clear 400, not chaos', async (t) => {
    const head = parseHead((await fetchRaw('/slow?ms=abc')).data);
    t.equal(head.status, 400);
    t.same(head.headerLines.filter(([n]) => /^x-chaos-/i.test(n)), [], 'no X-Chaos-* on a real error');
    t.match(JSON.parse(head.rest.toString()), { endpoint: '/slow', error: 'invalid_parameter', requested: 'abc', param: 'ms' });
  });

  t.test('/drip: headers at once, chunks of `chunk` bytes `interval` ms apart', async (t) => {
    const r = await fetchRaw('/drip?bytes=50&chunk=10&interval=100');
    const head = parseHead(r.data);
    t.equal(head.status, 200);
    t.equal(head.header('content-length'), '50');
    t.equal(head.rest.toString(), '*'.repeat(50));
    t.ok(r.arrivals[0]!.at < 100, 'the head arrives immediately');
    t.equal(r.arrivals.length, 5, 'five separate arrivals (head + first chunk, then four)');
    const bodyArrivals = r.arrivals.slice(1);
    for (const a of bodyArrivals) t.equal(a.bytes, 10, 'each later arrival is one chunk');
    const total = r.arrivals.at(-1)!.at;
    t.ok(total >= 390 && total < 1500, `last chunk ~400 ms after the head (was ${total.toFixed(0)} ms)`);
    t.same([head.header('x-chaos-drip-bytes'), head.header('x-chaos-drip-interval-ms'), head.header('x-chaos-drip-chunk')], ['50', '100', '10']);
  });

  t.test('/drip clamps interval and reports it', async (t) => {
    const head = parseHead((await fetchRaw('/drip?bytes=3&chunk=1&interval=1')).data);
    t.equal(head.header('x-chaos-clamped'), 'interval=10');
    t.equal(head.header('x-chaos-drip-interval-ms'), '10');
  });
});

t.test('control host: the same resources, well-formed', async (t) => {
  const { port } = await startHttp(t, 'control');
  const base = `http://127.0.0.1:${port}`;
  const expectControl = (t: Test, res: Response, path: string) => {
    t.equal(res.headers.get('x-chaos-origin'), 'control');
    t.equal(res.headers.get('x-chaos-counterpart'), `http://chaos.test:8080${path}`);
  };

  t.test('/slow answers at once', async (t) => {
    const start = performance.now();
    const res = await fetch(`${base}/slow?ms=5000`);
    t.ok(performance.now() - start < 1000, 'prompt');
    t.same(await res.json(), { endpoint: '/slow', delayed_ms: 0, max_ms: 15000 });
    expectControl(t, res, '/slow?ms=5000');
  });

  t.test('/drip sends every byte at once with an accurate Content-Length', async (t) => {
    const res = await fetch(`${base}/drip?bytes=500&interval=5000`);
    t.equal(res.headers.get('content-length'), '500');
    t.equal(await res.text(), '*'.repeat(500));
  });
});

t.test('/drip fits its schedule into MAX_RESPONSE_MS by raising the chunk, on both hosts', async (t) => {
  const config = testConfig({ MAX_RESPONSE_MS: '1000' });
  const chaos = (await startChaos(t, { config })).port;
  const control = (await startHttp(t, 'control', config)).port;
  // 100 bytes in 10-byte chunks 200 ms apart would take 1800 ms: 6 chunks fit in 1000 ms, so 17 bytes each.
  const started = performance.now();
  const r = await rawExchange(chaos, get('/drip?bytes=100&interval=200&chunk=10'), { until: completeByLength, timeoutMs: 5000 });
  const took = performance.now() - started;
  const head = parseHead(r.data);
  t.equal(head.header('x-chaos-clamped'), 'chunk=17');
  t.equal(head.header('x-chaos-drip-chunk'), '17');
  t.equal(head.rest.length, 100, 'every byte still arrives');
  t.ok(took >= 900 && took < 1600, `ends within the bound: ${Math.round(took)} ms`);
  const twin = parseHead((await rawExchange(control, get('/drip?bytes=100&interval=200&chunk=10'), { until: completeByLength })).data);
  t.equal(twin.header('x-chaos-clamped'), 'chunk=17', 'the twin reports the same');
  // A clamp of the same parameter is reported once, with the applied value.
  const both = parseHead((await rawExchange(chaos, get('/drip?bytes=20&interval=1000&chunk=0'), { until: completeByLength, timeoutMs: 5000 })).data);
  t.equal(both.header('x-chaos-clamped'), 'chunk=10');
  // Within the bound nothing changes.
  const fits = parseHead((await rawExchange(chaos, get('/drip?bytes=10&interval=100&chunk=5'), { until: completeByLength })).data);
  t.equal(fits.header('x-chaos-clamped'), undefined);
});

t.test('the default bound: 5.8 days of /drip becomes two minutes', async (t) => {
  const { port } = await startChaos(t);
  const r = await rawExchange(port, get('/drip?bytes=100000&interval=5000&chunk=1'), { until: (d) => d.includes('\r\n\r\n') });
  const head = parseHead(r.data);
  t.equal(head.header('x-chaos-clamped'), 'chunk=4000');
  t.equal(head.header('x-chaos-drip-chunk'), '4000');
});

t.test('/stall: the head and `after` bytes at once, silence, then a clean close one byte short; the twin sends it all', async (t) => {
  const { port } = await startChaos(t);
  const started = performance.now();
  const r = await rawExchange(port, get('/stall?after=5&ms=400'), { timeoutMs: 3000 });
  const took = performance.now() - started;
  t.equal(r.end, 'fin', 'a clean close');
  const head = parseHead(r.data);
  t.equal(head.status, 200);
  t.equal(head.header('content-length'), '6', 'one byte more than is sent');
  t.equal(head.header('x-chaos-stall-after'), '5');
  t.equal(head.header('x-chaos-stall-ms'), '400');
  t.equal(head.header('x-chaos-promised-bytes'), '6');
  t.equal(head.rest.toString('latin1'), '01234');
  const first = r.arrivals[0]?.at ?? 0;
  t.ok(first < 200, `head and bytes at once (${Math.round(first)} ms)`);
  t.ok(took >= 380 && took < 1500, `the close after the silence (${Math.round(took)} ms)`);
  const curl = await promisify(execFile)('curl', ['-sS', '-o', '/dev/null', `http://127.0.0.1:${port}/stall?after=3&ms=100`]).then(
    () => ({ code: 0, stderr: '' }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );
  t.equal(curl.code, 18, 'curl: transfer closed with bytes remaining');
  t.match(curl.stderr, /1 bytes remaining/);
  const control = (await startHttp(t, 'control')).port;
  const twin = parseHead((await rawExchange(control, get('/stall?after=5&ms=400'), { until: completeByLength })).data);
  t.equal(twin.header('content-length'), '6');
  t.equal(twin.rest.toString('latin1'), '012345', 'the twin sends every promised byte at once');
  const bounded = parseHead((await rawExchange((await startChaos(t, { config: testConfig({ MAX_RESPONSE_MS: '1000' }) })).port, get('/stall?ms=60000'), { timeoutMs: 3000 })).data);
  t.equal(bounded.header('x-chaos-clamped'), 'ms=1000', 'never longer than MAX_RESPONSE_MS');
});

// ---------------------------------------------------------------- /slow-headers and /jitter

t.test('/slow-headers: the status line alone, then one header line every ms, then the rest', async (t) => {
  const { port } = await startChaos(t);
  const r = await rawExchange(port, get('/slow-headers?ms=150&lines=3'), { until: completeByLength, timeoutMs: 3000 });
  const body = '{"endpoint":"/slow-headers","interval_ms":150,"lines":3,"head_ms":450}\n';
  t.equal(
    withoutDate(r.data.toString('latin1')),
    'HTTP/1.1 200 OK\r\n' +
      'X-Slow-Header-001: line 1 of 3\r\nX-Slow-Header-002: line 2 of 3\r\nX-Slow-Header-003: line 3 of 3\r\n' +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nDate: <date>\r\n` +
      'X-Chaos-Category: latency\r\nX-Chaos-Endpoint: /slow-headers\r\nX-Chaos-Header-Interval-Ms: 150\r\nX-Chaos-Header-Lines: 3\r\n\r\n' +
      body,
    'the exact bytes',
  );
  t.same(
    r.arrivals.map((a) => a.bytes),
    [17, 32, 32, r.data.length - 17 - 64],
    'four writes: the status line, two header lines, the last line with the rest of the head and the body',
  );
  t.ok(r.arrivals[0]!.at < 100, `the status line at once (${r.arrivals[0]!.at.toFixed(0)} ms)`);
  for (const [i, a] of r.arrivals.entries()) {
    if (i > 0) t.ok(a.at >= i * 150 - 10, `line ${i} not before ${i * 150} ms (at ${a.at.toFixed(0)} ms)`);
  }
  t.ok(r.arrivals[3]!.at < 450 + 1000, 'and the head ends about lines × ms after the request');
});

t.test('/slow-headers: the connection stays usable after it (honest framing)', async (t) => {
  const { port } = await startChaos(t);
  const twoRequests = get('/slow-headers?ms=10&lines=2') + get('/status/200');
  const r = await rawExchange(port, twoRequests, { until: (d) => d.includes('"status":200'), timeoutMs: 3000 });
  t.equal(r.end, 'stopped', 'the pipelined /status/200 is answered too');
});

t.test('/slow-headers: the head never lasts more than 30 s or MAX_RESPONSE_MS (ms lowered, reported)', async (t) => {
  const { port } = await startChaos(t, { config: testConfig({ MAX_RESPONSE_MS: '1000' }) });
  const r = await rawExchange(port, get('/slow-headers?ms=5000&lines=100'), { until: completeByLength, timeoutMs: 5000 });
  const head = parseHead(r.data);
  t.equal(head.header('x-chaos-clamped'), 'ms=10', '1000 ms / 100 lines');
  t.equal(head.header('x-chaos-header-interval-ms'), '10');
  t.equal(head.headers('x-slow-header-100').length, 1, 'all 100 lines');
  t.ok(r.elapsedMs < 1000 + 1000, `complete within the bound (${r.elapsedMs.toFixed(0)} ms)`);

  const fewer = parseHead((await rawExchange(port, get('/slow-headers?ms=5000&lines=2'), { until: completeByLength, timeoutMs: 5000 })).data);
  t.equal(fewer.header('x-chaos-clamped'), 'ms=500', '1000 ms / 2 lines');

  // The 30 s bound under the default MAX_RESPONSE_MS (120 s): read the report, then leave.
  const { port: wide } = await startChaos(t);
  const first = await rawExchange(wide, get('/slow-headers?ms=5000&lines=100'), { timeoutMs: 400 });
  t.equal(first.data.toString('latin1'), 'HTTP/1.1 200 OK\r\nX-Slow-Header-001: line 1 of 100\r\n', '300 ms apart: 30 s for 100 lines');
  const clamped = await rawExchange(wide, get('/slow-headers?ms=5000&lines=3'), { until: completeByLength, timeoutMs: 400 });
  t.equal(clamped.end, 'timeout', 'ms=5000 × 3 lines fits in 30 s: not lowered');
  t.equal(clamped.data.toString('latin1'), 'HTTP/1.1 200 OK\r\n');
});

t.test('/slow-headers: out of range is clamped, a wrong type is a 400 without X-Chaos-*', async (t) => {
  const { port } = await startChaos(t);
  const low = parseHead((await rawExchange(port, get('/slow-headers?ms=1&lines=0'), { until: completeByLength })).data);
  t.equal(low.header('x-chaos-clamped'), 'ms=10, lines=1');
  for (const query of ['ms=abc', 'ms=1.5', 'lines=x', 'lines=']) {
    const r = await rawExchange(port, get(`/slow-headers?${query}`), { until: completeByLength });
    t.equal(parseHead(r.data).status, 400, `${query}: 400`);
    t.same(chaosLines(r.data), [], `${query}: a real error`);
  }
});

t.test('control /slow-headers: the same lines, the whole head at once, well-formed', async (t) => {
  const { port } = await startHttp(t, 'control');
  const r = await nodeGet(port, '/slow-headers?ms=2000&lines=3');
  t.equal(r.status, 200);
  t.ok(r.ms < 1000, `no wait (${r.ms.toFixed(0)} ms)`);
  t.same([r.headers['x-slow-header-001'], r.headers['x-slow-header-003']], ['line 1 of 3', 'line 3 of 3']);
  t.same(JSON.parse(r.body), { endpoint: '/slow-headers', interval_ms: 2000, lines: 3, head_ms: 0 });
  t.match(r.headers['x-chaos-counterpart'], /\/slow-headers\?ms=2000&lines=3$/);
});

/** Golden draws for ms=200&spread=100 (pinned: changing the draw changes every replay). */
const GOLDEN_JITTER = [
  ['uniform', 'golden', 146],
  ['normal', 'golden', 189],
  ['lognormal', 'golden', 189],
  ['uniform', 'again', 290],
  ['normal', 'again', 432],
  ['lognormal', 'again', 638],
] as const;

t.test('/jitter: the seeded delay, applied, named in X-Chaos-Delayed-Ms', async (t) => {
  const { port } = await startChaos(t);
  for (const [dist, seed, delay] of GOLDEN_JITTER) {
    const r = await rawExchange(port, get(`/jitter?dist=${dist}&ms=200&spread=100&seed=${seed}`), { until: completeByLength, timeoutMs: 3000 });
    const body = `{"endpoint":"/jitter","dist":"${dist}","ms":200,"spread":100,"seed":"${seed}","drawn_ms":${delay},"delayed_ms":${delay},"max_ms":15000}\n`;
    t.equal(
      withoutDate(r.data.toString('latin1')),
      `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nDate: <date>\r\n` +
        `X-Chaos-Category: latency\r\nX-Chaos-Endpoint: /jitter\r\nX-Chaos-Delayed-Ms: ${delay}\r\nX-Chaos-Jitter-Dist: ${dist}\r\nX-Chaos-Jitter-Seed: ${seed}\r\n\r\n${body}`,
      `${dist} ${seed}: the exact bytes`,
    );
    t.ok(r.arrivals[0]!.at >= delay - 10, `${dist} ${seed}: nothing before ${delay} ms (first byte at ${r.arrivals[0]!.at.toFixed(0)})`);
    t.ok(r.arrivals[0]!.at < delay + 1000, 'and not much later');
    t.equal(r.arrivals.length, 1, 'the whole response at once');
  }
});

t.test('/jitter: without a seed, the one drawn is reported and replays the same delay', async (t) => {
  const { port } = await startChaos(t);
  const first = parseHead((await rawExchange(port, get('/jitter?ms=50&spread=50'), { until: completeByLength })).data);
  const seed = first.header('x-chaos-jitter-seed') ?? '';
  t.match(seed, /^[0-9a-f]{16}$/, 'a fresh seed');
  const again = parseHead((await rawExchange(port, get(`/jitter?ms=50&spread=50&seed=${seed}`), { until: completeByLength })).data);
  t.equal(again.header('x-chaos-delayed-ms'), first.header('x-chaos-delayed-ms'), 'the same delay');
  const odd = parseHead((await rawExchange(port, get('/jitter?ms=0&spread=0&seed=a%20b%2Fc'), { until: completeByLength })).data);
  t.equal(odd.header('x-chaos-jitter-seed'), 'a%20b%2Fc', 'percent-encoded in the header');
  t.equal(odd.header('x-chaos-delayed-ms'), '0', 'spread 0 around 0: no delay');
});

t.test('/jitter: bounds and 400s', async (t) => {
  const { port } = await startChaos(t);
  const clamped = await rawExchange(port, get('/jitter?ms=99999&spread=-3&seed=x'), { timeoutMs: 300 });
  t.equal(clamped.end, 'timeout', 'ms clamped to 15000: still waiting');
  const head = parseHead((await rawExchange(port, get('/jitter?ms=-1&spread=0'), { until: completeByLength })).data);
  t.equal(head.header('x-chaos-clamped'), 'ms=0');
  for (const query of ['dist=gamma', 'ms=abc', 'spread=1.5', `seed=${'s'.repeat(257)}`]) {
    const r = await rawExchange(port, get(`/jitter?${query}`), { until: completeByLength });
    t.equal(parseHead(r.data).status, 400, `${query.slice(0, 20)}: 400`);
    t.same(chaosLines(r.data), [], 'a real error');
  }
});

t.test('control /jitter: the same draw named, none applied, well-formed', async (t) => {
  const { port } = await startHttp(t, 'control');
  const r = await nodeGet(port, '/jitter?dist=lognormal&ms=200&spread=100&seed=again');
  t.equal(r.status, 200);
  t.same(JSON.parse(r.body), { endpoint: '/jitter', dist: 'lognormal', ms: 200, spread: 100, seed: 'again', drawn_ms: 638, delayed_ms: 0, max_ms: 15000 });
  t.ok(r.ms < 500, `answered at once (${r.ms.toFixed(0)} ms)`);
  t.equal(r.headers['x-chaos-delayed-ms'], undefined, 'no chaos line on the twin');
});
