// The compare page as a browser sees it: headless Chromium (Debian's, driven
// by playwright-core) loads /compare from the hub, with no console error and
// no CSP violation (its one style is allowed by hash), submits the form, and
// leaves a screenshot in .tap/artefacts/ for a person to look at.
import { existsSync, mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import t from 'tap';
import { startCompareHub } from '../../helpers/compare-hub.js';
import { CHROMIUM } from '../../helpers/chromium.js';

const ARTEFACTS = '.tap/artefacts';

t.test('headless Chromium shows the compare page without a console error or CSP violation', async (t) => {
  t.ok(existsSync(CHROMIUM), `${CHROMIUM} is installed (make tools installs the chromium package)`);
  if (!existsSync(CHROMIUM)) return;
  const hub = await startCompareHub(t);
  const browser = await chromium.launch({ executablePath: CHROMIUM, timeout: 60_000 });
  t.teardown(() => browser.close());
  const tab = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems: string[] = [];
  tab.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  const failed: string[] = [];
  tab.on('requestfailed', (request) => failed.push(request.url()));
  // The hub is `localhost:<port>`: Chromium resolves it to the loopback by itself.
  const base = `http://${hub.hubHost}`;

  const response = await tab.goto(`${base}/compare?path=${encodeURIComponent('/truncate?at=10')}`);
  t.equal(response?.status(), 200);
  t.match(response?.headers()['content-security-policy'], /^default-src 'none'; style-src 'sha256-/);
  // A style the CSP refused would leave the page unstyled (and say so on the console).
  const styled = await tab.evaluate("getComputedStyle(document.querySelector('.side.chaos')).borderTopWidth");
  t.equal(styled, '4px', 'the inline style applied (allowed by its hash)');
  t.equal(await tab.locator('.side').count(), 2, 'two sides');
  t.match(await tab.locator('.side.chaos .end').innerText(), /clean close \(FIN\) mid-body/);
  t.match(await tab.locator('.side.chaos .explain').innerText(), /X-Chaos-Truncated-At: 10/);
  mkdirSync(ARTEFACTS, { recursive: true });
  await tab.screenshot({ path: `${ARTEFACTS}/compare-truncate.png`, fullPage: true });

  // A person types another path and submits the form.
  await tab.fill('#path', '/status/418');
  await Promise.all([tab.waitForURL(/\/compare\?path=%2Fstatus%2F418$/), tab.click('button[type=submit]')]);
  t.match(await tab.locator('.side.twin').innerText(), /HTTP\/1\.1 418/);
  await tab.goto(`${base}/compare?path=${encodeURIComponent('/nope')}`);
  t.match(await tab.locator('.error').innerText(), /names no chaos endpoint: \/nope/);
  await tab.goto(`${base}/compare`);
  await tab.screenshot({ path: `${ARTEFACTS}/compare-form.png`, fullPage: true });

  // The one expected message is the 400 asked for above: it also shows the listener hears the console.
  const expected = 'console error: Failed to load resource: the server responded with a status of 400 (Bad Request)';
  t.same(problems.filter((p) => p === expected).length, 1, 'the console is heard: the 400 page was reported');
  t.same(problems.filter((p) => p !== expected), [], 'no other console error or warning, no CSP violation');
  t.same(failed, [], 'no request failed');
});
