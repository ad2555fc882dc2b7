// Format and header chaos (SPEC §4.1, §7): /json, /wrong-content-type,
// /cache-confused, /header-flood, /redirect-chain, /method and their control
// twins. Chaos is read on a raw socket; one shared case list runs against both
// hosts; the headline lies are also checked through curl.
import { execFile } from 'node:child_process';
import t from 'tap';
import { counterpartUrl } from '../../shared/catalog/catalog.js';
import { ALLOW_CONTROL, ALLOW_SIX, METHOD_MODES } from '../../shared/content/method.js';
import { JSON_MODES, type JsonMode } from '../../shared/content/payload/index.js';
import { CACHE_CONTROL, CACHE_MODES, CONTENT_TYPE_MODES, type ContentTypeMode } from '../../shared/content/headers.js';
import { chaosEndpoints } from '../../services/chaos/endpoints/index.js';
import { controlEndpoints } from '../../services/control/endpoints/index.js';
import { completeByLength, get, parseHead, rawExchange, splitResponses, type ParsedResponse } from '../helpers/raw.js';
import { methodExpectation } from '../helpers/method-table.js';
import { startChaos, startHttp, testConfig } from '../helpers/servers.js';

interface Reply {
  readonly res: ParsedResponse;
  readonly body: Buffer;
  /** The head exactly as received, CRLFCRLF included. */
  readonly headText: string;
}

const SIX = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** One request on a fresh connection; the reply is cut at its Content-Length (0 when absent). */
async function call(port: number, path: string, method = 'GET', requestBody = ''): Promise<Reply> {
  const result = await rawExchange(port, request(path, method, requestBody), { until: completeByLength });
  if (result.end !== 'stopped') throw new Error(`${method} ${path}: no complete response (${result.end})`);
  const res = parseHead(result.data);
  const length = Number(res.header('content-length') ?? 0);
  return { res, body: res.rest.subarray(0, length), headText: result.data.toString('latin1', 0, res.headLength) };
}

function request(path: string, method: string, body: string, extra: Readonly<Record<string, string>> = {}): string {
  const headers: Record<string, string> = { ...extra };
  if (body !== '') headers['Content-Length'] = String(Buffer.byteLength(body));
  return get(path, headers, method) + body;
}

function parses(body: Buffer): boolean {
  try {
    JSON.parse(body.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

function chaosLines(res: ParsedResponse): string[] {
  return res.headerLines.filter(([name]) => name.toLowerCase().startsWith('x-chaos-')).map(([name]) => name);
}

/** A real failure: the spec's 400 shape and no X-Chaos-* line at all. */
function assertParamError(tt: Tap, reply: Reply, endpoint: string, param: string, requested: string): void {
  tt.equal(reply.res.status, 400, 'status 400');
  tt.same(chaosLines(reply.res), [], 'no X-Chaos-* header on a real failure');
  const body = JSON.parse(reply.body.toString('utf8')) as Record<string, unknown>;
  tt.match(body, { endpoint, error: 'invalid_parameter', requested, param, reason: String });
}

/** The assertions a subtest lends a helper. */
type Tap = Pick<typeof t, 'equal' | 'same' | 'match'>;

t.test('GET /json: every mode is application/json, status 200, and never valid JSON', async (t) => {
  const { port } = await startChaos(t);
  const { port: controlPort } = await startHttp(t, 'control');
  const repairs: Record<string, (text: string) => string> = {
    'unquoted-key': (s) => s.replace(',items:', ',"items":'),
    'trailing-comma': (s) => s.replace('},]', '}]'),
    'missing-brace': (s) => `${s.trimEnd()}}`,
    'trailing-garbage': (s) => s.slice(0, s.indexOf('}\n') + 2),
  };
  const defectsOf: Record<JsonMode, string[]> = {
    all: ['unquoted-key', 'trailing-comma', 'missing-brace'],
    'missing-brace': ['missing-brace'],
    'unquoted-key': ['unquoted-key'],
    'trailing-comma': ['trailing-comma'],
    'trailing-garbage': ['trailing-garbage'],
  };
  for (const mode of JSON_MODES) {
    const { res, body, headText } = await call(port, `/json?mode=${mode}`);
    t.equal(res.status, 200, `${mode}: 200`);
    t.same(res.headers('content-type'), ['application/json'], `${mode}: one Content-Type line, application/json`);
    t.equal(res.rest.length, body.length, `${mode}: Content-Length is accurate (the lie is in the body only)`);
    t.equal(res.header('x-chaos-payload'), 'json-chaos');
    t.equal(res.header('x-chaos-json-mode'), mode);
    t.equal(res.header('x-chaos-category'), 'payload');
    t.equal(res.header('x-chaos-endpoint'), '/json');
    t.match(headText, /^HTTP\/1\.1 200 OK\r\n/);
    const text = body.toString('utf8');
    t.throws(() => JSON.parse(text), SyntaxError, `${mode}: JSON.parse throws`);
    // Exactly the documented defects: repairing them (and only them) yields the control document.
    const defects = defectsOf[mode];
    const repaired = defects.reduce((s, d) => (repairs[d] as (s: string) => string)(s), text);
    const doc = JSON.parse(repaired) as Record<string, unknown>;
    t.same(doc.defects, defects, `${mode}: the payload names its defects`);
    const control = await call(controlPort, `/json?mode=${mode}`);
    const twin = JSON.parse(control.body.toString('utf8')) as Record<string, unknown>;
    t.same({ ...doc, valid: true, defects: [] }, twin, `${mode}: repaired, it is the control document`);
    for (const d of defects) {
      // Every single defect on its own breaks the text.
      const others = defects.filter((x) => x !== d);
      const partly = others.reduce((s, o) => (repairs[o] as (s: string) => string)(s), text);
      t.throws(() => JSON.parse(partly), SyntaxError, `${mode}: ${d} alone still breaks it`);
    }
  }
  const byDefault = await call(port, '/json');
  t.equal(byDefault.res.header('x-chaos-json-mode'), 'all', 'default mode is all');
  t.ok(byDefault.body.equals((await call(port, '/json?mode=all')).body), 'same bytes every time');
  assertParamError(t, await call(port, '/json?mode=valid'), '/json', 'mode', 'valid');
  assertParamError(t, await call(controlPort, '/json?mode=valid'), '/json', 'mode', 'valid');
});

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

t.test('GET /redirect-chain: 302 with an exact relative Location until n is 0, then 200 resolved', async (t) => {
  const { port } = await startChaos(t);
  for (let n = 1; n <= 20; n++) {
    const { res, body } = await call(port, `/redirect-chain?n=${n}`);
    t.equal(res.status, 302, `n=${n}: 302`);
    t.same(res.headers('location'), [`/redirect-chain?n=${n - 1}`], `n=${n}: Location is exactly /redirect-chain?n=${n - 1}`);
    t.equal(res.header('x-chaos-redirect-remaining'), String(n));
    t.ok(parses(body), 'hop body is JSON');
  }
  const final = await call(port, '/redirect-chain?n=0');
  t.equal(final.res.status, 200);
  t.equal(final.res.header('x-chaos-redirect-chain'), 'resolved');
  t.same(final.res.headers('location'), [], 'no Location at the end');
  t.same(JSON.parse(final.body.toString('utf8')), { endpoint: '/redirect-chain', message: 'redirect chain resolved', hops_completed: true });

  const byDefault = await call(port, '/redirect-chain');
  t.equal(byDefault.res.header('location'), '/redirect-chain?n=2', 'default n is 3');

  const high = await call(port, '/redirect-chain?n=21');
  t.equal(high.res.header('location'), '/redirect-chain?n=19', 'n above 20 is clamped to 20');
  t.equal(high.res.header('x-chaos-clamped'), 'n=20');
  const low = await call(port, '/redirect-chain?n=-1');
  t.equal(low.res.status, 200, 'n below 0 is clamped to 0');
  t.equal(low.res.header('x-chaos-clamped'), 'n=0');
  t.equal(low.res.header('x-chaos-redirect-chain'), 'resolved');
  assertParamError(t, await call(port, '/redirect-chain?n=three'), '/redirect-chain', 'n', 'three');

  // Following by hand from the top: 20 hops, then 200 (bounded).
  let path = '/redirect-chain?n=20';
  let hops = 0;
  for (; hops < 25; hops++) {
    const { res } = await call(port, path);
    if (res.status !== 302) break;
    path = res.header('location') ?? '';
  }
  t.equal(hops, 20, 'twenty hops from n=20');
  t.equal(path, '/redirect-chain?n=0');
});

/** Six methods pipelined on one connection (bodies on the writes), the last one closing. */
async function methodRound(port: number, query: string): Promise<Map<string, { res: ParsedResponse; body: Buffer }>> {
  const requests = SIX.map((method, i) =>
    request(`/method${query}`, method, ['POST', 'PUT', 'PATCH'].includes(method) ? `{"probe":${i}}` : '', i === SIX.length - 1 ? { Connection: 'close' } : {}),
  );
  const result = await rawExchange(port, requests.join(''));
  if (result.end !== 'fin') throw new Error(`pipelined /method${query}: the connection did not close (${result.end})`);
  // One response per request: the request bodies were read and discarded, not taken for requests.
  const replies = splitResponses(result.data);
  if (replies.length !== SIX.length) throw new Error(`pipelined /method${query}: ${replies.length} responses for ${SIX.length} requests`);
  const out = new Map<string, { res: ParsedResponse; body: Buffer }>();
  replies.forEach(({ response, body }, i) => out.set(SIX[i] as string, { res: response, body }));
  return out;
}

t.test('/method: GET always 200; other methods per mode, exactly as the table says', async (t) => {
  const { port } = await startChaos(t);
  for (const mode of METHOD_MODES) {
    const replies = await methodRound(port, `?mode=${mode}`);
    for (const method of SIX) {
      const reply = replies.get(method);
      const want = methodExpectation(mode, method);
      t.ok(reply, `${mode} ${method}: answered`);
      if (!reply) continue;
      const { res, body } = reply;
      const label = `${mode} ${method}`;
      t.equal(res.status, want.status, `${label}: ${want.status}`);
      if (want.allow === null) t.same(res.headers('allow'), [], `${label}: no Allow line`);
      else t.same(res.headers('allow'), [want.allow], `${label}: Allow: ${want.allow}`);
      t.equal(res.header('x-chaos-method-mode'), mode);
      t.equal(res.header('x-chaos-request-method'), method);
      t.equal(res.header('x-chaos-category'), 'method');
      if (want.body === 'none') {
        t.same(res.headers('content-length'), [], `${label}: 204 has no Content-Length`);
        t.same(res.headers('content-type'), [], `${label}: 204 has no Content-Type`);
      } else if (want.body === 'empty') {
        t.equal(res.header('content-length'), '0', `${label}: empty body`);
      } else {
        t.equal(res.header('content-type'), 'application/json');
        const doc = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
        t.match(doc, { endpoint: '/method', mode, method }, `${label}: JSON names mode and method`);
      }
    }
    // The lie, stated as the contradiction a client sees.
    const post = replies.get('POST')?.res;
    const options = replies.get('OPTIONS')?.res;
    if (mode === 'lying-allow') t.ok(post?.header('allow')?.split(', ').includes('POST'), 'lying-allow: refuses POST while allowing it');
    if (mode === 'options-mismatch') {
      t.ok(options?.header('allow')?.split(', ').includes('POST'), 'options-mismatch: OPTIONS advertises POST');
      t.equal(post?.status, 405, 'options-mismatch: …and POST is refused');
    }
  }
  const defaultPost = await call(port, '/method', 'POST', 'x=1');
  t.equal(defaultPost.res.header('x-chaos-method-mode'), 'lying-allow', 'default mode is lying-allow');
  t.equal(defaultPost.res.header('allow'), ALLOW_SIX);
  const get200 = await call(port, '/method?mode=405-without-allow');
  t.match(JSON.parse(get200.body.toString('utf8')), { endpoint: '/method', method: 'GET', handled: ['GET', 'HEAD'], other_methods: String });
  const getDefault = await call(port, '/method');
  const head = await rawExchange(port, get('/method', { Connection: 'close' }, 'HEAD'));
  const headRes = parseHead(head.data);
  t.equal(headRes.status, 200, 'HEAD is answered as GET');
  t.equal(headRes.header('content-length'), getDefault.res.header('content-length'), 'HEAD: the GET Content-Length');
  t.same(headRes.headers('allow'), [], 'HEAD: no Allow');
  t.equal(headRes.rest.length, 0, 'HEAD has no body');
  assertParamError(t, await call(port, '/method?mode=honest'), '/method', 'mode', 'honest');
  assertParamError(t, await call(port, '/method?mode=honest', 'DELETE'), '/method', 'mode', 'honest');
});

// ---------------------------------------------------------------- shared case list

interface Case {
  readonly name: string;
  readonly method?: string;
  readonly chaos: string;
  readonly control: string;
  /** True when the reply shows the documented lie: must hold on chaos, must not on control. */
  readonly lies?: (r: Reply) => boolean;
  /** Both hosts give the same status and Location (cases without a lie). */
  readonly same?: boolean;
}

function sniff(body: Buffer): string {
  const text = body.toString('utf8');
  if (text.startsWith('<?xml')) return 'xml';
  if (/^<!DOCTYPE html>/i.test(text)) return 'html';
  if (parses(body)) return 'json';
  return 'unknown';
}

function labelFormat(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const media = (contentType.split(';')[0] as string).trim().toLowerCase();
  if (media === 'application/json' || media.endsWith('+json')) return 'json';
  if (media === 'application/xml' || media === 'text/xml') return 'xml';
  if (media === 'text/html') return 'html';
  return media;
}

/** Cache-Control directives that cannot all hold. */
function contradicts(value: string | undefined): boolean {
  if (value === undefined) return false;
  const d = new Set(value.split(',').map((s) => (s.trim().split('=')[0] as string).toLowerCase()));
  return (
    (d.has('no-store') && (d.has('max-age') || d.has('s-maxage') || d.has('immutable'))) ||
    (d.has('no-cache') && d.has('immutable')) ||
    (d.has('private') && (d.has('s-maxage') || d.has('public')))
  );
}

/** The truthful /method behaviour: what control does and chaos never fully does. */
function truthfulMethod(method: string, r: Reply): boolean {
  if (method === 'GET') return r.res.status === 200;
  if (method === 'OPTIONS') return r.res.status === 204 && r.res.header('allow') === ALLOW_CONTROL;
  return r.res.status === 405 && r.res.header('allow') === ALLOW_CONTROL;
}

const CASES: Case[] = [
  ...JSON_MODES.map((mode): Case => ({
    name: `json ${mode}`,
    chaos: `/json?mode=${mode}`,
    control: `/json?mode=${mode}`,
    lies: (r) => labelFormat(r.res.header('content-type')) === 'json' && !parses(r.body),
  })),
  ...CONTENT_TYPE_MODES.map((type): Case => ({
    name: `content type ${type}`,
    chaos: `/wrong-content-type?type=${type}`,
    control: `/matched-content-type?type=${type}`,
    lies: (r) => labelFormat(r.res.header('content-type')) !== sniff(r.body),
  })),
  ...CACHE_MODES.map((mode): Case => ({
    name: `cache ${mode}`,
    chaos: `/cache-confused?mode=${mode}`,
    control: `/cache-coherent?mode=${mode}`,
    lies: (r) => contradicts(r.res.header('cache-control')),
  })),
  ...[1, 20, 100].map((n): Case => ({
    name: `header flood n=${n}`,
    chaos: `/header-flood?n=${n}`,
    control: `/header-flood?n=${n}`,
    lies: (r) => r.res.headerLines.some(([name]) => /^x-chaos-header-\d{3}$/i.test(name)),
  })),
  ...[0, 1, 3, 20].map((n): Case => ({
    name: `redirect chain n=${n}`,
    chaos: `/redirect-chain?n=${n}`,
    control: `/redirect-chain?n=${n}`,
    same: true,
  })),
  ...METHOD_MODES.flatMap((mode) =>
    SIX.map((method): Case => ({
      name: `method ${mode} ${method}`,
      method,
      chaos: `/method?mode=${mode}`,
      control: `/method?mode=${mode}`,
      // options-mismatch refuses the other methods truthfully: its lie is in OPTIONS alone.
      ...(method === 'GET' || (mode === 'options-mismatch' && method !== 'OPTIONS')
        ? { same: true }
        : { lies: (r: Reply) => !truthfulMethod(method, r) }),
    })),
  ),
];

t.test('shared cases: the same paths answer on both hosts; chaos lies, control is well-formed', async (t) => {
  const { port: chaosPort } = await startChaos(t);
  const { port: controlPort } = await startHttp(t, 'control');
  const base = testConfig().urls.base;
  for (const c of CASES) {
    const method = c.method ?? 'GET';
    const body = ['POST', 'PUT', 'PATCH'].includes(method) ? 'a=1' : '';
    const chaos = await call(chaosPort, c.chaos, method, body);
    const control = await call(controlPort, c.control, method, body);
    for (const [host, r] of [['chaos', chaos], ['control', control]] as const) {
      t.ok(r.res.status !== 404 && r.res.status < 500, `${c.name} (${host}): answered, ${r.res.status}`);
    }
    // Chaos says it is chaos; control says it is the twin, and names it.
    t.ok(chaos.res.header('x-chaos-category') && chaos.res.header('x-chaos-endpoint'), `${c.name}: chaos carries X-Chaos-Category/Endpoint`);
    t.equal(control.res.header('x-chaos-origin'), 'control', `${c.name}: control carries X-Chaos-Origin`);
    const query = c.control.includes('?') ? c.control.slice(c.control.indexOf('?')) : '';
    t.equal(control.res.header('x-chaos-counterpart'), `${base}${c.chaos.split('?')[0]}${query}`, `${c.name}: X-Chaos-Counterpart names the chaos twin`);

    // Control is always well-formed.
    const ct = control.res.headers('content-type');
    if (control.body.length > 0) {
      t.equal(ct.length, 1, `${c.name} (control): one Content-Type`);
      t.equal(labelFormat(ct[0]), sniff(control.body), `${c.name} (control): the label matches the body`);
    }
    if (labelFormat(ct[0]) === 'json') t.ok(parses(control.body), `${c.name} (control): valid JSON`);
    const cacheControl = control.res.headers('cache-control');
    t.ok(cacheControl.length <= 1 && !contradicts(cacheControl[0]), `${c.name} (control): at most one, sensible Cache-Control`);
    if (control.res.status === 405) t.equal(control.res.header('allow'), ALLOW_CONTROL, `${c.name} (control): 405 carries the true Allow`);
    for (const allow of control.res.headers('allow')) t.equal(allow, ALLOW_CONTROL, `${c.name} (control): Allow is true`);

    if (c.lies) {
      t.ok(c.lies(chaos), `${c.name}: chaos shows the lie`);
      t.notOk(c.lies(control), `${c.name}: control does not`);
    }
    if (c.same) {
      t.equal(control.res.status, chaos.res.status, `${c.name}: same status`);
      t.equal(control.res.header('location'), chaos.res.header('location'), `${c.name}: same Location`);
    }
  }
});

t.test('control twins: exact well-formed answers and the same parameter rules', async (t) => {
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

  const hop = await call(port, '/redirect-chain?n=2');
  t.equal(hop.res.status, 302);
  t.equal(hop.res.header('location'), '/redirect-chain?n=1');
  const end = await call(port, '/redirect-chain?n=0');
  t.equal(end.res.status, 200);
  t.same(JSON.parse(end.body.toString('utf8')), { endpoint: '/redirect-chain', message: 'redirect chain resolved', hops_completed: true });

  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    const r = await call(port, '/method', method, method === 'DELETE' ? '' : 'x');
    t.equal(r.res.status, 405, `${method}: 405`);
    t.same(r.res.headers('allow'), ['GET, HEAD, OPTIONS'], `${method}: Allow is the truth, GET, HEAD, OPTIONS`);
  }
  const trace = await call(port, '/method', 'TRACE');
  t.equal(trace.res.status, 405, 'a method outside the six: the router answers');
  t.same(trace.res.headers('allow'), ['GET, HEAD, OPTIONS'], 'with the same true Allow');
  const options = await call(port, '/method', 'OPTIONS');
  t.equal(options.res.status, 204);
  t.same(options.res.headers('allow'), ['GET, HEAD, OPTIONS'], 'OPTIONS: the same true Allow');
  t.same(options.res.headers('content-length'), [], 'OPTIONS 204: no Content-Length');

  assertParamError(t, await call(port, '/cache-coherent?mode=x'), '/cache-coherent', 'mode', 'x');
  assertParamError(t, await call(port, '/matched-content-type?type=x'), '/matched-content-type', 'type', 'x');
  assertParamError(t, await call(port, '/redirect-chain?n=x'), '/redirect-chain', 'n', 'x');
  assertParamError(t, await call(port, '/header-flood?n=1.5'), '/header-flood', 'n', '1.5');
  assertParamError(t, await call(port, '/method?mode=x', 'POST', 'y'), '/method', 'mode', 'x');
});

// ---------------------------------------------------------------- curl

function curl(args: readonly string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-s', '--max-time', '10', ...args], { encoding: 'latin1', timeout: 15_000 }, (error, stdout) => {
      if (error && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      resolve({ code: error ? Number(error.code) : 0, stdout });
    });
  });
}

function curlHeads(stdout: string): string[] {
  // Each head keeps its last line's CRLF, so every header line ends in \r\n.
  return stdout.split('\r\n\r\n').filter((part) => part.startsWith('HTTP/')).map((head) => `${head}\r\n`);
}

t.test('curl sees the headline lies', async (t) => {
  const { port } = await startChaos(t);
  const { port: controlPort } = await startHttp(t, 'control');
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

  const json = await curl([url('/json')]);
  t.throws(() => JSON.parse(json.stdout), SyntaxError, 'curl /json: the body is not JSON');

  const flood = await curl(['-i', url('/header-flood?n=100')]);
  t.equal((flood.stdout.match(/\r\nX-Chaos-Header-\d{3}: /g) ?? []).length, 100, 'curl -i: 100 synthetic headers');

  const post = await curl(['-i', '-X', 'POST', '--data', 'a=1', url('/method')]);
  const postHead = curlHeads(post.stdout)[0] ?? '';
  t.match(postHead, /^HTTP\/1\.1 405 /, 'curl -X POST: 405');
  t.match(postHead, /\r\nAllow: GET, POST, PUT, PATCH, DELETE, OPTIONS\r\n/, '…with an Allow that claims POST');
  const noAllow = await curl(['-i', '-X', 'DELETE', url('/method?mode=405-without-allow')]);
  t.notMatch(curlHeads(noAllow.stdout)[0] ?? '', /\r\nallow:/i, '405-without-allow: no Allow line');
  const silent = await curl(['-s', '-o', '/dev/null', '-w', '%{http_code} %{size_download}', '-X', 'PUT', '--data', 'x', url('/method?mode=silent-on-wrong-method')]);
  t.equal(silent.stdout, '200 0', 'silent-on-wrong-method: 200, empty body');

  for (const [host, p] of [['chaos', port], ['control', controlPort]] as const) {
    const follow = await curl(['-L', '-o', '/dev/null', '-w', '%{http_code} %{num_redirects} %{url_effective}', url('/redirect-chain', p)]);
    t.equal(follow.stdout, `200 3 ${url('/redirect-chain?n=0', p)}`, `${host}: curl -L follows 3 hops to the final 200`);
  }
  const long = await curl(['-L', '-o', '/dev/null', '-w', '%{http_code} %{num_redirects}', url('/redirect-chain?n=20')]);
  t.equal(long.stdout, '200 20', 'curl -L follows the longest chain, 20 hops');
  const limited = await curl(['-L', '--max-redirs', '2', '-o', '/dev/null', url('/redirect-chain?n=5')]);
  t.equal(limited.code, 47, 'a client limited to 2 redirects gives up on a 5-hop chain (curl exit 47)');
});
