// Twin content, rate-limiting family: /rate-limit, /retry-after-formats and
// /throttle. Parameters, bodies and the true values both hosts derive from;
// only the chaos host's headers lie.
import type { HeaderList } from '../primitives/headers.js';
import { httpDate } from '../primitives/headers.js';
import { jsonBody } from '../primitives/json.js';
import { bool, int, oneOf, str } from '../primitives/params.js';
import { idKey } from '../store/types.js';

// ---- /rate-limit ----------------------------------------------------------

/** The quota the fake limit claims (the banner's 60 per minute). */
export const RATE_LIMIT_QUOTA = 60;

export const RATE_LIMIT_PARAMS = {
  retry_after: int({ min: 1, max: 3600, default: 60, description: 'seconds' }),
  lie: bool({ default: false, description: 'when true, Retry-After says 1 whatever retry_after says' }),
};

export function rateLimitBody(requested: number, sent: number): Record<string, unknown> {
  return {
    endpoint: '/rate-limit',
    retry_after: requested,
    retry_after_header: sent,
    lied: sent !== requested,
    limit: RATE_LIMIT_QUOTA,
    remaining: 0,
    reset: requested,
  };
}

/** Retry-After as sent, then the X-RateLimit trio; Reset is the true delta in seconds. */
export function rateLimitHeaders(sent: number, requested: number): HeaderList {
  return [
    ['Retry-After', String(sent)],
    ['X-RateLimit-Limit', String(RATE_LIMIT_QUOTA)],
    ['X-RateLimit-Remaining', '0'],
    ['X-RateLimit-Reset', String(requested)],
  ];
}

// ---- /retry-after-formats -------------------------------------------------

export const RETRY_AFTER_MODES = ['http-date', 'past-date', 'negative', 'fractional', 'huge', 'garbage', 'ratelimit-conflict'] as const;
export type RetryAfterMode = (typeof RETRY_AFTER_MODES)[number];

export const RETRY_AFTER_STATUSES = ['429', '503'] as const;

export const RETRY_AFTER_PARAMS = {
  mode: oneOf(RETRY_AFTER_MODES, { default: 'http-date', description: 'the form of Retry-After' }),
  status: oneOf(RETRY_AFTER_STATUSES, { default: '429', description: 'the status sent' }),
};

/** The true wait, in seconds, on both hosts. */
export const RETRY_AFTER_SECONDS = 30;
/** The quota the RateLimit fields describe (a fiction, as /rate-limit's). */
const QUOTA = 100;
const WINDOW_SECONDS = 60;

/** The Retry-After value each mode sends on the chaos host, exactly (`now` for the dates). */
export function retryAfterValue(mode: RetryAfterMode, nowMs: number): string {
  switch (mode) {
    case 'http-date':
      // Valid (RFC 9110 §10.2.3), yet many clients only parse delta-seconds.
      return httpDate(nowMs + RETRY_AFTER_SECONDS * 1000);
    case 'past-date':
      return httpDate(nowMs - 3600 * 1000);
    case 'negative':
      return `-${RETRY_AFTER_SECONDS}`;
    case 'fractional':
      return '1.5';
    case 'huge':
      // 2^64: one past the largest unsigned 64-bit integer.
      return '18446744073709551616';
    case 'garbage':
      return 'soon';
    case 'ratelimit-conflict':
      return String(RETRY_AFTER_SECONDS);
  }
}

/**
 * ratelimit-conflict: the IETF fields (draft-ietf-httpapi-ratelimit-headers)
 * say half the quota is left and reset in 30 s, while X-RateLimit-* say none
 * is left and reset in 5 s, on a 429 that says there is nothing left.
 */
export const CONFLICTING_LIMIT_FIELDS: HeaderList = [
  ['RateLimit-Policy', `"default";q=${QUOTA};w=${WINDOW_SECONDS}`],
  ['RateLimit', `"default";r=${QUOTA / 2};t=${RETRY_AFTER_SECONDS}`],
  ['X-RateLimit-Limit', '10'],
  ['X-RateLimit-Remaining', '0'],
  ['X-RateLimit-Reset', '5'],
];

/** The twin's fields in ratelimit-conflict: both conventions tell the same truth. */
export const AGREEING_LIMIT_FIELDS: HeaderList = [
  ['RateLimit-Policy', `"default";q=${QUOTA};w=${WINDOW_SECONDS}`],
  ['RateLimit', `"default";r=0;t=${RETRY_AFTER_SECONDS}`],
  ['X-RateLimit-Limit', String(QUOTA)],
  ['X-RateLimit-Remaining', '0'],
  ['X-RateLimit-Reset', String(RETRY_AFTER_SECONDS)],
];

export function retryAfterBody(mode: RetryAfterMode, status: number, sent: string): Buffer {
  return jsonBody({ endpoint: '/retry-after-formats', mode, status, retry_after_header: sent, retry_after_seconds: RETRY_AFTER_SECONDS });
}

// ---- /throttle ------------------------------------------------------------

export const THROTTLE_MAX_SECONDS = 3600;
/** How long an id's record is kept from its first call: past the longest throttle, then the id starts afresh. */
export const THROTTLE_RECORD_MS = 2 * THROTTLE_MAX_SECONDS * 1000;

export const THROTTLE_PARAMS = {
  id: str({ minLength: 1, maxLength: 128, required: true, description: 'client-supplied identity token; the throttle is kept per id' }),
  seconds: int({ min: 1, max: THROTTLE_MAX_SECONDS, default: 5, description: 'how long after the first call the id is throttled' }),
};

/** The record of an id: a fixed-size digest, whatever the id's length. */
export function throttleStoreKey(id: string): string {
  return idKey('throttle', id);
}

/** Whole seconds left, rounded up, so a client that waits as told is never early. */
export function secondsLeft(seconds: number, elapsedMs: number): number {
  return Math.max(0, Math.ceil((seconds * 1000 - elapsedMs) / 1000));
}

export function throttleBody(id: string, seconds: number, elapsedMs: number | null, retryAfter: number | null): Buffer {
  return jsonBody({ endpoint: '/throttle', id, seconds, throttled: retryAfter !== null, elapsed_ms: elapsedMs, retry_after: retryAfter });
}
