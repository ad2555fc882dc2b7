// The exam's page as a browser sees it: headless Chromium (Debian's, driven by
// playwright-core) opens an exam from the address bar, takes the caching
// profile's ETag step by loading the step URL and reloading it, and reads the
// graded page on the hub: the hub's look, no console error, no CSP violation.
import { existsSync, mkdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import t from 'tap';
import { CHROMIUM } from '../../helpers/chromium.js';
import { startExamStack, type OpenedExam } from '../../helpers/exam-stack.js';

const ARTEFACTS = '.tap/artefacts';

t.test('headless Chromium opens an exam, takes a step and shows the graded page', async (t) => {
  t.ok(existsSync(CHROMIUM), `${CHROMIUM} is installed (make tools installs the chromium package)`);
  if (!existsSync(CHROMIUM)) return;
  const stack = await startExamStack(t);
  const browser = await chromium.launch({ executablePath: CHROMIUM, timeout: 60_000 });
  t.teardown(() => browser.close());
  const tab = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const problems: string[] = [];
  tab.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));

  const opened = await tab.goto(`${stack.hub}/exam/new?profile=caching`);
  t.equal(opened?.status(), 201, 'opened from the address bar');
  const exam = JSON.parse(await tab.locator('body').innerText()) as OpenedExam;
  const step = exam.steps.find((s) => s.name === 'etag');
  t.ok(step, 'the etag step');

  // A browser revalidates what it holds when reloaded: If-None-Match, a 304.
  await tab.goto(step?.url as string);
  await tab.reload();
  await sleep(300);

  // The JSON answers before (the opened exam, the control host's /etag) have no icon: Chromium asked for /favicon.ico.
  const favicon = 'console error: Failed to load resource: the server responded with a status of 404 (Not Found)';
  t.ok(problems.every((p) => p === favicon) && problems.length <= 2, `before the page: only the JSON documents' missing icons (${problems.length})`);
  problems.length = 0;
  const page = await tab.goto(exam.report_url);
  t.equal(page?.status(), 200);
  t.match(page?.headers()['content-type'], 'text/html');
  t.match(page?.headers()['content-security-policy'], /^default-src 'none'; style-src 'self'/, 'the catalog pages\' CSP');
  t.equal(await tab.title(), 'Client exam caching — Chaos Endpoint Service');
  t.equal(await tab.locator('article.ep').count(), 4, 'one entry per step');
  t.match(await tab.locator('#step-etag .badge').innerText(), 'pass', 'the reload revalidated');
  t.match(await tab.locator('#step-etag .sum').innerText(), /If-None-Match: ".+", answered 304/);
  t.match(await tab.locator('#step-vary .badge').innerText(), 'not run');
  t.match(await tab.locator('header h1').innerText(), /1 of 4 passed/);
  // The hub's stylesheet applied (a CSP refusal would leave the page unstyled and say so on the console).
  t.not(await tab.evaluate("getComputedStyle(document.querySelector('article.ep')).borderTopStyle"), 'none', 'styled as the catalog entries');
  mkdirSync(ARTEFACTS, { recursive: true });
  await tab.screenshot({ path: `${ARTEFACTS}/exam-report.png`, fullPage: true });
  t.same(problems, [], 'the page: no console error or warning, no CSP violation');
});
