// CORS family (issue 13): /cors, /cors-preflight and /cors-expose on a raw
// socket. Each chaos mode's exact Access-Control lines, and the control twins'
// correct ones (reflected origin, Vary: Origin, agreeing preflight). Then as a
// browser sees it: headless Chromium (Debian's, driven by playwright-core)
// loads a page from a third loopback origin and fetches every chaos and control
// CORS endpoint cross-origin. The chaos modes the Fetch standard refuses must
// be blocked, the control twins never.
import { existsSync } from 'node:fs';
import t from 'tap';
import {
  DISAGREEING_HEADERS, DISAGREEING_METHODS, EXPOSE_LIST, EXPOSE_MODES, EXPOSED_HEADERS, HUGE_MAX_AGE, MISNAMED_EXPOSE_LIST, NEGATIVE_MAX_AGE,
  PREFLIGHT_ALLOW_HEADERS, PREFLIGHT_ALLOW_METHODS, PREFLIGHT_MAX_AGE, PREFLIGHT_MODES, CORS_MODES,
} from '../../shared/content/cors.js';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from '../helpers/raw.js';
import { CHROMIUM, probeTab } from '../helpers/chromium.js';
import { startChaos, startHttp } from '../helpers/servers.js';

const ORIGIN = 'http://app.example:3000';

async function call(port: number, path: string, method = 'GET', headers: Readonly<Record<string, string>> = { Origin: ORIGIN }): Promise<{ res: ParsedResponse; body: string }> {
  const result = await rawExchange(port, get(path, headers, method), { until: completeByLength });
  if (result.end !== 'stopped') throw new Error(`${method} ${path}: no complete response (${result.end})`);
  const res = parseHead(result.data);
  return { res, body: res.rest.subarray(0, Number(res.header('content-length') ?? 0)).toString('utf8') };
}

const preflight = { Origin: ORIGIN, 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'x-probe' };

/** Every Access-Control-* and Vary line, in order, as [name, value]. */
function corsLines(res: ParsedResponse): [string, string][] {
  return res.headerLines.filter(([name]) => /^(access-control-|vary$)/i.test(name)).map(([n, v]) => [n, v]);
}

t.test('chaos /cors: each mode sends exactly its wrong Allow-Origin lines', async (t) => {
  const { port } = await startChaos(t);
  const expected: Record<(typeof CORS_MODES)[number], [string, string][]> = {
    'wildcard-with-credentials': [['Access-Control-Allow-Origin', '*'], ['Access-Control-Allow-Credentials', 'true']],
    'reflect-no-vary': [['Access-Control-Allow-Origin', ORIGIN], ['Access-Control-Allow-Credentials', 'true']],
    'null-origin': [['Access-Control-Allow-Origin', 'null'], ['Access-Control-Allow-Credentials', 'true'], ['Vary', 'Origin']],
    'duplicate-allow-origin': [['Access-Control-Allow-Origin', ORIGIN], ['Access-Control-Allow-Origin', 'https://allowed.example'], ['Vary', 'Origin']],
    'wrong-origin': [['Access-Control-Allow-Origin', 'https://allowed.example'], ['Vary', 'Origin']],
  };
  for (const mode of CORS_MODES) {
    const { res, body } = await call(port, `/cors?mode=${mode}`);
    t.equal(res.status, 200, mode);
    t.same(corsLines(res), expected[mode], `${mode}: the lines`);
    t.equal(res.header('x-chaos-cors-mode'), mode);
    t.same(JSON.parse(body), { endpoint: '/cors', mode, method: 'GET', origin: ORIGIN, data: 'cross-origin payload' });
  }
  const first = await call(port, '/cors?mode=wrong-origin', 'GET', { Origin: 'https://allowed.example' });
  t.equal(first.res.header('access-control-allow-origin'), 'https://other.example', 'wrong-origin never allows the asking origin');
  const bad = await call(port, '/cors?mode=nope');
  t.equal(bad.res.status, 400);
});

t.test('control /cors: the origin reflected with credentials, Vary: Origin always', async (t) => {
  const { port } = await startHttp(t, 'control');
  for (const mode of CORS_MODES) {
    const { res } = await call(port, `/cors?mode=${mode}`);
    t.same(corsLines(res), [['Vary', 'Origin'], ['Access-Control-Allow-Origin', ORIGIN], ['Access-Control-Allow-Credentials', 'true']], mode);
  }
  const anonymous = await call(port, '/cors', 'GET', {});
  t.same(corsLines(anonymous.res), [['Vary', 'Origin']], 'no Origin: no Allow-Origin, still Vary');
  t.equal((await call(port, '/cors?mode=nope')).res.status, 400);
});

t.test('chaos /cors-preflight: preflight and actual response per mode', async (t) => {
  const { port } = await startChaos(t);
  const good: [string, string][] = [
    ['Access-Control-Allow-Origin', ORIGIN], ['Access-Control-Allow-Methods', PREFLIGHT_ALLOW_METHODS],
    ['Access-Control-Allow-Headers', PREFLIGHT_ALLOW_HEADERS], ['Access-Control-Max-Age', PREFLIGHT_MAX_AGE], ['Vary', 'Origin'],
  ];
  const withLine = (name: string, value: string): [string, string][] => good.map(([n, v]) => [n, n === name ? value : v]);
  const allowed: [string, string][] = [['Access-Control-Allow-Origin', ORIGIN], ['Vary', 'Origin']];
  const expected: Record<(typeof PREFLIGHT_MODES)[number], { pre: [string, string][]; actual: [string, string][] }> = {
    'actual-refuses': { pre: good, actual: [] },
    'methods-disagree': { pre: withLine('Access-Control-Allow-Methods', DISAGREEING_METHODS), actual: [...allowed, ['Access-Control-Allow-Methods', PREFLIGHT_ALLOW_METHODS]] },
    'headers-disagree': { pre: withLine('Access-Control-Allow-Headers', DISAGREEING_HEADERS), actual: [...allowed, ['Access-Control-Allow-Headers', PREFLIGHT_ALLOW_HEADERS]] },
    'negative-max-age': { pre: withLine('Access-Control-Max-Age', NEGATIVE_MAX_AGE), actual: allowed },
    'huge-max-age': { pre: withLine('Access-Control-Max-Age', HUGE_MAX_AGE), actual: allowed },
    'bare-200': { pre: [], actual: allowed },
  };
  for (const mode of PREFLIGHT_MODES) {
    const pre = await call(port, `/cors-preflight?mode=${mode}`, 'OPTIONS', preflight);
    t.equal(pre.res.status, mode === 'bare-200' ? 200 : 204, `${mode}: preflight status`);
    if (mode !== 'bare-200') t.equal(pre.res.header('content-length'), undefined, `${mode}: 204 without Content-Length`);
    t.same(corsLines(pre.res), expected[mode].pre, `${mode}: preflight lines`);
    const actual = await call(port, `/cors-preflight?mode=${mode}`, 'PUT', { Origin: ORIGIN, 'X-Probe': '1', 'Content-Length': '0' });
    t.equal(actual.res.status, 200, `${mode}: actual status`);
    t.same(corsLines(actual.res), expected[mode].actual, `${mode}: actual lines`);
    t.equal(JSON.parse(actual.body).method, 'PUT');
  }
  t.equal((await call(port, '/cors-preflight', 'POST', { 'Content-Length': '0' })).res.status, 405, 'POST is not served');
  t.equal((await call(port, '/cors-preflight?mode=nope', 'OPTIONS', preflight)).res.status, 400);
});

t.test('control /cors-preflight: the preflight allows what the response allows, Vary on every key', async (t) => {
  const { port } = await startHttp(t, 'control');
  for (const mode of PREFLIGHT_MODES) {
    const pre = await call(port, `/cors-preflight?mode=${mode}`, 'OPTIONS', preflight);
    t.equal(pre.res.status, 204, mode);
    t.same(corsLines(pre.res), [
      ['Access-Control-Allow-Origin', ORIGIN], ['Access-Control-Allow-Methods', PREFLIGHT_ALLOW_METHODS],
      ['Access-Control-Allow-Headers', PREFLIGHT_ALLOW_HEADERS], ['Access-Control-Max-Age', PREFLIGHT_MAX_AGE],
      ['Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers'],
    ], `${mode}: preflight`);
    const actual = await call(port, `/cors-preflight?mode=${mode}`, 'PUT', { Origin: ORIGIN, 'X-Probe': '1', 'Content-Length': '0' });
    t.same(corsLines(actual.res), [['Vary', 'Origin'], ['Access-Control-Allow-Origin', ORIGIN]], `${mode}: actual`);
  }
  const plain = await call(port, '/cors-preflight', 'OPTIONS', {});
  t.equal(plain.res.header('allow'), 'GET, HEAD, PUT, OPTIONS', 'an OPTIONS that is no preflight gets Allow');
  t.equal(plain.res.header('access-control-allow-origin'), undefined);
});

t.test('chaos and control /cors-expose: the custom headers are sent; only control names them in the expose list', async (t) => {
  const { port: chaos } = await startChaos(t);
  const { port: control } = await startHttp(t, 'control');
  const lists: Record<(typeof EXPOSE_MODES)[number], string | undefined> = {
    omitted: undefined, misnamed: MISNAMED_EXPOSE_LIST, 'wildcard-with-credentials': '*',
  };
  for (const mode of EXPOSE_MODES) {
    const lie = await call(chaos, `/cors-expose?mode=${mode}`);
    t.equal(lie.res.header('access-control-allow-origin'), ORIGIN, `${mode}: the origin itself is allowed`);
    t.equal(lie.res.header('access-control-allow-credentials'), 'true');
    t.same(lie.res.headers('access-control-expose-headers'), lists[mode] === undefined ? [] : [lists[mode]], `${mode}: the expose list`);
    t.equal(lie.res.header('x-request-id'), 'cors-expose-0001');
    t.equal(lie.res.header('x-total-count'), '42');
    const twin = await call(control, `/cors-expose?mode=${mode}`);
    t.same(twin.res.headers('access-control-expose-headers'), [EXPOSE_LIST], `${mode}: control names them`);
    t.equal(twin.res.header('x-request-id'), 'cors-expose-0001');
  }
  t.equal((await call(chaos, '/cors-expose?mode=nope')).res.status, 400);
});

// ---------------------------------------------------------------- in a browser


interface Probe {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly credentials: 'include' | 'omit';
}

/** What the page saw: blocked (fetch rejected) or the status and the custom headers it could read. */
type Seen = { readonly blocked: true } | { readonly blocked: false; readonly status: number; readonly readable: Readonly<Record<string, string | null>> };

t.test('headless Chromium blocks the chaos CORS lies and accepts the control twins', async (t) => {
  t.ok(existsSync(CHROMIUM), `${CHROMIUM} is installed (make tools installs the chromium package)`);
  if (!existsSync(CHROMIUM)) return;
  const { port: chaos } = await startChaos(t);
  const { port: control } = await startHttp(t, 'control');
  // The page's origin: a third port, so both hosts are cross-origin to it.
  const tab = await probeTab(t, 'cors probe');

  const names = EXPOSED_HEADERS.map(([name]) => name);
  const probe = (p: Probe): Promise<Seen> =>
    tab.evaluate(async ({ p, names }) => {
      try {
        const res = await fetch(p.url, { method: p.method, headers: p.headers, credentials: p.credentials });
        await res.text();
        return { blocked: false as const, status: res.status, readable: Object.fromEntries(names.map((n) => [n, res.headers.get(n)])) };
      } catch {
        return { blocked: true as const };
      }
    }, { p, names });

  const get = (port: number, path: string): Probe => ({ url: `http://127.0.0.1:${port}${path}`, method: 'GET', headers: {}, credentials: 'include' });
  // PUT with a non-safelisted header: the browser must send a preflight first.
  const put = (port: number, path: string): Probe => ({ url: `http://127.0.0.1:${port}${path}`, method: 'PUT', headers: { 'X-Probe': '1' }, credentials: 'omit' });

  const corsBlocked: Record<(typeof CORS_MODES)[number], boolean> = {
    'wildcard-with-credentials': true,
    // The browser cannot see a missing Vary: the lie is for caches.
    'reflect-no-vary': false,
    'null-origin': true,
    'duplicate-allow-origin': true,
    'wrong-origin': true,
  };
  for (const mode of CORS_MODES) {
    t.equal((await probe(get(chaos, `/cors?mode=${mode}`))).blocked, corsBlocked[mode], `chaos /cors ${mode}`);
    t.same(await probe(get(control, `/cors?mode=${mode}`)), { blocked: false, status: 200, readable: { 'X-Request-Id': null, 'X-Total-Count': null } }, `control /cors ${mode}`);
  }

  const preflightBlocked: Record<(typeof PREFLIGHT_MODES)[number], boolean> = {
    'actual-refuses': true,
    'methods-disagree': true,
    'headers-disagree': true,
    // Absurd caching is not refused: Chromium ignores an invalid Max-Age and caps the huge one.
    'negative-max-age': false,
    'huge-max-age': false,
    'bare-200': true,
  };
  for (const mode of PREFLIGHT_MODES) {
    t.equal((await probe(put(chaos, `/cors-preflight?mode=${mode}`))).blocked, preflightBlocked[mode], `chaos /cors-preflight ${mode}`);
    t.match(await probe(put(control, `/cors-preflight?mode=${mode}`)), { blocked: false, status: 200 }, `control /cors-preflight ${mode}`);
  }

  for (const mode of EXPOSE_MODES) {
    t.same(await probe(get(chaos, `/cors-expose?mode=${mode}`)), { blocked: false, status: 200, readable: { 'X-Request-Id': null, 'X-Total-Count': null } }, `chaos /cors-expose ${mode}: the script cannot read them`);
    t.same(await probe(get(control, `/cors-expose?mode=${mode}`)), { blocked: false, status: 200, readable: Object.fromEntries(EXPOSED_HEADERS) }, `control /cors-expose ${mode}: the script reads them`);
  }
});
