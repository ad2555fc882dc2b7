// Issue 12, latency: /slow-headers and /jitter on real sockets (the exact
// bytes, their schedule, their bounds, the 400s) and their control twins read
// by node:http.
import http from 'node:http';
import t from 'tap';
import { completeByLength, get, parseHead, rawExchange } from '../helpers/raw.js';
import { nodeGet, type NodeAnswer } from '../helpers/node-get.js';
import { startChaos, startHttp, testConfig } from '../helpers/servers.js';

const withoutDate = (text: string): string => text.replace(/\r\nDate: [^\r]*/, '\r\nDate: <date>');
const chaosLines = (data: Buffer): string[] =>
  parseHead(data).headerLines.filter(([n]) => /^x-chaos-/i.test(n)).map(([n]) => n);

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
