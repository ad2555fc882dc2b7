// The catalog on every host: `/` answers 200; every unknown path falls
// through to it with 404 and the same body; HTML for browsers, JSON on ask.
import t from 'tap';
import { CATALOG_CSP, CATALOG_CSS_PATH, CATALOG_JS_PATH } from '../../../shared/catalog/catalog-assets.js';
import { entryId } from '../../../shared/catalog/catalog-page.js';
import { buildCatalog, wantsJson } from '../../../shared/catalog/catalog.js';
import { CATEGORIES, type Registry } from '../../../shared/registry/registry.js';
import { completeByLength, get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';
import { serviceRegistries } from '../../../services/registries.js';

const registries = serviceRegistries();

for (const host of ['chaos', 'control', 'bots'] as const) {
  t.test(`${host} host`, async (t) => {
    const withLimit = testConfig({ RATE_LIMIT_GENERAL: '60' });
    const port = host === 'chaos' ? (await startChaos(t, { config: withLimit })).port : (await startHttp(t, host, withLimit)).port;
    const ask = async (path: string, headers: Record<string, string> = {}, method = 'GET') =>
      parseHead((await rawExchange(port, get(path, headers, method), { until: completeByLength })).data);
    const registry = registries[host] as Registry<unknown>;
    const expected = buildCatalog(registry, withLimit);

    const json = await ask('/', { Accept: 'application/json' });
    t.equal(json.status, 200);
    t.equal(json.header('content-type'), 'application/json');
    const catalog = JSON.parse(json.rest.toString());
    t.same(catalog, JSON.parse(JSON.stringify(expected)), 'the catalog is generated from the registry');
    t.equal(catalog.endpoint_count, registry.endpoints.length);
    const usedCategories = new Set(registry.endpoints.map((e) => e.category));
    t.equal(catalog.category_count, usedCategories.size);
    t.match(catalog.banner, new RegExp(`^${registry.endpoints.length} endpoints in ${usedCategories.size} categories`));
    t.match(catalog.banner, /60 requests per minute per IP/);
    t.same(catalog.rate_limit, { requests: 60, per_seconds: 60 });
    for (const group of catalog.categories) t.ok((CATEGORIES[host] as readonly string[]).includes(group.name), `known category ${group.name}`);
    const listed = catalog.categories.flatMap((g: { endpoints: { path: string }[] }) => g.endpoints.map((e) => e.path));
    t.same(listed.sort(), registry.endpoints.map((e) => e.path).sort(), 'every endpoint listed once');

    const html = await ask('/', { Accept: 'text/html,application/xhtml+xml,application/json;q=0.9' });
    t.equal(html.status, 200);
    t.equal(html.header('content-type'), 'text/html; charset=utf-8');
    t.equal(html.header('content-security-policy'), CATALOG_CSP, 'a strict Content-Security-Policy');
    t.equal(json.header('content-security-policy'), undefined, 'none on the JSON');
    const page = html.rest.toString();
    t.match(page, /^<!doctype html>/);
    t.match(page, expected.banner);
    t.notMatch(page, /<script>|<style|\sstyle="|\son[a-z]+="/, 'no inline script or style (the CSP allows none)');
    const attr = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    for (const e of expected.categories.flatMap((g) => g.endpoints)) {
      const target = e.example.url.slice(expected.url.length);
      t.ok(page.includes(`id="${entryId(host, e.id)}"`), `${e.path} has its card`);
      if (e.example.method === 'GET') {
        t.ok(page.includes(`href="${attr(target)}"`), `HTML links ${e.path} by its example ${target}`);
        t.ok(page.includes(`curl -v '${e.example.url}'`.replace(/&/g, '&#38;')), `${e.path}: a curl line`);
      } else {
        t.notOk(page.includes(`href="${attr(e.path)}"`), `${e.methods.join(', ')} ${e.path} is not linked`);
        t.ok(page.includes(`curl -v -X ${e.example.method} -H 'Content-Type: ${e.example.content_type}' --data-raw '`), `${e.path}: a curl line with its method and body`);
      }
      if (e.path.includes('{')) t.notOk(page.includes(`href="${attr(e.path)}"`), `a template is shown, not linked: ${e.path}`);
    }
    t.notOk(/<p class="sum">(?:(?!<\/p>).)*`/.test(page), 'summaries show code, not backticks');
    for (const src of [CATALOG_CSS_PATH, CATALOG_JS_PATH]) {
      t.ok(page.includes(`${src}?v=`), `the page loads ${src}`);
      const asset = await ask(src);
      t.equal(asset.status, 200, `${src} is served`);
      t.equal(Number(asset.header('content-length')), asset.rest.length);
      t.match(asset.header('content-type'), src.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      t.same(asset.headerLines.filter(([n]) => /^x-chaos-/i.test(n)), [], 'an asset is not chaos');
      const post = await ask(src, { 'Content-Length': '0' }, 'POST');
      t.equal(post.status, 405, `${src}: GET and HEAD only`);
      t.equal(post.header('allow'), 'GET, HEAD');
      t.equal(registry.match(src), undefined, `no ${host} endpoint sits at ${src}`);
    }

    const curlish = await ask('/', { Accept: '*/*' });
    t.equal(curlish.header('content-type'), 'text/html; charset=utf-8', 'curl gets HTML');

    for (const path of ['/no/such/path', '/favicon.ico', '/%ff%fe', '/' + 'x'.repeat(3000)]) {
      const missing = await ask(path, { Accept: 'application/json' });
      t.equal(missing.status, 404, `${path.slice(0, 30)} → 404`);
      const { error, path: shown, suggestions, ...rest } = JSON.parse(missing.rest.toString()) as Record<string, unknown>;
      t.same(rest, catalog, 'with the same catalog');
      t.equal(error, 'not_found', 'saying first that nothing is there');
      t.equal(shown, path.length > 80 ? `${path.slice(0, 80)}…` : path, 'the path as sent');
      t.ok(Array.isArray(suggestions));
      t.same(missing.headerLines.filter(([n]) => /^x-chaos-/i.test(n)), [], 'the catalog is not chaos');
    }
    const post = await ask('/nothing-here', { 'Content-Length': '0' }, 'POST');
    t.equal(post.status, 404, 'any method falls through');
    const head = await rawExchange(port, get('/', {}, 'HEAD'), { timeoutMs: 1000, until: (d) => d.includes('\r\n\r\n') });
    const headHead = parseHead(head.data);
    t.equal(headHead.status, 200);
    t.equal(headHead.rest.length, 0, 'HEAD: no body');
  });
}

t.test('a miss says so first, with the nearest paths', async (t) => {
  const { port } = await startChaos(t);
  const json = parseHead((await rawExchange(port, get('/trunacte?at=5', { Accept: 'application/json' }), { until: completeByLength })).data);
  t.equal(json.status, 404);
  const doc = JSON.parse(json.rest.toString()) as { error: string; path: string; suggestions: string[] };
  t.equal(doc.error, 'not_found');
  t.equal(doc.path, '/trunacte');
  t.equal(doc.suggestions[0], '/truncate', 'the nearest first');
  const html = parseHead((await rawExchange(port, get('/sloww'), { until: completeByLength })).data);
  t.equal(html.status, 404);
  t.equal(html.header('content-security-policy'), CATALOG_CSP, 'the miss page carries the CSP too');
  t.match(html.rest.toString(), /<body>\n<p class="miss">No endpoint at <code>\/sloww<\/code> on this host\. Did you mean <a href="\/slow"><code>\/slow<\/code><\/a>/);
  const far = JSON.parse(parseHead((await rawExchange(port, get('/completely-unrelated-words-here', { Accept: 'application/json' }), { until: completeByLength })).data).rest.toString()) as { suggestions: string[] };
  t.same(far.suggestions, [], 'nothing close: no guesses');
  const home = parseHead((await rawExchange(port, get('/'), { until: completeByLength })).data);
  t.notOk(home.rest.toString().includes('class="miss"'), 'the catalog itself has no notice');
});

t.test('the banner says when the limit is off', async (t) => {
  const off = buildCatalog(registries.chaos as Registry<unknown>, testConfig({ RATE_LIMIT_GENERAL: '0' }));
  t.match(off.banner, /Rate limit: off\.$/);
  t.same(off.rate_limit, { requests: 0, per_seconds: 60 });
});

t.test('an absolute-form target is served like its path (control and bots)', async (t) => {
  const { port } = await startHttp(t, 'control');
  const abs = parseHead((await rawExchange(port, get('http://control.test:8080/truncate?at=3'), { until: completeByLength })).data);
  t.equal(abs.status, 200);
  t.equal(abs.rest.toString(), '012');
  const bare = parseHead((await rawExchange(port, get('http://control.test:8080', { Accept: 'application/json' }), { until: completeByLength })).data);
  t.equal(bare.status, 200, 'an empty path is /');
});

t.test('unknown paths inside a namespace keep its lines: X-Robots-Tag under /infinite/', async (t) => {
  const { port } = await startHttp(t, 'control');
  for (const path of ['/infinite', '/infinite/', '/infinite/json', '/infinite/json/users', '/infinite/json/users/', '/infinite/json%2Fusers/a']) {
    const head = parseHead((await rawExchange(port, get(path), { until: completeByLength })).data);
    t.equal(head.status, 404, `${path}: the catalog 404`);
    t.equal(head.header('x-robots-tag'), 'noindex, nofollow', `${path}: crawlers told to stay out`);
  }
  const other = parseHead((await rawExchange(port, get('/elsewhere'), { until: completeByLength })).data);
  t.equal(other.header('x-robots-tag'), undefined, 'other unknown paths do not carry it');
});

t.test('Accept negotiation', async (t) => {
  t.equal(wantsJson(undefined), false);
  t.equal(wantsJson('*/*'), false);
  t.equal(wantsJson('application/json'), true);
  t.equal(wantsJson('application/json, text/html'), true);
  t.equal(wantsJson('text/html, application/json'), false);
});
