// CORS family (issue 13) as a browser sees it: headless Chromium (Debian's,
// driven by playwright-core) loads a page from a third loopback origin and
// fetches every chaos and control CORS endpoint cross-origin. The chaos modes
// the Fetch standard refuses must be blocked, the control twins never.
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import t from 'tap';
import { CORS_MODES, EXPOSE_MODES, EXPOSED_HEADERS, PREFLIGHT_MODES } from '../../shared/content/cors.js';
import { startChaos, startHttp } from '../helpers/servers.js';

const CHROMIUM = '/usr/bin/chromium';

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
  const page = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>cors probe</title>');
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => page.close(() => resolve())));
  const pagePort = (page.address() as AddressInfo).port;

  const browser = await chromium.launch({ executablePath: CHROMIUM, timeout: 60_000 });
  t.teardown(() => browser.close());
  const tab = await browser.newPage();
  await tab.goto(`http://127.0.0.1:${pagePort}/`);

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
