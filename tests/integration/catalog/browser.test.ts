// The catalog pages in a real browser: headless Chromium (Debian's, driven by
// playwright-core) loads each host's page and the hub by its *.localhost name.
// No console error, no uncaught exception, no Content-Security-Policy
// violation; the stylesheet and script load under the CSP; the filter box
// shows exactly the matching entries; the copy button copies the curl line;
// without script the page still lists everything. Screenshots go to
// .tap/artefacts/catalog-browser/ (gitignored).
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import t from 'tap';
import { entryId } from '../../../shared/catalog/catalog-page.js';
import type { Catalog, CatalogEndpoint } from '../../../shared/catalog/catalog.js';
import type { HostName } from '../../../shared/config/config.js';
import { completeByLength, get, parseHead, rawExchange } from '../../helpers/raw.js';
import { startAllHosts } from '../../helpers/servers.js';
import { CHROMIUM } from '../../helpers/chromium.js';

/** The repository root: this file runs as dist/tests/integration/catalog/browser.test.js. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const ARTEFACTS = join(ROOT, '.tap', 'artefacts', 'catalog-browser');

/** What went wrong on a page: console errors and warnings, uncaught exceptions, CSP violations. */
interface Watched {
  readonly page: Page;
  readonly problems: string[];
}

// Runs before any script of the page (Playwright injects it outside the page's CSP).
const RECORD_VIOLATIONS = `
  window.__violations = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
`;

async function watch(context: BrowserContext): Promise<Watched> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.addInitScript({ content: RECORD_VIOLATIONS });
  return { page, problems };
}

async function violations(page: Page): Promise<string[]> {
  return (await page.evaluate('window.__violations')) as string[];
}

/** Ids of the entries a reader sees. */
async function visibleIds(page: Page): Promise<string[]> {
  return (await page.evaluate("Array.from(document.querySelectorAll('article.ep')).filter((e) => e.checkVisibility()).map((e) => e.id)")) as string[];
}

/** What the filter should match, worked out from the JSON catalog: every word an entry shows besides its badges. */
function expectedIds(catalogs: readonly Catalog[], query: string): string[] {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  // The hub's entries sit under their host's section, whose name counts too.
  const hub = catalogs.length > 1;
  const words = (c: Catalog, category: string, e: CatalogEndpoint): string => {
    const mode = e.params.find((p) => p.name === e.mode_param);
    const modes = mode && Array.isArray(mode.accepted) ? [mode.name, ...(mode.accepted as string[])] : [];
    const badges = [(e.longest_ms ?? 0) > 0 ? 'holds' : '', e.cuts === 'reset' ? 'resets' : e.cuts === 'close' || e.longest_ms === 0 ? 'closes' : '', e.random ? 'in /random' : ''];
    return [hub ? c.host : '', category, ...e.methods, e.path, ...e.aliases, ...badges, e.summary.replace(/`/g, ''), ...modes].join(' ').toLowerCase();
  };
  return catalogs.flatMap((c) =>
    c.categories.flatMap((g) => g.endpoints.filter((e) => terms.every((term) => words(c, g.name, e).includes(term))).map((e) => entryId(c.host, e.id))),
  );
}

async function jsonOf(url: string): Promise<Catalog | { hosts: Catalog[] }> {
  const u = new URL(url);
  const res = await rawExchange(Number(u.port), get('/', { Host: u.host, Accept: 'application/json' }), { until: completeByLength });
  return JSON.parse(parseHead(res.data).rest.toString()) as Catalog | { hosts: Catalog[] };
}

t.test('the catalog pages in headless Chromium', async (t) => {
  t.ok(existsSync(CHROMIUM), `${CHROMIUM} is installed (make tools installs the chromium package)`);
  if (!existsSync(CHROMIUM)) return;
  mkdirSync(ARTEFACTS, { recursive: true });
  const hosts = await startAllHosts(t);
  const pages = {
    chaos: `http://127.0.0.1:${hosts.chaos}/`,
    control: `http://127.0.0.1:${hosts.control}/`,
    bots: `http://127.0.0.1:${hosts.bots}/`,
    hub: `${hosts.hub}/`,
  };
  const catalogs: Record<string, readonly Catalog[]> = {};
  for (const [name, url] of Object.entries(pages)) {
    const doc = await jsonOf(url);
    catalogs[name] = 'hosts' in doc ? doc.hosts : [doc];
  }

  // Chromium resolves *.localhost to the loopback itself; the rule pins the address the hub listens on.
  const browser = await chromium.launch({ executablePath: CHROMIUM, timeout: 60_000, args: ['--host-resolver-rules=MAP *.localhost 127.0.0.1'] });
  t.teardown(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  t.teardown(() => context.close());

  for (const [name, url] of Object.entries(pages)) {
    await t.test(`${name}: ${url}`, async (t) => {
      const shown = catalogs[name] as readonly Catalog[];
      const total = shown.reduce((n, c) => n + c.endpoint_count, 0);
      const { page, problems } = await watch(context);
      const response = await page.goto(url);
      t.equal(response?.status(), 200);
      t.match(response?.headers()['content-security-policy'], /default-src 'none'/);
      t.equal(await page.locator('#tools').isVisible(), true, 'the script ran: the filter box is shown');
      t.equal(await page.evaluate("getComputedStyle(document.querySelector('article.ep')).borderTopLeftRadius"), '10px', 'the stylesheet applies');
      t.equal((await visibleIds(page)).length, total, `all ${total} entries at first`);
      t.equal(await page.locator('#shown').textContent(), `${total} endpoints`);
      t.equal(await page.locator('.curl button.copy').count(), total, 'a copy button on every curl line');

      const queries = { chaos: ['lf-only', 'json mode'], control: ['POST', 'redirect'], bots: ['webfinger', 'site-trust'], hub: ['robots', 'holds'] }[name] as string[];
      for (const query of queries) {
        await page.fill('#filter', query);
        const visible = await visibleIds(page);
        const expected = expectedIds(shown, query);
        t.ok(expected.length > 0 && expected.length < total, `"${query}" matches some entries (${expected.length})`);
        t.same(visible, expected, `"${query}": exactly the matching entries are visible`);
        t.equal(await page.locator('#shown').textContent(), `${expected.length} of ${total} endpoints`);
        const sections = (await page.evaluate("Array.from(document.querySelectorAll('section.cat')).filter((s) => s.checkVisibility()).map((s) => s.id)")) as string[];
        t.same(sections, [...new Set(visible.map((id) => (id.slice(0, id.indexOf('-ep-')))))].flatMap((host) =>
          (shown.find((c) => c.host === host) as Catalog).categories.filter((g) => g.endpoints.some((e) => visible.includes(entryId(host as HostName, e.id)))).map((g) => `${host}-${g.name}`),
        ), `"${query}": only categories with a match are shown`);
        t.match(page.url(), `q=${encodeURIComponent(query).replace(/%20/g, '+')}`, 'the filter is in the address');
        if (query === 'holds') {
          const holding = shown.flatMap((c) => c.categories.flatMap((g) => g.endpoints).filter((e) => (e.longest_ms ?? 0) > 0).map((e) => entryId(c.host, e.id)));
          t.ok(holding.length > 5 && holding.every((id) => visible.includes(id)), 'a badge is filtered on too: every entry that holds the connection');
        }
        if (name === 'hub' && query === 'robots') {
          t.equal(await page.locator('section.host#chaos').isVisible(), false, 'a host without a match is hidden');
          await page.screenshot({ path: join(ARTEFACTS, 'hub-filtered.png') });
        }
      }
      await page.fill('#filter', '');
      t.equal((await visibleIds(page)).length, total, 'clearing the box shows everything again');
      await page.screenshot({ path: join(ARTEFACTS, `${name}.png`) });

      if (name === 'chaos') {
        await page.goto(`${url}?q=lf-only`);
        t.same(await visibleIds(page), expectedIds(shown, 'lf-only'), '?q= in the address fills the filter');
        await page.locator('#filter').press('Escape');
        t.equal((await visibleIds(page)).length, total, 'Escape clears it');
      }

      t.same(problems, [], 'no console error or warning, no uncaught exception');
      t.same(await violations(page), [], 'no CSP violation');
      await page.close();
    });
  }

  await t.test('the copy button copies the curl line', async (t) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://127.0.0.1:${hosts.chaos}` });
    const { page, problems } = await watch(context);
    await page.goto(`${pages.chaos}?q=/status/`);
    const line = page.locator('#chaos-ep-status .curl');
    await line.locator('button.copy').click();
    // The button says so once the clipboard's promise has settled, not at the click.
    const said = await line
      .locator('button.copy', { hasText: 'Copied' })
      .waitFor({ timeout: 5000 })
      .then(() => 'Copied', async () => line.locator('button.copy').textContent());
    t.equal(said, 'Copied');
    const copied = (await page.evaluate('navigator.clipboard.readText()')) as string;
    t.equal(copied, `curl -v 'http://127.0.0.1:${hosts.chaos}/status/418'`);
    t.equal(await line.locator('code').textContent(), copied, 'the line as shown');
    t.same(problems, []);
    await page.close();
  });

  await t.test('a miss: the same page, saying so first', async (t) => {
    const { page, problems } = await watch(context);
    const response = await page.goto(`${pages.chaos}sloww`);
    t.equal(response?.status(), 404);
    t.match(await page.locator('p.miss').textContent(), /^No endpoint at \/sloww on this host\. Did you mean \/slow/);
    await page.fill('#filter', 'lf-only');
    t.same(await visibleIds(page), [entryId('chaos', 'status-line')], 'the filter works there too');
    // Chromium reports the page's own 404 on the console; nothing else may appear.
    t.same(problems.filter((p) => !/status of 404/.test(p)), []);
    t.same(await violations(page), []);
    await page.close();
  });

  await t.test('a small screen', async (t) => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    t.teardown(() => phone.close());
    const { page, problems } = await watch(phone);
    await page.goto(`${pages.control}#control-agent`);
    const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
    t.ok(width <= 390, `no sideways scrolling (${width}px wide)`);
    await page.screenshot({ path: join(ARTEFACTS, 'control-phone.png') });
    t.same(problems, []);
    t.same(await violations(page), []);
  });

  await t.test('without script the page still lists everything', async (t) => {
    const plain = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    t.teardown(() => plain.close());
    const page = await plain.newPage();
    await page.goto(pages.chaos);
    t.equal(await page.locator('#tools').isVisible(), false, 'no filter box that would do nothing');
    t.equal((await page.locator('article.ep').count()), (catalogs.chaos as Catalog[])[0]?.endpoint_count);
    t.equal(await page.locator('button.copy').count(), 0, 'no copy buttons');
    t.equal(await page.locator('#chaos-ep-status .curl code').textContent(), `curl -v 'http://127.0.0.1:${hosts.chaos}/status/418'`, 'the curl line as plain text');
    t.equal(await page.locator('#chaos-ep-status a[href="/status/418"]').count(), 1, 'the example is a link');
  });
});
