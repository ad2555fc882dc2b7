// Twin content, cors family: /cors, /cors-preflight, /cors-expose. The modes,
// the resource both hosts serve and the names a script needs, so the chaos
// endpoint and its control twin differ only in their Access-Control-* lines.
import { jsonBody } from '../primitives/json.js';

export const CORS_MODES = ['wildcard-with-credentials', 'reflect-no-vary', 'null-origin', 'duplicate-allow-origin', 'wrong-origin'] as const;
export type CorsMode = (typeof CORS_MODES)[number];

export const PREFLIGHT_MODES = ['actual-refuses', 'methods-disagree', 'headers-disagree', 'negative-max-age', 'huge-max-age', 'bare-200'] as const;
export type PreflightMode = (typeof PREFLIGHT_MODES)[number];

export const EXPOSE_MODES = ['omitted', 'misnamed', 'wildcard-with-credentials'] as const;
export type ExposeMode = (typeof EXPOSE_MODES)[number];

/** Methods /cors-preflight serves (HEAD implied); PUT is what makes a browser send a preflight. */
export const PREFLIGHT_METHODS = ['GET', 'PUT', 'OPTIONS'] as const;
/** What a correct preflight allows: the methods a script may use and the one non-safelisted request header it sends. */
export const PREFLIGHT_ALLOW_METHODS = 'GET, PUT';
export const PREFLIGHT_ALLOW_HEADERS = 'X-Probe';
/** Seconds a browser may cache a correct preflight (Chromium caps at 7200). */
export const PREFLIGHT_MAX_AGE = '600';
/** The chaos lies about caching: a negative delta-seconds, and one no browser honours. */
export const NEGATIVE_MAX_AGE = '-1';
export const HUGE_MAX_AGE = '99999999999';
/** What methods-disagree and headers-disagree put in the preflight instead (the actual response names the true ones). */
export const DISAGREEING_METHODS = 'GET, POST';
export const DISAGREEING_HEADERS = 'X-Probe-Id';

/** The origin wrong-origin allows: never the caller's (the fallback covers a caller that is this one). */
export function otherOrigin(asking: string | undefined): string {
  return asking === 'https://allowed.example' ? 'https://other.example' : 'https://allowed.example';
}

/** Response headers a script of /cors-expose needs to read, and their values. */
export const EXPOSED_HEADERS: readonly (readonly [string, string])[] = [
  ['X-Request-Id', 'cors-expose-0001'],
  ['X-Total-Count', '42'],
];
export const EXPOSE_LIST = EXPOSED_HEADERS.map(([name]) => name).join(', ');
/** The misnamed list: close to the real names, matching neither (a browser compares names exactly, case-insensitively). */
export const MISNAMED_EXPOSE_LIST = 'X-Request-ID-, X-Total-Counts';

/** The body every host serves for a cors endpoint: what it is and whom it answered. */
export function corsBody(endpoint: string, mode: string, origin: string | undefined, method: string): Buffer {
  return jsonBody({ endpoint, mode, method, origin: origin ?? null, data: 'cross-origin payload' });
}
