// Issue 12, status and headers: /status-line, /weighted-status,
// /duplicate-headers, /huge-header and /cookies on raw sockets (the exact
// bytes of every mode, the 400s, the seeded draws), and their control twins
// read by node:http, which refuses what is not well-formed.
import t, { type Test } from 'tap';
import { completeByLength, get, parseHead, rawExchange, splitResponses } from '../helpers/raw.js';
import { nodeGet, type NodeAnswer } from '../helpers/node-get.js';
import { startChaos, startHttp } from '../helpers/servers.js';

const withoutDate = (text: string): string => text.replace(/(\r?\n)Date: [^\r\n]*/, '$1Date: <date>');
const chaosLines = (data: Buffer): string[] =>
  parseHead(data).headerLines.filter(([n]) => /^x-chaos-/i.test(n)).map(([n]) => n);

/** Asks for each target and expects a 400 parameter error without any X-Chaos-* line. */
async function expect400(t: Test, port: number, targets: readonly string[]): Promise<void> {
  for (const target of targets) {
    const r = await rawExchange(port, get(target), { until: completeByLength });
    const head = parseHead(r.data);
    t.equal(head.status, 400, `${target.slice(0, 60)}: 400`);
    t.same(chaosLines(r.data), [], `${target.slice(0, 60)}: a real error, no X-Chaos-*`);
    t.equal((JSON.parse(head.rest.toString()) as { error: string }).error, 'invalid_parameter');
  }
}

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

// ---- /duplicate-headers ---------------------------------------------------

/** mode → [status line, the lines as they follow in the head]. */
const DUPLICATES = {
  'content-type': ['HTTP/1.1 200 OK', ['Content-Type: application/json', 'Content-Type: text/html; charset=utf-8', 'Content-Length: <n>']],
  'content-length': ['HTTP/1.1 200 OK', ['Content-Type: application/json', 'Content-Length: <n>', 'Content-Length: <2n>']],
  'cache-control': ['HTTP/1.1 200 OK', ['Content-Type: application/json', 'Content-Length: <n>']],
  location: ['HTTP/1.1 302 Found', ['Content-Type: application/json', 'Content-Length: <n>']],
  'set-cookie-folded': ['HTTP/1.1 200 OK', ['Content-Type: application/json', 'Content-Length: <n>']],
} as const;
const AFTER: Readonly<Record<keyof typeof DUPLICATES, readonly string[]>> = {
  'content-type': [],
  'content-length': [],
  'cache-control': ['Cache-Control: public, max-age=3600', 'Cache-Control: no-store'],
  location: ['Location: /status/200', 'Location: /status/418'],
  'set-cookie-folded': ['Set-Cookie: first=1; Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT, second=2; Path=/'],
};
const HEADER_OF = { 'content-type': 'Content-Type', 'content-length': 'Content-Length', 'cache-control': 'Cache-Control', location: 'Location', 'set-cookie-folded': 'Set-Cookie' } as const;

t.test('/duplicate-headers: the exact bytes of every mode', async (t) => {
  const { port } = await startChaos(t);
  for (const [mode, [statusLine, first]] of Object.entries(DUPLICATES) as [keyof typeof DUPLICATES, (typeof DUPLICATES)[keyof typeof DUPLICATES]][]) {
    const r = await rawExchange(port, get(`/duplicate-headers?mode=${mode}`), { timeoutMs: 600 });
    const body = `{"endpoint":"/duplicate-headers","mode":"${mode}","header":"${HEADER_OF[mode]}"}\n`;
    const closing = mode === 'content-length';
    const lines = [
      statusLine,
      ...first.map((l) => l.replace('<n>', String(body.length)).replace('<2n>', String(2 * body.length))),
      'Date: <date>',
      ...(closing ? ['Connection: close'] : []),
      'X-Chaos-Category: headers',
      'X-Chaos-Endpoint: /duplicate-headers',
      `X-Chaos-Duplicate-Mode: ${mode}`,
      `X-Chaos-Duplicated: ${HEADER_OF[mode]}`,
      ...AFTER[mode],
    ];
    t.equal(withoutDate(r.data.toString('latin1')), `${lines.join('\r\n')}\r\n\r\n${body}`, `${mode}: the exact bytes`);
    t.equal(r.end, closing ? 'fin' : 'timeout', closing ? 'content-length: then a close' : `${mode}: the connection stays open`);
  }
  await expect400(t, port, ['/duplicate-headers?mode=etag']);
});

t.test('/duplicate-headers?mode=content-length: node:http refuses it', async (t) => {
  const { port } = await startChaos(t);
  await t.rejects(nodeGet(port, '/duplicate-headers?mode=content-length'), 'two different lengths: a parse error');
});

t.test('control /duplicate-headers: each header once, read by node:http', async (t) => {
  const { port } = await startHttp(t, 'control');
  const count = (r: NodeAnswer, name: string) => r.rawHeaders.filter((v, i) => i % 2 === 0 && v.toLowerCase() === name.toLowerCase()).length;
  for (const mode of Object.keys(DUPLICATES) as (keyof typeof DUPLICATES)[]) {
    const r = await nodeGet(port, `/duplicate-headers?mode=${mode}`);
    t.equal(r.status, mode === 'location' ? 302 : 200, `${mode}: the same status`);
    t.same(JSON.parse(r.body), { endpoint: '/duplicate-headers', mode, header: HEADER_OF[mode] });
    t.equal(count(r, 'content-type'), 1, `${mode}: one Content-Type`);
    t.equal(count(r, 'content-length'), 1, `${mode}: one Content-Length`);
  }
  t.equal((await nodeGet(port, '/duplicate-headers?mode=cache-control')).headers['cache-control'], 'public, max-age=3600');
  t.equal((await nodeGet(port, '/duplicate-headers?mode=location')).headers.location, '/status/200');
  t.same((await nodeGet(port, '/duplicate-headers?mode=set-cookie-folded')).headers['set-cookie'], [
    'first=1; Path=/; Expires=Wed, 21 Oct 2037 07:28:00 GMT',
    'second=2; Path=/',
  ]);
});

// ---- /huge-header ---------------------------------------------------------

const letters = (n: number): string => 'abcdefghijklmnopqrstuvwxyz'.repeat(Math.ceil(n / 26)).slice(0, n);

t.test('/huge-header: one value of exactly `size` bytes', async (t) => {
  const { port } = await startChaos(t);
  const r = await rawExchange(port, get('/huge-header?size=30'), { until: completeByLength });
  const body = '{"endpoint":"/huge-header","header":"X-Huge-Header","size":30}\n';
  t.equal(
    withoutDate(r.data.toString('latin1')),
    `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nDate: <date>\r\n` +
      'X-Chaos-Category: headers\r\nX-Chaos-Endpoint: /huge-header\r\nX-Chaos-Huge-Header: X-Huge-Header\r\nX-Chaos-Huge-Header-Bytes: 30\r\n' +
      `X-Huge-Header: ${letters(30)}\r\n\r\n${body}`,
    'the exact bytes',
  );
  for (const [query, size, clamped] of [['', 16384, undefined], ['size=262144', 262144, undefined], ['size=0', 1, 'size=1'], ['size=999999', 262144, 'size=262144']] as const) {
    const head = parseHead((await rawExchange(port, get(`/huge-header?${query}`), { until: completeByLength, timeoutMs: 3000 })).data);
    t.equal(head.header('x-huge-header'), letters(size), `${query || 'default'}: ${size} bytes`);
    t.equal(head.header('x-chaos-huge-header-bytes'), String(size));
    t.equal(head.header('x-chaos-clamped'), clamped, `${query || 'default'}: clamp reported as ${clamped ?? 'none'}`);
  }
  await expect400(t, port, ['/huge-header?size=abc', '/huge-header?size=1.5', '/huge-header?size=', '/huge-header?size=0x10']);
});

t.test('/huge-header: node:http refuses the default head; the twin carries the value as data', async (t) => {
  const { port } = await startChaos(t);
  await t.rejects(nodeGet(port, '/huge-header'), 'over node:http’s 16 KiB head limit');
  const control = (await startHttp(t, 'control')).port;
  const r = await nodeGet(control, '/huge-header?size=262144');
  t.equal(r.status, 200);
  t.equal(r.headers['x-huge-header'], undefined, 'no huge header on the twin');
  t.same(JSON.parse(r.body), { endpoint: '/huge-header', header: 'X-Huge-Header', size: 262144, value: letters(262144) });
});

// ---- /cookies -------------------------------------------------------------

const COOKIES: Readonly<Record<string, readonly string[]>> = {
  malformed: ['session', '=no-name; Path=/', 'bad name=1; Path=/', 'attrs=1; Max-Age=soon; Expires=tomorrow; Path=/'],
  // testConfig's chaos host is chaos.test.
  'conflicting-domain': ['session=host-only; Path=/', 'session=domain-wide; Domain=chaos.test; Path=/'],
  'conflicting-path': ['session=root; Path=/', 'session=cookies; Path=/cookies'],
  expired: ['session=expired; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT'],
  oversized: [`big=${'x'.repeat(4996)}; Path=/`],
  'samesite-none-insecure': ['session=cross-site; Path=/; SameSite=None'],
  many: Array.from({ length: 200 }, (_, i) => `c${String(i + 1).padStart(3, '0')}=${i + 1}; Path=/`),
};

t.test('/cookies: the exact Set-Cookie lines of every mode', async (t) => {
  const { port } = await startChaos(t);
  for (const [mode, cookies] of Object.entries(COOKIES)) {
    const r = await rawExchange(port, get(`/cookies?mode=${mode}`), { until: completeByLength });
    const body = `{"endpoint":"/cookies","mode":"${mode}","set_cookie_lines":${cookies.length}}\n`;
    t.equal(
      withoutDate(r.data.toString('latin1')),
      `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nDate: <date>\r\n` +
        `X-Chaos-Category: headers\r\nX-Chaos-Endpoint: /cookies\r\nX-Chaos-Cookie-Mode: ${mode}\r\nX-Chaos-Cookie-Count: ${cookies.length}\r\n` +
        `${cookies.map((c) => `Set-Cookie: ${c}\r\n`).join('')}\r\n${body}`,
      `${mode}: the exact bytes`,
    );
  }
  const oversized = parseHead((await rawExchange(port, get('/cookies?mode=oversized'), { until: completeByLength })).data);
  t.ok((oversized.header('set-cookie') ?? '').split(';')[0]!.length > 4096, 'oversized: name=value over 4096 bytes');
  const byDefault = parseHead((await rawExchange(port, get('/cookies'), { until: completeByLength })).data);
  t.equal(byDefault.header('x-chaos-cookie-mode'), 'malformed', 'malformed by default');
  await expect400(t, port, ['/cookies?mode=tasty', '/cookies?mode=']);
});

t.test('control /cookies: one well-formed cookie whatever the mode, read by node:http', async (t) => {
  const { port } = await startHttp(t, 'control');
  for (const mode of Object.keys(COOKIES)) {
    const r = await nodeGet(port, `/cookies?mode=${mode}`);
    t.equal(r.status, 200);
    t.same(r.headers['set-cookie'], ['session=ok; Path=/; HttpOnly; SameSite=Lax'], `${mode}: one cookie`);
    t.same(JSON.parse(r.body), { endpoint: '/cookies', mode, set_cookie_lines: 1 });
  }
});
