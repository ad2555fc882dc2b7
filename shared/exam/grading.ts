// What the exam's profiles are made of (docs/exam.md): a step's definition,
// its verdict, and the grading helpers the profiles share (retry loops under
// a Retry-After, redirects, give-ups).
import type { StepEntry } from './recorder.js';

export type Verdict = 'pass' | 'fail' | 'not-run';

export interface Graded {
  readonly verdict: 'pass' | 'fail';
  /** What the service saw, in a sentence with the numbers. */
  readonly observed: string;
}

export interface StepDef {
  readonly name: string;
  /** `tls`: the chaos host's TLS `good` host; such a step is left out where TLS is off. */
  readonly host: 'chaos' | 'control' | 'tls';
  /** Path and query (without the exam id); `{id}` is replaced by the exam id. */
  readonly target: string;
  readonly what: string;
  readonly expected: string;
  readonly why: string;
  /** The fix, in one line, shown beside a failed step. */
  readonly fix: string;
  /** Grades the step's entries (at least one), sorted by time. */
  grade(entries: readonly StepEntry[]): Graded;
}

/** Slack for clocks and timers when a gap is compared with a Retry-After (ms). */
export const SLACK_MS = 150;

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Gaps between each response's end and the next request (ms). */
export function gaps(entries: readonly StepEntry[]): number[] {
  return entries.slice(1).map((e, i) => e.at - ((entries[i] as StepEntry).at + (entries[i] as StepEntry).ms));
}

export function pass(observed: string): Graded {
  return { verdict: 'pass', observed };
}
export function fail(observed: string): Graded {
  return { verdict: 'fail', observed };
}

export function requests(entries: readonly StepEntry[]): string {
  return `${entries.length} request${entries.length === 1 ? '' : 's'} (${entries.map((e) => e.status || 'no answer').join(', ')})`;
}

/** A retry loop under a Retry-After of `waitMs`: it must wait, and stop within `maxRequests`; `mustSucceed`: it must reach the 200. */
export function retryGrade(entries: readonly StepEntry[], waitMs: number, maxRequests: number, mustSucceed: boolean): Graded {
  const between = gaps(entries);
  const early = between.filter((gap) => gap < waitMs - SLACK_MS);
  const said = `${requests(entries)}${between.length > 0 ? `, waits ${between.map(seconds).join(', ')}` : ''}`;
  if (early.length > 0) return fail(`${said}: retried after ${seconds(Math.min(...early))}, sooner than Retry-After (${seconds(waitMs)})`);
  if (entries.length > maxRequests) return fail(`${said}: did not give up within ${maxRequests} requests`);
  if (mustSucceed && !entries.some((e) => e.status === 200)) return fail(`${said}: never reached the 200`);
  return pass(said);
}

/** The first request of a step and the target's (the request after the redirect). */
export function redirectGrade(entries: readonly StepEntry[], check: (target: StepEntry, first: StepEntry) => string | undefined): Graded {
  const first = entries.find((e) => e.endpoint === 'redirect-kinds');
  const target = entries.find((e) => e.endpoint === 'redirect-kinds-target');
  if (first === undefined) return fail('the redirect itself was never requested');
  if (first.method !== 'POST' || (first.bodyBytes ?? 0) === 0) return fail(`sent ${first.method} with ${first.bodyBytes ?? 0} body bytes: send a POST with a body`);
  if (target === undefined) return fail(`POST with ${first.bodyBytes} bytes; the redirect was not followed`);
  const said = `POST with ${first.bodyBytes} bytes, followed as ${target.method} with ${target.bodyBytes ?? 0} bytes`;
  const wrong = check(target, first);
  return wrong === undefined ? pass(said) : fail(`${said}: ${wrong}`);
}

/** Whether the client closed before the response ended, and when. */
export function gaveUpGrade(entries: readonly StepEntry[], lastsMs: number): Graded {
  const first = entries[0] as StepEntry;
  if (!first.finished && first.ms < lastsMs) return pass(`gave up after ${seconds(first.ms)} (the response would have taken ${seconds(lastsMs)})`);
  return fail(`waited ${seconds(first.ms)}, to the end of a response built to never be worth waiting for`);
}

/** The second request of a step, when the client made one. */
export function second(entries: readonly StepEntry[]): StepEntry | undefined {
  return entries[1];
}
