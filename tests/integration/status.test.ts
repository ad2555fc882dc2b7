// The status category on real sockets: /status/{code} on raw sockets (and
// curl, as a user sees it); /status-line and /weighted-status (issue 12: the
// exact bytes of every mode, the 400s, the seeded draws); their control twins,
// well-formed, read by fetch or node:http (which refuses what is not), raw
// sockets for interim heads and bodiless codes. /flaky: fault-injection/.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { REASONS } from '../../shared/primitives/headers.js';
import { chaosHeaderNames, exchange, json, pipelined } from '../helpers/final-response.js';
import { fetchJson } from '../helpers/fetch-json.js';
import { nodeGet } from '../helpers/node-get.js';
import { completeByLength, get, parseHead, rawExchange, splitResponses } from '../helpers/raw.js';
import { expect400, withoutDate } from '../helpers/replies.js';
import { startChaos, startHttp } from '../helpers/servers.js';

const reason = (code: number): string => REASONS[code] ?? 'Unknown';
const run = promisify(execFile);
const REALM = 'hub.test';


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

t.test('as curl sees it: the interim head before the final one; 204 ends cleanly', async (t) => {
  const { port } = await startChaos(t);
  const base = `http://127.0.0.1:${port}`;
  const interim = await run('curl', ['-si', '--max-time', '5', `${base}/status/103`]);
  t.match(interim.stdout, /^HTTP\/1\.1 103 Early Hints\r\n(?:[^\r]+\r\n)*\r\nHTTP\/1\.1 200 OK\r\n/);
  t.match(interim.stdout, /"interim_status":103/);
  // Two URLs on one curl connection: the 204 must not swallow or leak bytes.
  const noContent = await run('curl', ['-si', '--max-time', '5', `${base}/status/204`, `${base}/status/418`]);
  t.match(noContent.stdout, /^HTTP\/1\.1 204 No Content\r\n(?:[^\r]+\r\n)*\r\nHTTP\/1\.1 418 I'm a teapot\r\n/);
});

// ---- control /status/{code} ----------------------------------------------

t.test('control /status/{code}: the same status with the headers the code requires', async (t) => {
  const { port } = await startHttp(t, 'control');
  const base = `http://127.0.0.1:${port}`;
  for (const code of [200, 201, 400, 404, 418, 429, 500, 503, 599]) {
    const { res, body } = await fetchJson(`${base}/status/${code}`);
    t.equal(res.status, code);
    t.same(body, { endpoint: '/status/{code}', status: code, reason: body.reason });
    t.equal(res.headers.get('x-chaos-origin'), 'control');
    t.equal(res.headers.get('x-chaos-counterpart'), `http://chaos.test:8080/status/${code}`, 'the twin is named by the concrete path');
  }
  t.equal((await fetchJson(`${base}/status/302`)).res.headers.get('location'), 'http://control.test:8080/status/200');
  t.equal((await fetchJson(`${base}/status/401`)).res.headers.get('www-authenticate'), `Basic realm="${REALM}"`);
  // fetch turns any 407 into a network error (Fetch standard), so this one is read raw.
  t.equal((await exchange(port, get('/status/407'))).response.header('proxy-authenticate'), `Basic realm="${REALM}"`);
  const upgrade = await fetchJson(`${base}/status/426`);
  t.equal(upgrade.res.headers.get('upgrade'), 'HTTP/2.0');
  t.equal((await fetchJson(`${base}/status/405`)).res.headers.get('allow'), 'GET, HEAD');
  const refused = await fetchJson(`${base}/status/101`);
  t.equal(refused.res.status, 400);
  t.match(refused.body, { endpoint: '/status/{code}', error: 'protocol_switching_status', requested: 101 });
  const clamped = await fetchJson(`${base}/status/1000`);
  t.equal(clamped.res.status, 599);
  t.equal(clamped.res.headers.get('x-chaos-clamped'), 'code=599');
  t.equal((await fetchJson(`${base}/status/abc`)).res.status, 400);
});

t.test('control /status: 204/304 bodiless and 205 empty on a keep-alive connection; 1xx as a real interim', async (t) => {
  const { port } = await startHttp(t, 'control');
  const { exchanges } = await pipelined(port, [get('/status/204'), get('/status/304'), get('/status/205'), get('/status/200')]);
  t.same(
    exchanges.map((e) => e.response.status),
    [204, 304, 205, 200],
  );
  t.equal(exchanges[0]?.response.header('content-length'), undefined);
  t.equal(exchanges[0]?.response.header('transfer-encoding'), undefined);
  t.equal(exchanges[2]?.response.header('content-length'), '0');
  for (const code of [100, 102, 103]) {
    const ex = await exchange(port, get(`/status/${code}`));
    t.equal(ex.interims[0]?.status, code, `${code}: interim head`);
    t.equal(ex.response.status, 200);
    t.match(json(ex), { interim_status: code, interim_sent: true });
  }
  const unassigned = await exchange(port, get('/status/150'));
  t.equal(unassigned.interims.length, 0, 'no interim for a 1xx node:http cannot send');
  t.match(json(unassigned), { status: 200, interim_status: 150, interim_sent: false });
});

// ---- /status-line ---------------------------------------------------------

/** mode → the status line sent, as the docs state it. */
const STATUS_LINES = {
  'reason-mismatch': 'HTTP/1.1 200 Not Found',
  'empty-reason': 'HTTP/1.1 200 ',
  'no-reason': 'HTTP/1.1 200',
  http10: 'HTTP/1.0 200 OK',
  'http2-version': 'HTTP/2 200',
  'four-digit': 'HTTP/1.1 2000 OK',
  lowercase: 'http/1.1 200 ok',
  'lf-only': 'HTTP/1.1 200 OK',
} as const;

t.test('/status-line: the exact bytes of every mode, then a close', async (t) => {
  const { port } = await startChaos(t);
  for (const [mode, line] of Object.entries(STATUS_LINES)) {
    const r = await rawExchange(port, get(`/status-line?mode=${mode}`), { timeoutMs: 3000 });
    const eol = mode === 'lf-only' ? '\n' : '\r\n';
    const body = `{"endpoint":"/status-line","mode":"${mode}","status_line":"${line}","line_end":"${mode === 'lf-only' ? 'LF' : 'CRLF'}","means":"HTTP/1.1 200 OK"}\n`;
    const head = [
      line,
      'Content-Type: application/json',
      `Content-Length: ${body.length}`,
      'Date: <date>',
      'Connection: close',
      'X-Chaos-Category: status',
      'X-Chaos-Endpoint: /status-line',
      `X-Chaos-Status-Line-Mode: ${mode}`,
      `X-Chaos-Status-Line-Sent: "${line}"`,
    ];
    t.equal(withoutDate(r.data.toString('latin1')), `${head.join(eol)}${eol}${eol}${body}`, `${mode}: the exact bytes`);
    t.equal(r.end, 'fin', `${mode}: the connection closes after it`);
    if (mode === 'lf-only') t.notOk(r.data.includes('\r'), 'lf-only: not one CR');
  }
});

t.test('/status-line: the default mode, HEAD, and a bad mode', async (t) => {
  const { port } = await startChaos(t);
  const r = await rawExchange(port, get('/status-line'), { timeoutMs: 3000 });
  t.match(r.data.toString('latin1'), /^HTTP\/1\.1 200 Not Found\r\n/, 'reason-mismatch by default');
  const head = await rawExchange(port, get('/status-line?mode=four-digit', {}, 'HEAD'), { timeoutMs: 3000 });
  t.match(head.data.toString('latin1'), /^HTTP\/1\.1 2000 OK\r\n[^]*\r\n\r\n$/, 'HEAD: the lying head, no body');
  await expect400(t, port, ['/status-line?mode=nope', '/status-line?mode=']);
});

t.test('control /status-line: HTTP/1.1 200 OK whatever the mode, read by node:http', async (t) => {
  const { port } = await startHttp(t, 'control');
  for (const mode of Object.keys(STATUS_LINES)) {
    const r = await nodeGet(port, `/status-line?mode=${mode}`);
    t.same([r.status, r.statusMessage], [200, 'OK'], `${mode}: 200 OK`);
    t.same(JSON.parse(r.body), { endpoint: '/status-line', mode, status_line: 'HTTP/1.1 200 OK', line_end: 'CRLF', means: 'HTTP/1.1 200 OK' });
  }
  const raw = await rawExchange(port, get('/status-line?mode=lf-only'), { until: completeByLength });
  t.match(raw.data.toString('latin1'), /^HTTP\/1\.1 200 OK\r\n/, 'CRLF on the wire');
});

// ---- /weighted-status -----------------------------------------------------

t.test('/weighted-status: a seeded draw, written as /status/{code} writes it, reproducible', async (t) => {
  const { port } = await startChaos(t);
  // seed-0 draws 200 and seed-46 draws 500 from the default 200:0.9,500:0.1 (pinned: the draw is a contract).
  for (const [seed, code, reason] of [['seed-0', 200, 'OK'], ['seed-46', 500, 'Internal Server Error']] as const) {
    const texts: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await rawExchange(port, get(`/weighted-status?seed=${seed}`), { until: completeByLength });
      texts.push(withoutDate(r.data.toString('latin1')));
    }
    const body = `{"endpoint":"/weighted-status","drawn":${code},"status":${code},"reason":"${reason}","codes":"200:0.9,500:0.1","seed":"${seed}"}\n`;
    t.equal(
      texts[0],
      `HTTP/1.1 ${code} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nDate: <date>\r\n` +
        `X-Chaos-Category: status\r\nX-Chaos-Endpoint: /weighted-status\r\nX-Chaos-Status: ${code}\r\n` +
        `X-Chaos-Weighted-Codes: 200:0.9,500:0.1\r\nX-Chaos-Weighted-Seed: ${seed}\r\n\r\n${body}`,
      `${seed}: the exact bytes`,
    );
    t.equal(texts[1], texts[0], `${seed}: the same bytes again`);
  }
  const fresh = parseHead((await rawExchange(port, get('/weighted-status?codes=418:1,503:1'), { until: completeByLength })).data);
  const seed = fresh.header('x-chaos-weighted-seed') ?? '';
  t.match(seed, /^[0-9a-f]{16}$/, 'without a seed, the fresh one is reported');
  const replay = parseHead((await rawExchange(port, get(`/weighted-status?codes=418:1,503:1&seed=${seed}`), { until: completeByLength })).data);
  t.equal(replay.status, fresh.status, 'and replays the same status');
});

t.test('/weighted-status: weights decide, a zero weight is never drawn', async (t) => {
  const { port } = await startChaos(t);
  const seen = new Map<number, number>();
  for (let i = 0; i < 60; i++) {
    const head = parseHead((await rawExchange(port, get(`/weighted-status?codes=201:1,202:0,418:3&seed=w${i}`), { until: completeByLength })).data);
    seen.set(head.status, (seen.get(head.status) ?? 0) + 1);
  }
  t.notOk(seen.has(202), 'weight 0: never');
  t.same([...seen.keys()].sort(), [201, 418], 'both weighted codes come up');
  t.ok((seen.get(418) ?? 0) > (seen.get(201) ?? 0), `418 (3×) more often than 201 (${JSON.stringify([...seen])})`);
});

t.test('/weighted-status: 1xx, 204 and 304 keep their framing rules', async (t) => {
  const { port } = await startChaos(t);
  const interim = await rawExchange(port, get('/weighted-status?codes=103:1&seed=a'), {
    until: (d) => d.includes('"interim_sent":true}\n'),
    timeoutMs: 3000,
  });
  const text = interim.data.toString('latin1');
  t.match(text, /^HTTP\/1\.1 103 Early Hints\r\n[^]*?X-Chaos-Status: 103\r\n[^]*?\r\n\r\nHTTP\/1\.1 200 OK\r\n/, 'the interim head, then a final 200');
  t.match(text, /\{"endpoint":"\/weighted-status","drawn":103,"status":200,"reason":"OK","codes":"103:1","seed":"a","interim_sent":true\}\n$/);
  for (const code of [204, 304]) {
    // Pipelined: a bodiless head must leave the connection ready for the next answer.
    const r = await rawExchange(port, get(`/weighted-status?codes=${code}:1&seed=a`) + get('/status/200'), {
      until: (d) => d.includes('"status":200'),
      timeoutMs: 3000,
    });
    const [first, second] = splitResponses(r.data);
    t.equal(first?.response.status, code, `${code} first`);
    t.equal(first?.response.header('content-length'), undefined, `${code}: no Content-Length`);
    t.equal(first?.response.header('x-chaos-status'), String(code));
    t.equal(second?.response.status, 200, `${code}: the next response follows cleanly`);
  }
});

t.test('/weighted-status: a list that breaks a rule is refused whole', async (t) => {
  const { port } = await startChaos(t);
  const many = Array.from({ length: 21 }, (_, i) => `${200 + i}:1`).join(',');
  await expect400(t, port, [
    '/weighted-status?codes=101:1',
    '/weighted-status?codes=200:1,101:0',
    `/weighted-status?codes=${many}`,
    '/weighted-status?codes=200:0,500:0',
    '/weighted-status?codes=2xx:1',
    '/weighted-status?codes=200:-1',
    '/weighted-status?codes=600:1',
    '/weighted-status?codes=99:1',
    '/weighted-status?codes=200:1,',
    '/weighted-status?codes=',
    '/weighted-status?codes=200',
    `/weighted-status?seed=${'s'.repeat(257)}`,
  ]);
  const twenty = Array.from({ length: 20 }, (_, i) => `${200 + i}:1`).join(',');
  const ok = parseHead((await rawExchange(port, get(`/weighted-status?codes=${twenty}&seed=x`), { until: completeByLength })).data);
  t.ok(ok.status >= 200 && ok.status < 220, '20 entries are accepted');
});

t.test('control /weighted-status: always 200 naming the same draw, read by node:http', async (t) => {
  const { port } = await startHttp(t, 'control');
  const r = await nodeGet(port, '/weighted-status?seed=seed-46');
  t.equal(r.status, 200);
  t.same(JSON.parse(r.body), { endpoint: '/weighted-status', drawn: 500, status: 200, reason: 'OK', codes: '200:0.9,500:0.1', seed: 'seed-46' });
  const bad = await nodeGet(port, '/weighted-status?codes=101:1');
  t.equal(bad.status, 400, 'the same 400 on the twin');
});
