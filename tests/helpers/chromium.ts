// Debian's Chromium driven by playwright-core, for the browser cells: a page
// served from a third loopback origin (so both hosts are cross-origin to it)
// and a tab opened on it, both closed at the test's teardown.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Page } from 'playwright-core';
import type { Test } from 'tap';

export const CHROMIUM = '/usr/bin/chromium';

/** A headless tab on an empty page titled `title`, served from its own loopback port. */
export async function probeTab(t: Test, title: string): Promise<Page> {
  const page = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>${title}</title>`);
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => page.close(() => resolve())));
  const browser = await chromium.launch({ executablePath: CHROMIUM, timeout: 60_000 });
  t.teardown(() => browser.close());
  const tab = await browser.newPage();
  await tab.goto(`http://127.0.0.1:${(page.address() as AddressInfo).port}/`);
  return tab;
}
