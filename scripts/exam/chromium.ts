// Takes the steps of a client exam (docs/exam.md) in headless Chromium (Debian's,
// driven by playwright-core), as a web page does: one browser context (one
// HTTP cache, one cookie jar), each step's plan (scripts/exam/node-steps.ts)
// run by `fetch` from a page of the step URL's own origin (so the chaos and
// control hosts are each same-origin to their steps, and only a cross-host
// redirect is cross-origin), the event
// stream by `EventSource` (which reconnects with Last-Event-ID by itself), and
// `AbortSignal.timeout(2000)` where a step asks for a deadline. With
// EXAM_CA_FILE the browser trusts that root through an NSS database of its own
// (scripts/scorecard/tls-clients.ts) and takes the https step; without it, not.
// Reads `name url` lines on stdin; scripts/exam/run.ts opens the exam, feeds
// the lines and prints the grade:
//   node dist/scripts/exam/run.js chromium [profile] [hub URL]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { chromiumTrusting } from '../scorecard/tls-clients.js';
import { parseSteps, planOf, type Step, type StepPlan } from './node-steps.js';

const CHROMIUM = '/usr/bin/chromium';
/** How long the page watches the event stream for its reconnection. */
const STREAM_WATCH_MS = 10_000;

/** Runs inside the page: one step's plan (node-steps.ts) with the browser's own fetch and EventSource. */
async function inPage({ url, plan, watchMs }: { url: string; plan: StepPlan; watchMs: number }): Promise<void> {
  if ('eventStream' in plan) {
    // EventSource reconnects by itself after `retry:`, with Last-Event-ID: watch for the second open.
    return new Promise<void>((resolve) => {
      const source = new EventSource(url);
      let opens = 0;
      const done = (): void => {
        source.close();
        resolve();
      };
      source.onopen = () => {
        if (++opens === 2) setTimeout(done, 500);
      };
      setTimeout(done, watchMs);
    });
  }
  for (const call of plan.calls) {
    try {
      const init: RequestInit = { method: call.method ?? 'GET', headers: { ...call.headers } };
      if (call.body !== undefined) init.body = call.body;
      if (call.timeoutMs !== undefined) init.signal = AbortSignal.timeout(call.timeoutMs);
      const response = await fetch(url, init);
      await response.arrayBuffer();
    } catch {
      /* the browser's answer to a lie: the service records what happened */
    }
  }
}

/** A page of `origin` that costs no request (its HTML is fulfilled by the driver, its icon inline). */
async function pageOf(context: BrowserContext, origin: string): Promise<Page> {
  const page = await context.newPage();
  const url = `${origin}/exam-runner-page`;
  await page.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><link rel="icon" href="data:,"><title>exam</title>' }));
  await page.goto(url);
  await page.unrouteAll();
  return page;
}

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const caFile = process.env.EXAM_CA_FILE;
const steps: Step[] = parseSteps(Buffer.concat(chunks).toString('utf8')).filter((s) => caFile || !s.url.startsWith('https:'));
// A home of its own for the NSS database that holds the root.
const home = caFile ? mkdtempSync(join(tmpdir(), 'exam-chromium-')) : undefined;
const browser: Browser = caFile && home ? await chromiumTrusting(caFile, home, CHROMIUM) : await chromium.launch({ executablePath: CHROMIUM, timeout: 60_000 });
try {
  const context = await browser.newContext();
  const pages = new Map<string, Promise<Page>>();
  await Promise.all(
    steps.map(async (step) => {
      const origin = new URL(step.url).origin;
      if (!pages.has(origin)) pages.set(origin, pageOf(context, origin));
      const page = await (pages.get(origin) as Promise<Page>);
      await page.evaluate(inPage, { url: step.url, plan: planOf(step.name), watchMs: STREAM_WATCH_MS });
    }),
  );
} finally {
  await browser.close();
  if (home) rmSync(home, { recursive: true, force: true });
}
