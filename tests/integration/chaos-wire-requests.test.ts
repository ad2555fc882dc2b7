// The chaos host's own HTTP/1.1 stack on real sockets: keep-alive,
// pipelining, HEAD, request bodies, 100-continue, the hostile-input table,
// 421, timeouts, the per-connection cap, cancellation when a client leaves,
// the framing lies of /bytes and /truncate, handler failures and backpressure.
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { defineChaosEndpoint, sendComplete, type ChaosContext } from '../../services/chaos/endpoint.js';
import { ChaosServer, type ChaosServerOptions } from '../../services/chaos/server.js';
import { loadConfig } from '../../shared/config/config.js';
import { createLogger } from '../../shared/config/log.js';
import { Registry } from '../../shared/registry/registry.js';
import { seededBytes } from '../../shared/primitives/seed.js';
import { MemoryStore } from '../../shared/store/memory.js';
import { completeResponses, RawConn } from '../helpers/conn.js';
import { completeByLength, get, parseHead, rawExchange, splitResponses, type ParsedResponse } from '../helpers/raw.js';
import { startChaos, stopAtTeardown, testConfig } from '../helpers/servers.js';

type Options = Partial<Omit<ChaosServerOptions, 'config' | 'logger' | 'registry'>>;

/** Small timeouts so that every wait in this file is short. */
const FAST: Options = { requestTimeoutMs: 2000, idleTimeoutMs: 2000, holdMs: 2000 };

const HONEST = '/bytes?mode=wrong-content-type&n=16';

function chaosHeaderNames(r: ParsedResponse): string[] {
  return r.headerLines.filter(([name]) => /^x-chaos-/i.test(name)).map(([name]) => name);
}

/** Polls `test` until it holds or `timeoutMs` passes (bounded). */
async function eventually(test: () => boolean, timeoutMs = 3000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (test()) return true;
    await sleep(10);
  }
  return test();
}

/** A server with a test-only registry (handlers that throw, count or wait). */
async function startWith(
  t: { teardown(fn: () => unknown): void },
  registry: Registry<ChaosContext>,
  options: Options = FAST,
): Promise<{ port: number; server: ChaosServer }> {
  const store = options.store ?? new MemoryStore();
  const server = new ChaosServer({ ...options, config: testConfig(), logger: createLogger('chaos', 'silent'), registry, store });
  stopAtTeardown(t, server, store);
  const port = await server.listen(0, '127.0.0.1');
  return { port, server };
}

t.test('keep-alive: several requests, one after another, on one connection', async (t) => {
  const { port, server } = await startChaos(t, FAST);
  const conn = await RawConn.open(port);
  t.teardown(() => conn.destroy());
  const paths = [HONEST, '/slow?ms=0', '/drip?bytes=10&interval=10&chunk=5', '/', '/nope'];
  for (const [i, path] of paths.entries()) {
    conn.write(get(path));
    t.ok(await conn.waitFor((d) => completeResponses(d) === i + 1), `response ${i + 1} complete`);
  }
  const responses = splitResponses(conn.received);
  t.same(responses.map((r) => r.response.status), [200, 200, 200, 200, 404]);
  for (const { response } of responses) t.equal(response.header('connection'), undefined, 'no Connection: close');
  t.same(responses[2]?.body.toString('latin1'), '*'.repeat(10), 'the drip body arrived whole');
  t.equal(conn.ended, undefined, 'still open');
  t.equal(server.connectionCount, 1, 'one connection served them all');
});

t.test('pipelining: responses in request order, a slow one first included', async (t) => {
  const { port } = await startChaos(t, FAST);
  const request = [
    get('/slow?ms=50'),
    get('/bytes?mode=wrong-content-type&n=8&seed=pipe'),
    get('/slow?ms=0'),
    get('/bytes?mode=wrong-content-type&n=3&seed=other'),
  ].join('');
  const res = await rawExchange(port, request, { until: (d) => completeResponses(d) === 4 });
  t.equal(res.end, 'stopped', 'all four arrived');
  const responses = splitResponses(res.data);
  t.same(
    responses.map((r) => r.response.header('x-chaos-endpoint')),
    ['/slow', '/bytes', '/slow', '/bytes'],
  );
  t.equal(JSON.parse(responses[0]?.body.toString() ?? '').delayed_ms, 50, 'the delayed one is first');
  t.same(responses[1]?.body, seededBytes('pipe', 8));
  t.equal(JSON.parse(responses[2]?.body.toString() ?? '').delayed_ms, 0);
  t.same(responses[3]?.body, seededBytes('other', 3));
});

t.test('pipelining: many requests in one write are all answered in order', async (t) => {
  const { port } = await startChaos(t, FAST);
  const n = 200;
  const request = Array.from({ length: n }, (_, i) => get(`/bytes?mode=wrong-content-type&n=4&seed=s${i}`)).join('');
  const res = await rawExchange(port, request, { until: (d) => completeResponses(d) === n, timeoutMs: 10_000 });
  t.equal(res.end, 'stopped');
  const seeds = splitResponses(res.data).map((r) => r.response.header('x-chaos-bytes-seed'));
  t.same(seeds, Array.from({ length: n }, (_, i) => `s${i}`));
});

t.test('HEAD: the same head, no body, and the connection stays usable', async (t) => {
  const { port } = await startChaos(t, FAST);
  const cases = [
    { path: '/bytes?mode=wrong-content-type&n=100', status: 200 },
    { path: '/slow?ms=0', status: 200 },
    { path: '/drip?bytes=50&interval=10&chunk=10', status: 200 },
    { path: '/', status: 200 },
    { path: '/nope', status: 404 },
    { path: '/slow?ms=abc', status: 400 },
  ];
  for (const { path, status } of cases) {
    await t.test(path, async (t) => {
      const conn = await RawConn.open(port);
      t.teardown(() => conn.destroy());
      conn.write(get(path, {}, 'HEAD'));
      conn.write(get(path));
      t.ok(await conn.waitFor((d) => completeResponses(d, [true, false]) === 2), 'HEAD then GET answered');
      const [head, full] = splitHeadThenGet(conn.received);
      t.equal(head?.status, status);
      t.equal(full?.status, status);
      const strip = (r: ParsedResponse | undefined): unknown => r?.headerLines.filter(([n]) => n !== 'Date');
      t.same(strip(head), strip(full), 'identical header lines, Content-Length included');
      t.ok(Number(head?.header('content-length')) > 0, 'HEAD carries the GET Content-Length');
      t.equal(conn.ended, undefined, 'connection still open');
    });
  }

  await t.test('HEAD of a lying overshoot does not hold the connection', async (t) => {
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    conn.write(get('/bytes?mode=content-length-overshoot&n=10', {}, 'HEAD'));
    conn.write(get(HONEST));
    t.ok(await conn.waitFor((d) => completeResponses(d, [true, false]) === 2), 'the next request is answered');
    const [head, next] = splitHeadThenGet(conn.received);
    t.equal(head?.header('content-length'), '20', 'the head still claims 2n');
    t.equal(next?.header('x-chaos-endpoint'), '/bytes');
  });
});

/** The HEAD response (no body) followed by one Content-Length-framed response. */
function splitHeadThenGet(data: Buffer): [ParsedResponse, ParsedResponse] {
  const head = parseHead(data);
  const full = parseHead(data.subarray(head.headLength));
  return [head, full];
}

t.test('request bodies are read and discarded; the next request works', async (t) => {
  const { port } = await startChaos(t, FAST);
  await t.test('by Content-Length', async (t) => {
    const body = 'x'.repeat(5000);
    const request = `GET ${HONEST} HTTP/1.1\r\nHost: a\r\nContent-Length: ${body.length}\r\n\r\n${body}` + get('/slow?ms=0');
    const res = await rawExchange(port, request, { until: (d) => completeResponses(d) === 2 });
    t.same(splitResponses(res.data).map((r) => r.response.status), [200, 200]);
  });
  await t.test('by valid chunked framing', async (t) => {
    const request =
      `GET ${HONEST} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n3\r\nabc\r\n0\r\nX-T: 1\r\n\r\n` +
      get('/slow?ms=0');
    const res = await rawExchange(port, request, { until: (d) => completeResponses(d) === 2 });
    t.same(splitResponses(res.data).map((r) => r.response.status), [200, 200]);
  });
  const broken = [
    { name: 'bad chunk size', body: 'zz\r\nhello\r\n0\r\n\r\n' },
    { name: 'chunk data not followed by CRLF', body: '5\r\nhelloXX0\r\n\r\n' },
  ];
  for (const { name, body } of broken) {
    await t.test(`chunked with ${name}: 400 and close`, async (t) => {
      const request = `GET ${HONEST} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n${body}` + get('/slow?ms=0');
      const res = await rawExchange(port, request);
      t.equal(res.end, 'fin');
      const responses = splitResponses(res.data);
      t.same(responses.map((r) => r.response.status), [400], 'one 400 and nothing after it');
      t.equal(responses[0]?.response.header('connection'), 'close');
    });
  }
});

t.test('Expect: 100-continue', async (t) => {
  const { port } = await startChaos(t, FAST);
  await t.test('the interim 100 comes before the body is sent, then the final response', async (t) => {
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    conn.write(`GET ${HONEST} HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n`);
    t.ok(await conn.waitFor((d) => d.length >= 25), 'something arrived before the body was sent');
    t.equal(conn.text, 'HTTP/1.1 100 Continue\r\n\r\n', 'exactly the interim response');
    conn.write('hello');
    t.ok(await conn.waitFor((d) => completeResponses(d) === 1));
    t.equal(parseHead(conn.received.subarray(25)).status, 200);
  });
  await t.test('behind a pipelined slow response, the 100 waits for it (never inside a response)', async (t) => {
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    conn.write(get('/slow?ms=80') + `GET ${HONEST} HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n`);
    t.ok(await conn.waitFor((d) => d.includes('HTTP/1.1 100 Continue\r\n\r\n')));
    const first = parseHead(conn.received);
    t.equal(first.header('x-chaos-endpoint'), '/slow', 'the slow response came first');
    const afterFirst = first.headLength + Number(first.header('content-length'));
    t.equal(conn.text.slice(afterFirst), 'HTTP/1.1 100 Continue\r\n\r\n');
    conn.write('ok');
    t.ok(await conn.waitFor((d) => completeResponses(d) === 2));
  });
  await t.test('a body over the bound is refused at once with 413, no 100', async (t) => {
    const res = await rawExchange(port, `GET ${HONEST} HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 99999999\r\n\r\n`);
    t.equal(res.end, 'fin');
    t.equal(parseHead(res.data).status, 413);
  });
});

t.test('request bodies over the bound: 413 and close', async (t) => {
  const { port } = await startChaos(t, { ...FAST, limits: { maxRequestLine: 8192, maxHeaderBytes: 16384, maxHeaderCount: 100, maxBodyBytes: 1000 } });
  const cases = [
    { name: 'Content-Length', request: `GET ${HONEST} HTTP/1.1\r\nHost: a\r\nContent-Length: 1001\r\n\r\n${'x'.repeat(1001)}` },
    { name: 'chunked total', request: `GET ${HONEST} HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3e8\r\n${'x'.repeat(1000)}\r\n1\r\nx\r\n0\r\n\r\n` },
  ];
  for (const { name, request } of cases) {
    await t.test(name, async (t) => {
      const res = await rawExchange(port, request + get('/slow?ms=0'));
      t.equal(res.end, 'fin', 'a clean FIN even with unread body bytes');
      const responses = splitResponses(res.data);
      t.same(responses.map((r) => r.response.status), [413]);
      t.same(chaosHeaderNames(responses[0]!.response), []);
    });
  }
  await t.test('exactly at the bound is served', async (t) => {
    const res = await rawExchange(port, `GET ${HONEST} HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n${'x'.repeat(1000)}`, {
      until: completeByLength,
    });
    t.equal(parseHead(res.data).status, 200);
  });
});

t.test('hostile input: exact status, Connection: close, FIN, no X-Chaos-* header', async (t) => {
  const { port } = await startChaos(t, { ...FAST, requestTimeoutMs: 5000 });
  const H = 'Host: chaos.test:8080\r\n';
  const cases: { name: string; request: string; status: number }[] = [
    { name: 'request line over 8 KB', request: `GET /${'a'.repeat(8200)} HTTP/1.1\r\n${H}\r\n`, status: 414 },
    { name: 'header block over 16 KB', request: `GET / HTTP/1.1\r\n${H}X-Big: ${'b'.repeat(17_000)}\r\n\r\n`, status: 431 },
    {
      name: 'more than 100 header fields',
      request: `GET / HTTP/1.1\r\n${H}${Array.from({ length: 100 }, (_, i) => `X-F${i}: v\r\n`).join('')}\r\n`,
      status: 431,
    },
    { name: 'Content-Length with Transfer-Encoding', request: `GET / HTTP/1.1\r\n${H}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, status: 400 },
    { name: 'duplicate Content-Length, same value', request: `GET / HTTP/1.1\r\n${H}Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc`, status: 400 },
    { name: 'duplicate Content-Length, different values', request: `GET / HTTP/1.1\r\n${H}Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd`, status: 400 },
    { name: 'Content-Length -1', request: `GET / HTTP/1.1\r\n${H}Content-Length: -1\r\n\r\n`, status: 400 },
    { name: 'Content-Length 1e3', request: `GET / HTTP/1.1\r\n${H}Content-Length: 1e3\r\n\r\n`, status: 400 },
    { name: 'Content-Length " 12abc"', request: `GET / HTTP/1.1\r\n${H}Content-Length:  12abc\r\n\r\n`, status: 400 },
    { name: 'Transfer-Encoding gzip, chunked', request: `GET / HTTP/1.1\r\n${H}Transfer-Encoding: gzip, chunked\r\n\r\n`, status: 501 },
    { name: 'Transfer-Encoding gzip', request: `GET / HTTP/1.1\r\n${H}Transfer-Encoding: gzip\r\n\r\n`, status: 400 },
    { name: 'obs-fold', request: `GET / HTTP/1.1\r\n${H}X-A: one\r\n two\r\n\r\n`, status: 400 },
    { name: 'space before colon', request: `GET / HTTP/1.1\r\n${H}X-A : v\r\n\r\n`, status: 400 },
    { name: 'bare LF line ends', request: 'GET / HTTP/1.1\nHost: chaos.test:8080\n\n', status: 400 },
    { name: 'bare LF, the rest never sent', request: 'GET / HTTP/1.1\n', status: 400 },
    { name: 'NUL in a header value', request: `GET / HTTP/1.1\r\n${H}X-A: a\x00b\r\n\r\n`, status: 400 },
    { name: 'control byte in a header value', request: `GET / HTTP/1.1\r\n${H}X-A: a\x1bb\r\n\r\n`, status: 400 },
    { name: 'missing Host on HTTP/1.1', request: 'GET / HTTP/1.1\r\nAccept: */*\r\n\r\n', status: 400 },
    { name: 'two Host fields', request: `GET / HTTP/1.1\r\n${H}${H}\r\n`, status: 400 },
    { name: 'HTTP/2.0 request line', request: `GET / HTTP/2.0\r\n${H}\r\n`, status: 505 },
    { name: 'HTTP/2 connection preface', request: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', status: 505 },
    { name: 'HTTP/0.9-style request line', request: 'GET /\r\n\r\n', status: 400 },
    { name: 'garbage', request: 'HELLO\r\n\r\n', status: 400 },
    { name: 'unsupported Expect', request: `GET / HTTP/1.1\r\n${H}Expect: magic\r\n\r\n`, status: 417 },
  ];
  for (const c of cases) {
    await t.test(`${c.name} → ${c.status}`, async (t) => {
      // A valid request follows each bad one: it must never be answered.
      const res = await rawExchange(port, c.request + get('/'));
      t.equal(res.end, 'fin', 'closed with FIN');
      // Answered by the parser, not left to the 5 s header-read timeout (that would be 408).
      t.ok(res.elapsedMs < 2500, `answered in ${res.elapsedMs.toFixed(0)} ms`);
      const responses = splitResponses(res.data);
      t.equal(responses.length, 1, 'exactly one response');
      const r = responses[0]!.response;
      t.equal(r.status, c.status);
      t.equal(r.header('connection'), 'close');
      t.equal(r.header('content-type'), 'application/json');
      t.same(chaosHeaderNames(r), [], 'a real error carries no X-Chaos-* header');
      const body = JSON.parse(responses[0]!.body.toString()) as { error: string; reason: string };
      t.type(body.error, 'string');
      t.type(body.reason, 'string');
    });
  }

  await t.test('absolute-form target is served and its authority is the host', async (t) => {
    const ok = await rawExchange(port, `GET http://chaos.test:8080${HONEST} HTTP/1.1\r\nHost: ignored.test\r\n\r\n`, { until: completeByLength });
    t.equal(parseHead(ok.data).status, 200);
    t.equal(parseHead(ok.data).header('x-chaos-endpoint'), '/bytes');
    const foreign = await rawExchange(port, `GET http://control.test:8080/ HTTP/1.1\r\n${H}\r\n`);
    t.equal(parseHead(foreign.data).status, 421, 'the target authority, not Host, picks the host');
    t.equal(foreign.end, 'fin');
  });
});

t.test('421 for a request naming another of our hosts; own and unknown names are served', async (t) => {
  const { port } = await startChaos(t, FAST);
  for (const host of ['control.test:8080', 'bots.test:8080', 'hub.test:8080', 'CONTROL.test:8080', 'control.test.:8080']) {
    await t.test(`Host: ${host} → 421`, async (t) => {
      const res = await rawExchange(port, get(HONEST, { Host: host }) + get(HONEST));
      t.equal(res.end, 'fin');
      const responses = splitResponses(res.data);
      t.same(responses.map((r) => r.response.status), [421], 'one 421, the next request is not read');
      t.equal(responses[0]?.response.header('connection'), 'close');
      t.same(chaosHeaderNames(responses[0]!.response), []);
    });
  }
  for (const host of ['chaos.test:8080', 'chaos.test', 'unknown.example', 'control.test:9999', '127.0.0.1']) {
    await t.test(`Host: ${host} is served`, async (t) => {
      const res = await rawExchange(port, get(HONEST, { Host: host }), { until: completeByLength });
      t.equal(parseHead(res.data).status, 200);
    });
  }
  await t.test('a later request on a kept-alive connection is checked too', async (t) => {
    const res = await rawExchange(port, get(HONEST, { Host: 'chaos.test:8080' }) + get(HONEST, { Host: 'bots.test:8080' }));
    t.equal(res.end, 'fin');
    t.same(splitResponses(res.data).map((r) => r.response.status), [200, 421]);
  });
});

t.test('embedded default: the hub (localhost on the control port) is 421; the chaos host\'s own address is served', async (t) => {
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const { port } = await startChaos(t, { ...FAST, config });
  const hub = await rawExchange(port, get(HONEST, { Host: 'localhost:8082' }));
  t.equal(parseHead(hub.data).status, 421, 'localhost:8082 names the hub');
  for (const host of ['127.0.0.1:8081', 'localhost:8081']) {
    const res = await rawExchange(port, get(HONEST, { Host: host }), { until: completeByLength });
    t.equal(parseHead(res.data).status, 200, `${host} is served`);
  }
});

t.test('method not allowed is a real error, and the connection stays usable', async (t) => {
  const { port } = await startChaos(t, FAST);
  const res = await rawExchange(port, get(HONEST, {}, 'POST') + get(HONEST), { until: (d) => completeResponses(d) === 2 });
  const [refused, served] = splitResponses(res.data);
  t.equal(refused?.response.status, 405);
  t.equal(refused?.response.header('allow'), 'GET, HEAD');
  t.same(chaosHeaderNames(refused!.response), []);
  t.equal(served?.response.status, 200);
});

t.test('HTTP/1.0', async (t) => {
  const { port } = await startChaos(t, FAST);
  await t.test('without keep-alive: one response, then FIN', async (t) => {
    const res = await rawExchange(port, `GET ${HONEST} HTTP/1.0\r\n\r\n`);
    t.equal(res.end, 'fin');
    t.equal(parseHead(res.data).header('connection'), 'close');
  });
  await t.test('with keep-alive: told so, on chaos and plain responses alike', async (t) => {
    const req = (path: string): string => `GET ${path} HTTP/1.0\r\nConnection: keep-alive\r\n\r\n`;
    const res = await rawExchange(port, req(HONEST) + req('/') + req('/slow?ms=x'), { until: (d) => completeResponses(d) === 3 });
    t.equal(res.end, 'stopped');
    const responses = splitResponses(res.data);
    t.same(responses.map((r) => r.response.status), [200, 200, 400]);
    t.same(responses.map((r) => r.response.header('connection')), ['keep-alive', 'keep-alive', 'keep-alive']);
  });
});

t.test('header-read timeout (slowloris): 408 and close', async (t) => {
  const { port } = await startChaos(t, { ...FAST, requestTimeoutMs: 200 });
  await t.test('half a head, then silence', async (t) => {
    const res = await rawExchange(port, 'GET / HTTP/1.1\r\nHost: chaos.test\r\n', { timeoutMs: 3000 });
    t.equal(res.end, 'fin');
    const r = parseHead(res.data);
    t.equal(r.status, 408);
    t.equal(r.header('connection'), 'close');
    t.same(chaosHeaderNames(r), []);
    t.ok(res.elapsedMs >= 150 && res.elapsedMs < 2500, `after ${res.elapsedMs.toFixed(0)} ms`);
  });
  await t.test('trickling a byte at a time does not extend the deadline', async (t) => {
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    const started = performance.now();
    const head = 'GET / HTTP/1.1\r\nHost: chaos.test\r\nX-Slow: ' + 'a'.repeat(100);
    for (let i = 0; i < head.length && !conn.ended; i++) {
      conn.write(head[i] as string);
      await sleep(20);
    }
    t.equal(await conn.waitEnd(), 'fin');
    t.equal(parseHead(conn.received).status, 408);
    t.ok(performance.now() - started < 2000, 'cut off long before the head could finish');
  });
  await t.test('a body that never completes', async (t) => {
    const res = await rawExchange(port, `GET ${HONEST} HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc`, { timeoutMs: 3000 });
    t.equal(res.end, 'fin');
    t.equal(parseHead(res.data).status, 408);
  });
  await t.test('each pipelined request gets its own full time', async (t) => {
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    // Every request completes within the timeout, but the sequence takes longer than one timeout.
    for (let i = 0; i < 4; i++) {
      conn.write(`GET ${HONEST} HTTP/1.1\r\n`);
      await sleep(100);
      conn.write('Host: a\r\n\r\n');
      t.ok(await conn.waitFor((d) => completeResponses(d) === i + 1), `request ${i + 1} served`);
    }
    t.equal(conn.ended, undefined);
  });
});

t.test('idle keep-alive timeout closes the connection with a FIN', async (t) => {
  const { port } = await startChaos(t, { ...FAST, idleTimeoutMs: 150 });
  await t.test('after a response', async (t) => {
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    conn.write(get(HONEST));
    t.ok(await conn.waitFor((d) => completeResponses(d) === 1));
    const length = conn.received.length;
    t.equal(await conn.waitEnd(), 'fin');
    t.equal(conn.received.length, length, 'nothing more was sent');
  });
  await t.test('a response longer than the idle wait: the wait starts again after it, and a next request is served', async (t) => {
    // The idle timer is one per connection, disarmed by input and re-armed
    // after each response; here it fires while disarmed (during the /slow).
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    conn.write(get('/slow?ms=400'));
    t.ok(await conn.waitFor((d) => completeResponses(d) === 1, 3000), 'the slow response');
    await sleep(60);
    t.equal(conn.ended, undefined, 'still open just after it');
    conn.write(get(HONEST));
    t.ok(await conn.waitFor((d) => completeResponses(d) === 2, 3000), 'a next request on it is served');
    const at = performance.now();
    t.equal(await conn.waitEnd(3000), 'fin', 'then closed when idle');
    const waited = performance.now() - at;
    t.ok(waited >= 100 && waited < 2000, `after about the idle wait (150 ms): ${Math.round(waited)} ms`);
  });
  await t.test('a connection that never sends anything', async (t) => {
    const res = await rawExchange(port, '', { timeoutMs: 3000 });
    t.equal(res.end, 'fin');
    t.equal(res.data.length, 0);
  });
  await t.test('a connection that only sends an empty line', async (t) => {
    const res = await rawExchange(port, '\r\n', { timeoutMs: 3000 });
    t.equal(res.end, 'fin', 'not left open for ever');
    t.equal(res.data.length, 0);
  });
});

t.test('requests-per-connection cap: the 3rd response says close, then FIN', async (t) => {
  const { port } = await startChaos(t, { ...FAST, maxRequestsPerConnection: 3 });
  await t.test('pipelined', async (t) => {
    const res = await rawExchange(port, [HONEST, '/', '/slow?ms=0', HONEST].map((p) => get(p)).join(''));
    t.equal(res.end, 'fin');
    const responses = splitResponses(res.data);
    t.same(responses.map((r) => r.response.status), [200, 200, 200], 'the 4th is never answered');
    t.same(responses.map((r) => r.response.header('connection')), [undefined, undefined, 'close']);
  });
  await t.test('one at a time', async (t) => {
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    for (let i = 1; i <= 3; i++) {
      conn.write(get(HONEST));
      t.ok(await conn.waitFor((d) => completeResponses(d) === i));
    }
    t.equal(await conn.waitEnd(), 'fin');
    t.equal(splitResponses(conn.received)[2]?.response.header('connection'), 'close');
  });
});

t.test('a client that leaves mid-response: timers cancelled, connection gone', async (t) => {
  await t.test('a test endpoint proves the wire timer never fires', async (t) => {
    let fired = 0;
    const waits = defineChaosEndpoint({
      id: 'waits',
      path: '/waits',
      category: 'latency',
      summary: 'waits, then answers',
      params: {},
      handle(ctx) {
        ctx.wire.setTimer(150, () => {
          fired++;
          sendComplete(ctx, 200, 'text/plain', Buffer.from('late'));
        });
      },
    });
    const { port, server } = await startWith(t, new Registry('chaos', [waits]));
    const conn = await RawConn.open(port);
    conn.write(get('/waits'));
    t.ok(await eventually(() => server.connectionCount === 1));
    await sleep(30);
    conn.destroy();
    t.ok(await eventually(() => server.connectionCount === 0), 'connection count back to 0');
    await sleep(250);
    t.equal(fired, 0, 'the timer died with the socket');
  });

  const { port, server } = await startChaos(t, FAST);
  const cases = [
    { path: '/drip?bytes=1000&interval=50&chunk=10', waitHead: true },
    { path: '/slow?ms=15000', waitHead: false },
  ];
  for (const { path, waitHead } of cases) {
    await t.test(path, async (t) => {
      const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
      const conn = await RawConn.open(port);
      conn.write(get(path));
      if (waitHead) t.ok(await conn.waitFor((d) => d.includes('\r\n\r\n*')), 'streaming has started');
      else await sleep(50);
      t.equal(server.connectionCount, 1);
      conn.destroy();
      t.ok(await eventually(() => server.connectionCount === 0), 'connection count back to 0');
      t.ok(
        await eventually(() => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length <= timersBefore),
        'no server timer left behind',
      );
    });
  }
});

t.test('/bytes content-length-undershoot: the extra bytes bleed into the next response', async (t) => {
  const { port } = await startChaos(t, FAST);
  for (const n of [101, 256, 1]) {
    await t.test(`n=${n}, pipelined`, async (t) => {
      const first = get(`/bytes?mode=content-length-undershoot&n=${n}`);
      const res = await rawExchange(port, first + get(HONEST), {
        until: (d) => d.lastIndexOf('HTTP/1.1 ') > 0 && completeByLength(d.subarray(d.lastIndexOf('HTTP/1.1 '))),
      });
      const head = parseHead(res.data);
      const claimed = Math.floor(n / 2);
      t.equal(head.header('content-length'), String(claimed));
      const afterHead = res.data.subarray(head.headLength);
      t.same(afterHead.subarray(0, n), seededBytes('42', n), 'all n bytes were sent, byte-exact');
      t.equal(afterHead.subarray(claimed, n).length, n - claimed, 'n - floor(n/2) extra bytes');
      t.equal(afterHead.toString('latin1', n, n + 9), 'HTTP/1.1 ', 'then the next status line, right after');
      t.equal(parseHead(afterHead.subarray(n)).status, 200);
    });
  }
  await t.test('one request at a time on a kept-alive connection', async (t) => {
    const n = 64;
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    conn.write(get(`/bytes?mode=content-length-undershoot&n=${n}`));
    const headLength = (): number => parseHead(conn.received).headLength;
    t.ok(await conn.waitFor((d) => d.includes('\r\n\r\n') && d.length >= headLength() + n));
    conn.write(get(HONEST));
    t.ok(await conn.waitFor((d) => d.length > headLength() + n && completeByLength(d.subarray(headLength() + n))));
    const body = conn.received.subarray(headLength());
    t.same(body.subarray(0, n), seededBytes('42', n));
    t.equal(body.toString('latin1', n, n + 9), 'HTTP/1.1 ');
  });
});

t.test('/bytes content-length-overshoot: the connection is held with nothing more sent', async (t) => {
  await t.test('held until the client gives up', async (t) => {
    const { port, server } = await startChaos(t, { ...FAST, holdMs: 5000 });
    const n = 64;
    const conn = await RawConn.open(port);
    conn.write(get(`/bytes?mode=content-length-overshoot&n=${n}`) + get(HONEST));
    const head = (): ParsedResponse => parseHead(conn.received);
    t.ok(await conn.waitFor((d) => d.includes('\r\n\r\n') && d.length >= head().headLength + n));
    t.equal(head().header('content-length'), String(2 * n));
    await sleep(300);
    t.equal(conn.received.length, head().headLength + n, 'exactly n body bytes; the pipelined request is not answered');
    t.equal(conn.ended, undefined, 'still open while held');
    conn.destroy();
    t.ok(await eventually(() => server.connectionCount === 0), 'the server lets go when the client closes');
  });
  await t.test('a client FIN ends the hold at once', async (t) => {
    const { port, server } = await startChaos(t, { ...FAST, holdMs: 5000 });
    const conn = await RawConn.open(port);
    t.teardown(() => conn.destroy());
    conn.write(get('/bytes?mode=content-length-overshoot&n=8'));
    t.ok(await conn.waitFor((d) => d.includes('\r\n\r\n')));
    await sleep(50);
    conn.end();
    t.equal(await conn.waitEnd(), 'fin');
    t.ok(await eventually(() => server.connectionCount === 0));
  });
  await t.test('after holdMs the server closes with a FIN', async (t) => {
    const { port } = await startChaos(t, { ...FAST, holdMs: 150 });
    const res = await rawExchange(port, get('/bytes?mode=content-length-overshoot&n=8'), { timeoutMs: 3000 });
    t.equal(res.end, 'fin');
    t.equal(parseHead(res.data).rest.length, 8);
    t.ok(res.elapsedMs >= 100, `held for ${res.elapsedMs.toFixed(0)} ms`);
  });
});

t.test('/truncate: FIN after exactly `at` body bytes, not a reset', async (t) => {
  const { port } = await startChaos(t, FAST);
  for (const at of [1, 100, 70_000]) {
    await t.test(`at=${at}`, async (t) => {
      const res = await rawExchange(port, get(`/truncate?at=${at}`) + get(HONEST));
      t.equal(res.end, 'fin');
      const head = parseHead(res.data);
      t.equal(head.header('content-length'), String(2 * at));
      t.equal(head.rest.length, at, 'exactly at bytes, and nothing for the pipelined request');
      t.equal(head.rest.toString('latin1', 0, Math.min(at, 12)), '012345678901'.slice(0, Math.min(at, 12)));
    });
  }
});

t.test('an endpoint that fails: 500 without X-Chaos-*, and the server keeps serving', async (t) => {
  const def = (id: string, handle: (ctx: ChaosContext) => void | Promise<void>) =>
    defineChaosEndpoint({ id, path: `/${id}`, category: 'fault-injection', summary: id, params: {}, handle });
  const registry = new Registry<ChaosContext>('chaos', [
    def('throws', () => {
      throw new Error('boom');
    }),
    def('rejects', async () => {
      await sleep(5);
      throw new Error('boom later');
    }),
    def('throws-after-head', (ctx) => {
      ctx.wire.head(200, [['Content-Length', '10']]);
      throw new Error('boom mid-response');
    }),
    def('throws-after-timer', (ctx) => {
      ctx.wire.setTimer(1000, () => sendComplete(ctx, 200, 'text/plain', Buffer.from('never')));
      throw new Error('boom with a timer set');
    }),
    def('writes-then-resets', (ctx) => {
      ctx.wire.rawHead('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n');
      ctx.wire.write('part');
      ctx.wire.end('reset');
    }),
    def('fine', (ctx) => sendComplete(ctx, 200, 'text/plain', Buffer.from('fine'))),
  ]);
  const { port } = await startWith(t, registry);
  for (const path of ['/throws', '/rejects', '/throws-after-timer']) {
    await t.test(`${path} → 500`, async (t) => {
      const res = await rawExchange(port, get(path) + get('/fine'), { timeoutMs: 3000 });
      t.equal(res.end, 'fin');
      const responses = splitResponses(res.data);
      t.same(responses.map((r) => r.response.status), [500], 'one 500, then close');
      const r = responses[0]!.response;
      t.equal(r.header('content-type'), 'application/json');
      t.equal(r.header('connection'), 'close');
      t.same(chaosHeaderNames(r), []);
      t.equal((JSON.parse(responses[0]!.body.toString()) as { error: string }).error, 'internal_error');
    });
  }
  await t.test('HEAD of a failing endpoint gets a head only', async (t) => {
    const res = await rawExchange(port, get('/throws', {}, 'HEAD'), { timeoutMs: 3000 });
    t.equal(res.end, 'fin');
    t.equal(parseHead(res.data).status, 500);
    t.equal(parseHead(res.data).rest.length, 0);
  });
  await t.test('a failure after the head was sent resets the connection', async (t) => {
    const res = await rawExchange(port, get('/throws-after-head'), { timeoutMs: 3000 });
    t.equal(res.end, 'reset');
  });
  await t.test('bytes written before a reset in the same turn reach the client before the RST (writes batched per turn)', async (t) => {
    const res = await rawExchange(port, get('/writes-then-resets'), { timeoutMs: 3000 });
    t.equal(res.data.toString('latin1'), 'HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\npart');
    t.equal(res.end, 'reset');
  });
  await t.test('still serving', async (t) => {
    const res = await rawExchange(port, get('/fine'), { until: completeByLength });
    t.equal(parseHead(res.data).status, 200);
    t.equal(parseHead(res.data).rest.toString(), 'fine');
  });
});

t.test('backpressure: a client that pipelines without reading cannot grow server memory', async (t) => {
  let served = 0;
  const big = Buffer.alloc(64 * 1024, 0x61);
  const fat = defineChaosEndpoint({
    id: 'fat',
    path: '/fat',
    category: 'payload',
    summary: '64 KiB',
    params: {},
    handle(ctx) {
      served++;
      sendComplete(ctx, 200, 'application/octet-stream', big);
    },
  });
  const { port, server } = await startWith(t, new Registry('chaos', [fat]), { ...FAST, idleTimeoutMs: 1500 });
  const n = 3000; // 3000 × 64 KiB would be ~190 MB of responses if nothing held back
  const conn = await RawConn.open(port);
  t.teardown(() => conn.destroy());
  conn.socket.pause(); // never read
  conn.write(Array.from({ length: n }, () => get('/fat')).join(''));
  // Wait until the server stops making progress.
  let last = -1;
  for (let i = 0; i < 50 && served !== last; i++) {
    last = served;
    await sleep(100);
  }
  t.ok(served > 0, `served ${served} before the client's window filled`);
  t.ok(served < n / 4, `stopped at ${served} of ${n}: output backpressure holds the rest`);
  await sleep(200);
  t.equal(served, last, 'no more progress while the client does not read');
  // The stalled connection is cut off after the idle timeout instead of lingering for ever.
  t.ok(await eventually(() => server.connectionCount === 0, 5000), 'a client that never reads is eventually dropped');
});

t.test('backpressure: a reading client gets every pipelined response, in order', async (t) => {
  let served = 0;
  const numbered = defineChaosEndpoint({
    id: 'numbered',
    path: '/numbered',
    category: 'payload',
    summary: 'counts',
    params: {},
    handle(ctx) {
      served++;
      // Async answers keep the queue full, so parsing pauses and resumes many times.
      ctx.wire.setTimer(0, () => sendComplete(ctx, 200, 'text/plain', Buffer.from(String(served).padStart(6, '0').repeat(2000))));
    },
  });
  const { port } = await startWith(t, new Registry('chaos', [numbered]));
  const n = 300;
  const res = await rawExchange(port, Array.from({ length: n }, (_, i) => get(`/numbered?i=${i}`)).join(''), {
    until: (d) => completeResponses(d) === n,
    timeoutMs: 15_000,
  });
  t.equal(res.end, 'stopped');
  const bodies = splitResponses(res.data).map((r) => r.body.toString('latin1', 0, 6));
  t.same(bodies, Array.from({ length: n }, (_, i) => String(i + 1).padStart(6, '0')));
});

t.test('backpressure: a client that stops reading mid-stream is dropped, not waited on for ever', async (t) => {
  let writes = 0;
  const chunk = Buffer.alloc(256 * 1024, 0x62);
  const firehose = defineChaosEndpoint({
    id: 'firehose',
    path: '/firehose',
    category: 'latency',
    summary: 'streams until the client stops reading',
    params: {},
    handle(ctx) {
      ctx.wire.head(200, [['Content-Type', 'application/octet-stream']]);
      const step = (): void => {
        writes++;
        if (ctx.wire.write(chunk)) ctx.wire.setTimer(0, step);
        else ctx.wire.whenWritable(step);
      };
      step();
    },
  });
  const { port, server } = await startWith(t, new Registry('chaos', [firehose]), { ...FAST, idleTimeoutMs: 300 });
  const conn = await RawConn.open(port);
  t.teardown(() => conn.destroy());
  conn.socket.pause(); // never read
  conn.write(get('/firehose'));
  t.ok(await eventually(() => server.connectionCount === 0, 5000), 'cut off once it stalled for the idle timeout');
  t.ok(writes < 400, `the server stopped writing (${writes} writes of 256 KiB), it did not buffer without bound`);
});
