// Header chaos (SPEC §4.1, §7): /wrong-content-type, /cache-confused and
// /header-flood and their control twins (/matched-content-type,
// /cache-coherent, /header-flood). Chaos is read on a raw socket; the shared
// case list runs against both hosts; the headline lies are also checked
// through curl.
import t from 'tap';
import { counterpartUrl } from '../../../shared/catalog/catalog.js';
import { CACHE_CONTROL, CACHE_MODES, CONTENT_TYPE_MODES, type ContentTypeMode } from '../../../shared/content/format.js';
import { chaosEndpoints } from '../../../services/chaos/endpoints/index.js';
import { controlEndpoints } from '../../../services/control/endpoints/index.js';
import { assertParamError, call, contradicts, curl, curlHeads, labelFormat, parses, sharedCases, sniff } from '../../helpers/format-cases.js';
import { get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';

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
