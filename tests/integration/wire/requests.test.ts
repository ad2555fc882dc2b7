// The chaos host's own HTTP/1.1 stack on real sockets, request by request:
// keep-alive, pipelining, HEAD, request bodies, 100-continue, the bound on
// bodies, the hostile-input table, 421, 405 and HTTP/1.0.
import t from 'tap';
import { loadConfig } from '../../../shared/config/config.js';
import { seededBytes } from '../../../shared/primitives/seed.js';
import { chaosHeaderNames, FAST, HONEST } from '../../helpers/chaos-wire.js';
import { completeResponses, RawConn } from '../../helpers/conn.js';
import { completeByLength, get, parseHead, rawExchange, splitResponses, type ParsedResponse } from '../../helpers/raw.js';
import { startChaos } from '../../helpers/servers.js';

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
    // A connection that opens with the HTTP/2 preface speaks HTTP/2 (tests/integration/http2/raw-frames.test.ts).
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
