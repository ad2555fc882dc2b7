// The headers category on the wire. /wrong-content-type, /cache-confused and
// /header-flood (SPEC §4.1, §7) and their control twins (/matched-content-type,
// /cache-coherent, /header-flood): chaos read on a raw socket, the shared case
// list against both hosts, the headline lies through curl. /duplicate-headers,
// /huge-header and /cookies (issue 12): the exact bytes of every mode and the
// 400s, the twins read by node:http, which refuses what is not well-formed.
// /etag: byte for byte beside its control twin and its conditional requests.
import t from 'tap';
import { counterpartUrl } from '../../shared/catalog/catalog.js';
import { CACHE_CONTROL, CACHE_MODES, CONTENT_TYPE_MODES, type ContentTypeMode } from '../../shared/content/headers.js';
import { chaosEndpoints } from '../../services/chaos/endpoints/index.js';
import { controlEndpoints } from '../../services/control/endpoints/index.js';
import { assertParamError, call, contradicts, curl, curlHeads, labelFormat, parses, sharedCases, sniff } from '../helpers/format-cases.js';
import { nodeGet, type NodeAnswer } from '../helpers/node-get.js';
import { completeByLength, get, parseHead, rawExchange } from '../helpers/raw.js';
import { exchange, expect400, expectChaosLines, realFailure, withoutDate, type Exchange } from '../helpers/replies.js';
import { startChaos, startHttp, testConfig } from '../helpers/servers.js';

t.test('GET /wrong-content-type: each label lies about the body, or is missing', async (t) => {
  const { port } = await startChaos(t);
  const expected: Record<ContentTypeMode, { type: string | undefined; format: string }> = {
    'json-as-html': { type: 'text/html; charset=utf-8', format: 'json' },
    'xml-as-json': { type: 'application/json', format: 'xml' },
    'html-as-json': { type: 'application/json', format: 'html' },
    'json-as-png': { type: 'image/png', format: 'json' },
    missing: { type: undefined, format: 'json' },
  };
  for (const type of CONTENT_TYPE_MODES) {
    const { res, body, headText } = await call(port, `/wrong-content-type?type=${type}`);
    const want = expected[type];
    t.equal(res.status, 200, `${type}: 200`);
    if (want.type === undefined) {
      t.notMatch(headText, /\r\ncontent-type\s*:/i, `${type}: no Content-Type line at all`);
      t.same(res.headers('content-type'), []);
    } else {
      t.same(res.headers('content-type'), [want.type], `${type}: exactly one Content-Type, ${want.type}`);
    }
    t.equal(res.header('x-chaos-payload'), 'wrong-content-type');
    t.equal(res.header('x-chaos-type-mode'), type);
    t.equal(res.header('x-chaos-body-format'), want.format, `${type}: X-Chaos-Body-Format is the real format`);
    t.equal(res.header('x-chaos-actual-format'), want.format, `${type}: the deprecated alias carries the same value`);
    t.equal(sniff(body), want.format, `${type}: the body really is ${want.format}`);
    t.not(labelFormat(res.header('content-type')), want.format, `${type}: the label does not match the body`);
    if (type === 'json-as-png') t.not(body[0], 0x89, 'never the PNG signature');
  }
  const byDefault = await call(port, '/wrong-content-type');
  t.equal(byDefault.res.header('x-chaos-type-mode'), 'json-as-html', 'default type is json-as-html');
  t.equal(byDefault.res.header('content-type'), 'text/html; charset=utf-8');
  t.ok(parses(byDefault.body), 'a JSON body under the text/html label');
  assertParamError(t, await call(port, '/wrong-content-type?type=json'), '/wrong-content-type', 'type', 'json');
});

t.test('the content-type twins name each other', async (t) => {
  const urls = testConfig().urls;
  const chaos = chaosEndpoints.find((e) => e.id === 'wrong-content-type');
  const control = controlEndpoints.find((e) => e.id === 'matched-content-type');
  t.ok(chaos && control);
  if (!chaos || !control) return;
  t.equal(counterpartUrl('chaos', chaos, urls), `${urls.control}/matched-content-type`);
  t.equal(counterpartUrl('control', control, urls), `${urls.base}/wrong-content-type`);
  const confused = chaosEndpoints.find((e) => e.id === 'cache-confused');
  const coherent = controlEndpoints.find((e) => e.id === 'cache-coherent');
  t.equal(confused && counterpartUrl('chaos', confused, urls), `${urls.control}/cache-coherent`);
  t.equal(coherent && counterpartUrl('control', coherent, urls), `${urls.base}/cache-confused`);
});

t.test('GET /cache-confused: exactly one Cache-Control line holding the contradictions', async (t) => {
  const { port } = await startChaos(t);
  const exact: Record<string, string> = {
    all: 'no-store, max-age=300, no-cache, immutable, private, s-maxage=3600',
    'store-vs-age': 'no-store, max-age=300',
    'cache-vs-immutable': 'no-cache, immutable',
    'private-vs-shared': 'private, s-maxage=3600',
  };
  for (const mode of CACHE_MODES) {
    const { res, body, headText } = await call(port, `/cache-confused?mode=${mode}`);
    t.equal(res.status, 200, `${mode}: 200`);
    t.equal((headText.match(/\r\ncache-control:/gi) ?? []).length, 1, `${mode}: exactly one Cache-Control line`);
    t.equal(res.header('cache-control'), exact[mode], `${mode}: Cache-Control is exactly ${exact[mode]}`);
    t.equal(CACHE_CONTROL[mode], exact[mode]);
    t.ok(contradicts(res.header('cache-control')), `${mode}: the directives contradict each other`);
    t.equal(res.header('x-chaos-cache-mode'), mode);
    t.equal(res.header('content-type'), 'application/json');
    t.match(JSON.parse(body.toString('utf8')), { endpoint: '/cache-confused', mode, cache_control: exact[mode] });
  }
  const byDefault = await call(port, '/cache-confused');
  t.equal(byDefault.res.header('cache-control'), exact.all, 'default mode is all');
  assertParamError(t, await call(port, '/cache-confused?mode=coherent'), '/cache-confused', 'mode', 'coherent');
});

t.test('GET /header-flood: n synthetic headers X-Chaos-Header-001…, zero-padded, counted', async (t) => {
  const { port } = await startChaos(t);
  const cases: [query: string, n: number, clamped: string | undefined][] = [
    ['', 20, undefined],
    ['?n=1', 1, undefined],
    ['?n=9', 9, undefined],
    ['?n=10', 10, undefined],
    ['?n=99', 99, undefined],
    ['?n=100', 100, undefined],
    ['?n=0', 1, 'n=1'],
    ['?n=-4', 1, 'n=1'],
    ['?n=101', 100, 'n=100'],
    ['?n=100000000000000000000', 100, 'n=100'],
  ];
  for (const [query, n, clamped] of cases) {
    const { res, body } = await call(port, `/header-flood${query}`);
    t.equal(res.status, 200, `${query || 'default'}: 200`);
    const synthetic = res.headerLines.filter(([name]) => /^x-chaos-header-\d+$/i.test(name));
    t.equal(synthetic.length, n, `${query || 'default'}: ${n} synthetic headers`);
    const names = synthetic.map(([name]) => name);
    const want = Array.from({ length: n }, (_, i) => `X-Chaos-Header-${String(i + 1).padStart(3, '0')}`);
    t.same(names, want, `${query || 'default'}: named 001 to ${String(n).padStart(3, '0')}, in order`);
    t.ok(names.every((name) => /^X-Chaos-Header-\d{3}$/.test(name)), 'always three digits');
    t.equal(res.header('x-chaos-header-count'), String(n));
    t.equal(res.header('x-chaos-clamped'), clamped, `${query || 'default'}: X-Chaos-Clamped ${clamped ?? 'absent'}`);
    t.same(JSON.parse(body.toString('utf8')), { endpoint: '/header-flood', header_count: n, max: 100 });
  }
  for (const bad of ['abc', '2.5', '', '1e2']) {
    assertParamError(t, await call(port, `/header-flood?n=${bad}`), '/header-flood', 'n', bad);
  }
  // HEAD: the whole flood, no body.
  const head = await rawExchange(port, get('/header-flood?n=100', { Connection: 'close' }, 'HEAD'));
  const parsed = parseHead(head.data);
  t.equal(parsed.headers('x-chaos-header-100').length, 1, 'HEAD carries the flood too');
  t.equal(parsed.rest.length, 0, 'HEAD has no body');
});

t.test('shared cases (content type, cache, header flood): the same paths answer on both hosts; chaos lies, control is well-formed', (t) =>
  sharedCases(t, (c) => ['/wrong-content-type', '/cache-confused', '/header-flood'].some((p) => c.chaos.startsWith(p))));

t.test('control twins: exact well-formed answers and the same parameter rules (content type, cache, header flood)', async (t) => {
  const { port } = await startHttp(t, 'control');
  const coherent = await call(port, '/cache-coherent');
  t.equal((coherent.headText.match(/\r\ncache-control:/gi) ?? []).length, 1, 'one Cache-Control line');
  t.equal(coherent.res.header('cache-control'), 'public, max-age=300', 'exactly public, max-age=300');

  for (const type of CONTENT_TYPE_MODES) {
    const matched = await call(port, `/matched-content-type?type=${type}`);
    t.same(matched.res.headers('content-type'), ['application/json'], `${type}: labelled application/json`);
    t.match(JSON.parse(matched.body.toString('utf8')), { endpoint: '/matched-content-type', body_format: 'json', labelled_as: 'application/json' });
  }

  const flood = await call(port, '/header-flood?n=500');
  t.equal(flood.res.header('x-chaos-clamped'), 'n=100', 'n is clamped on control too');
  const doc = JSON.parse(flood.body.toString('utf8')) as { header_count: number; max: number; headers: Record<string, string> };
  t.equal(doc.header_count, 100);
  t.equal(Object.keys(doc.headers).length, 100, 'the synthetic headers arrive as data in the body');
  t.equal(doc.headers['X-Chaos-Header-007'], 'flood-007');
  t.notOk(flood.res.headerLines.some(([name]) => /^x-chaos-header-\d+$/i.test(name)), 'and not on the wire');
  assertParamError(t, await call(port, '/cache-coherent?mode=x'), '/cache-coherent', 'mode', 'x');
  assertParamError(t, await call(port, '/matched-content-type?type=x'), '/matched-content-type', 'type', 'x');
  assertParamError(t, await call(port, '/header-flood?n=1.5'), '/header-flood', 'n', '1.5');
});

t.test('curl sees the headline lies: content type, cache, header flood', async (t) => {
  const { port } = await startChaos(t);
  const url = (path: string, p = port): string => `http://127.0.0.1:${p}${path}`;
  const missing = await curl(['-i', url('/wrong-content-type?type=missing')]);
  t.equal(missing.code, 0);
  const missingHead = curlHeads(missing.stdout)[0] ?? '';
  t.match(missingHead, /^HTTP\/1\.1 200/);
  t.notMatch(missingHead, /\r\ncontent-type:/i, 'curl -i: no Content-Type line');
  t.match(missingHead, /\r\nX-Chaos-Body-Format: json\r\n/);

  const cache = await curl(['-i', url('/cache-confused')]);
  const cacheHead = curlHeads(cache.stdout)[0] ?? '';
  t.equal((cacheHead.match(/\r\ncache-control:/gi) ?? []).length, 1, 'curl -i: one Cache-Control line');
  t.match(cacheHead, /\r\nCache-Control: no-store, max-age=300, no-cache, immutable, private, s-maxage=3600\r\n/);
  const flood = await curl(['-i', url('/header-flood?n=100')]);
  t.equal((flood.stdout.match(/\r\nX-Chaos-Header-\d{3}: /g) ?? []).length, 100, 'curl -i: 100 synthetic headers');
});

// ---------------------------------------------------------------- /duplicate-headers, /huge-header, /cookies


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

// ---------------------------------------------------------------- /etag

const chaos = (await startChaos(t)).port;
const control = (await startHttp(t, 'control')).port;




// ---------------------------------------------------------------------------
// /etag

const QUOTED_TAG = /^"[0-9a-f]{16}"$/;
const twin = await exchange(control, '/etag');
const controlTag = twin.res.header('ETag') as string;
const controlBody = twin.body;

interface EtagDoc {
  endpoint: string;
  value: string;
  updated_at: string;
}

t.test('control /etag: stable strong ETag, past Last-Modified, JSON', async (t) => {
  t.equal(twin.res.status, 200);
  t.match(controlTag, QUOTED_TAG);
  t.equal(twin.res.header('Last-Modified'), 'Mon, 01 Jan 2024 00:00:00 GMT');
  t.ok(Date.parse(twin.res.header('Last-Modified') as string) < Date.now(), 'Last-Modified is in the past');
  t.equal(twin.res.header('Content-Type'), 'application/json');
  const doc = JSON.parse(controlBody.toString()) as EtagDoc;
  t.equal(doc.endpoint, '/etag');
  t.equal(doc.updated_at, '2024-01-01T00:00:00.000Z');
  t.equal(doc.value, '0e634f6447fe3375', 'the documented canonical value');
  const again = await exchange(control, '/etag');
  t.equal(again.res.header('ETag'), controlTag, 'same ETag on every call');
  t.same(again.body, controlBody, 'same body on every call');
});

t.test('control /etag: conditional requests', async (t) => {
  const opaque = controlTag.slice(1, -1);
  const cases: [string, Record<string, string>, 200 | 304][] = [
    ['If-None-Match equal', { 'If-None-Match': controlTag }, 304],
    ['If-None-Match weak form (weak comparison)', { 'If-None-Match': `W/${controlTag}` }, 304],
    ['If-None-Match list', { 'If-None-Match': `"nope", ${controlTag}` }, 304],
    ['If-None-Match with a comma inside a tag', { 'If-None-Match': `"a,b", W/${controlTag}` }, 304],
    ['If-None-Match *', { 'If-None-Match': '*' }, 304],
    ['If-None-Match other', { 'If-None-Match': '"0000000000000000"' }, 200],
    ['If-None-Match unquoted (malformed: ignored)', { 'If-None-Match': opaque }, 200],
    ['If-Modified-Since = Last-Modified', { 'If-Modified-Since': 'Mon, 01 Jan 2024 00:00:00 GMT' }, 304],
    ['If-Modified-Since later (RFC 850 form)', { 'If-Modified-Since': 'Tuesday, 02-Jan-24 00:00:00 GMT' }, 304],
    ['If-Modified-Since earlier', { 'If-Modified-Since': 'Sun, 31 Dec 2023 23:59:59 GMT' }, 200],
    ['If-Modified-Since not an HTTP-date', { 'If-Modified-Since': '2030' }, 200],
    ['If-None-Match wins over If-Modified-Since', { 'If-None-Match': '"other"', 'If-Modified-Since': 'Mon, 01 Jan 2024 00:00:00 GMT' }, 200],
  ];
  for (const [label, headers, status] of cases) {
    const { res, body } = await exchange(control, '/etag', headers);
    t.equal(res.status, status, label);
    t.equal(res.header('ETag'), controlTag, `${label}: ETag`);
    t.equal(res.header('Last-Modified'), 'Mon, 01 Jan 2024 00:00:00 GMT', `${label}: Last-Modified`);
    if (status === 304) {
      t.equal(body.length, 0, `${label}: no body`);
      t.equal(res.header('Content-Length'), undefined, `${label}: no Content-Length`);
    } else {
      t.same(body, controlBody, `${label}: full body`);
    }
  }
});

async function etag(query: string, headers: Record<string, string> = {}): Promise<Exchange & { doc: EtagDoc }> {
  const ex = await exchange(chaos, `/etag${query}`, headers);
  return { ...ex, doc: JSON.parse(ex.body.toString()) as EtagDoc };
}

t.test('chaos /etag random-etag: identical content, a new ETag per call', async (t) => {
  const a = await etag('');
  const b = await etag('?mode=random-etag');
  for (const x of [a, b]) {
    t.equal(x.res.status, 200);
    expectChaosLines(t, x.res, 'headers', '/etag', 'X-Chaos-Etag-Mode', 'random-etag');
    t.equal(x.res.headers('ETag').length, 1);
    t.match(x.res.header('ETag'), QUOTED_TAG);
    t.same(x.body, controlBody, 'the body is the canonical document, byte for byte');
    t.equal(x.res.header('Last-Modified'), undefined);
  }
  t.not(a.res.header('ETag'), b.res.header('ETag'), 'different ETags for identical content');
  t.not(a.res.header('X-Chaos-Etag-Seed'), b.res.header('X-Chaos-Etag-Seed'), 'unseeded calls draw fresh seeds');
  const replay = await etag(`?seed=${a.res.header('X-Chaos-Etag-Seed') as string}`);
  t.equal(replay.res.header('ETag'), a.res.header('ETag'), 'the reported seed replays the ETag');
});

t.test('chaos /etag random-etag with seed: pinned', async (t) => {
  const a = await etag('?seed=abc');
  const b = await etag('?mode=random-etag&seed=abc');
  const c = await etag('?seed=abd');
  t.equal(a.res.header('ETag'), '"bffd6b463f03ada1"', 'golden: seed abc');
  t.equal(b.res.header('ETag'), a.res.header('ETag'));
  t.not(c.res.header('ETag'), a.res.header('ETag'));
  t.equal(a.res.header('X-Chaos-Etag-Seed'), 'abc');
  const odd = await etag('?seed=a%20b%2Fc');
  t.equal(odd.res.header('X-Chaos-Etag-Seed'), 'a%20b%2Fc', 'the seed is reported percent-encoded');
  // If-None-Match is ignored: even the very tag it would send gets a full 200.
  const conditional = await etag('?seed=abc', { 'If-None-Match': a.res.header('ETag') as string });
  t.equal(conditional.res.status, 200);
  t.same(conditional.body, controlBody);
});

t.test('chaos /etag stable-etag-mutated-body: one ETag, changing bodies', async (t) => {
  const a = await etag('?mode=stable-etag-mutated-body');
  const b = await etag('?mode=stable-etag-mutated-body');
  for (const x of [a, b]) {
    t.equal(x.res.status, 200);
    expectChaosLines(t, x.res, 'headers', '/etag', 'X-Chaos-Etag-Mode', 'stable-etag-mutated-body');
    t.same(x.res.headers('ETag'), [controlTag], 'the control twin’s strong ETag');
    t.equal(x.doc.endpoint, '/etag');
    t.match(x.doc.value, /^[0-9a-f]{16}$/);
    const at = Date.parse(x.doc.updated_at);
    t.ok(at >= Date.UTC(2020, 0, 1) && at < Date.UTC(2030, 0, 1), 'updated_at in the 2020s');
  }
  t.not(a.doc.value, b.doc.value, 'value changes per call');
  t.not(a.doc.updated_at, b.doc.updated_at, 'timestamp changes per call');
  t.notSame(a.body, controlBody);

  const s1 = await etag('?mode=stable-etag-mutated-body&seed=abc');
  const s2 = await etag('?mode=stable-etag-mutated-body&seed=abc');
  const s3 = await etag('?mode=stable-etag-mutated-body&seed=xyz');
  t.same(s1.body, s2.body, 'seed pins the body');
  t.same(s1.doc, { endpoint: '/etag', value: '1f50687417e248d4', updated_at: '2026-10-15T23:31:26.000Z' }, 'golden: seed abc');
  t.notSame(s3.body, s1.body);
  t.same(s3.res.headers('ETag'), [controlTag], 'ETag never moves');
  const replay = await etag(`?mode=stable-etag-mutated-body&seed=${a.res.header('X-Chaos-Etag-Seed') as string}`);
  t.same(replay.body, a.body, 'the reported seed replays the body');
  const conditional = await etag('?mode=stable-etag-mutated-body', { 'If-None-Match': controlTag });
  t.equal(conditional.res.status, 200, 'a matching If-None-Match is ignored: 200 with the changed body');
});

t.test('chaos /etag fixed modes: the canonical body under lying validators; seed ignored', async (t) => {
  const opaque = controlTag.slice(1, -1);
  const cases: [string, [string, string][]][] = [
    ['weak-strong-conflict', [['ETag', controlTag], ['ETag', `W/${controlTag}`]]],
    ['unquoted', [['ETag', opaque]]],
    ['future-last-modified', [['Last-Modified', 'Thu, 01 Jan 2099 00:00:00 GMT']]],
  ];
  for (const [mode, lines] of cases) {
    for (const seed of ['', '&seed=abc', '&seed=other']) {
      const x = await etag(`?mode=${mode}${seed}`, { 'If-None-Match': controlTag });
      const label = `${mode}${seed}`;
      t.equal(x.res.status, 200, `${label}: If-None-Match ignored`);
      expectChaosLines(t, x.res, 'headers', '/etag', 'X-Chaos-Etag-Mode', mode);
      const validators = x.res.headerLines.filter(([name]) => name === 'ETag' || name === 'Last-Modified');
      t.same(validators, lines, `${label}: exact validator lines`);
      t.same(x.body, controlBody, `${label}: canonical body`);
      t.equal(x.res.header('X-Chaos-Etag-Seed'), undefined, `${label}: no seed reported`);
    }
  }
});

t.test('chaos /etag bad input: real 400s', async (t) => {
  realFailure(t, await exchange(chaos, '/etag?mode=strong'), 'mode');
  realFailure(t, await exchange(chaos, `/etag?seed=${'s'.repeat(257)}`), 'seed');
});
