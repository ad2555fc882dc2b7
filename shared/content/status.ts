// Twin content, status family: /status/{code}, /flaky, /rate-limit,
// /retry-mismatch, /auth-required, /status-line, /weighted-status.
// What the status, fault and limit endpoints share between the chaos host and
// their control twins: parameters, bodies and the seeded draws, so a twin
// serves the same resource and only the lie differs.
import type { Config } from '../config/config.js';
import type { HeaderList } from '../primitives/headers.js';
import { reasonPhrase } from '../primitives/headers.js';
import { jsonBody } from '../primitives/json.js';
import { bool, grammar, int, num, oneOf, str, type ItemOutcome, type Param } from '../primitives/params.js';
import { rngFromSeed, seededBytes } from '../primitives/seed.js';
import { idKey } from '../store/types.js';

// ---- /status/{code} -------------------------------------------------------

export const STATUS_PATH = '/status/{code}';

/** Codes /random asks /status/{code} for: common final codes, nothing that switches protocols or is interim. */
const STATUS_PICKS = [200, 201, 202, 204, 301, 302, 304, 400, 401, 403, 404, 409, 410, 418, 422, 429, 500, 502, 503, 504];

/** The `{code}` of /status/{code} on both hosts. */
export const STATUS_CODE = int({ in: 'path', min: 100, max: 599, required: true, picks: STATUS_PICKS, description: 'status to return; clamped into 100–599' });

/** RFC 9110 §15.2.2: 101 is the one status that switches protocols (DESIGN decision: only 101). */
export function switchesProtocols(status: number): boolean {
  return status === 101;
}

/** 1xx other than 101: an interim response that must be followed by a final one. */
export function isInterim(status: number): boolean {
  return status >= 100 && status < 200 && !switchesProtocols(status);
}

/**
 * How a status frames its body: 204 and 304 have none by definition (no
 * Content-Length either); 205 must not carry content (RFC 9110 §15.3.6), so
 * it says Content-Length: 0; everything else carries the JSON.
 */
export function bodyFraming(status: number): 'none' | 'empty' | 'json' {
  if (status === 204 || status === 304) return 'none';
  if (status === 205) return 'empty';
  return 'json';
}

export function statusBody(status: number): { endpoint: string; status: number; reason: string } {
  return { endpoint: STATUS_PATH, status, reason: reasonPhrase(status) };
}

/** The final 200 that follows an interim 1xx names the interim code. */
export function interimStatusBody(interim: number, interimSent: boolean): Record<string, unknown> {
  return {
    endpoint: STATUS_PATH,
    status: 200,
    reason: reasonPhrase(200),
    interim_status: interim,
    interim_reason: reasonPhrase(interim),
    interim_sent: interimSent,
  };
}

/** The spec's 400 for a protocol-switching code (SPEC §7). */
export function protocolSwitchBody(requested: number): { endpoint: string; error: string; requested: number; reason: string } {
  return {
    endpoint: STATUS_PATH,
    error: 'protocol_switching_status',
    requested,
    reason: `${requested} ${reasonPhrase(requested)} would switch the connection to another protocol; this endpoint does not send it`,
  };
}

// ---- /flaky ---------------------------------------------------------------

/**
 * The failure status: an integer 100–599 (clamped), except 101, which would
 * switch protocols; it is refused as a bad parameter whatever the draw says,
 * so the same URL never answers 400 on one call and 200 on the next.
 */
function failureStatus(): Param<number> {
  const base = int({ min: 100, max: 599, default: 500, description: 'status returned on failure (101 is refused)' });
  return {
    ...base,
    accepted: 'integer from 100 to 599, except 101',
    parse(raw) {
      const outcome = base.parse(raw);
      if (outcome.ok && switchesProtocols(outcome.value)) return { ok: false, reason: 'must not be 101: it would switch protocols' };
      return outcome;
    },
  };
}

export const FLAKY_PARAMS = {
  p: num({ min: 0, max: 1, default: 0.5, description: 'failure probability' }),
  status: failureStatus(),
  seed: str({ maxLength: 256, description: 'same seed, same outcome; omitted: a fresh seed, reported in X-Chaos-Flaky-Seed' }),
};

/**
 * The seeded draw in [0, 1): a pure function of the seed alone, so for one
 * seed a call fails exactly when p is above the draw (p=0 never, p=1 always).
 */
export function flakyDraw(seed: string): number {
  return rngFromSeed(`flaky:${seed}`).nextFloat();
}

export function flakyBody(failed: boolean, status: number, p: number, seed: string | null): Record<string, unknown> {
  return { endpoint: '/flaky', failed, status, reason: reasonPhrase(status), probability: p, seed };
}

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

// ---- /retry-mismatch ------------------------------------------------------

export const RETRY_WINDOW_MS = 60_000;

export const RETRY_PARAMS = {
  id: str({ minLength: 1, maxLength: 128, required: true, description: 'client-supplied identity token; state is kept per id' }),
};

/** The record of an id: a fixed-size digest, so a long id costs no more store memory than a short one. */
export function retryStoreKey(id: string): string {
  return idKey('retry', id);
}

/** The same shape for both versions; items are a pure function of (id, version). */
export function retryBody(id: string, version: 1 | 2): Record<string, unknown> {
  const rng = rngFromSeed(`retry-mismatch:${version}:${id}`);
  const items: { sku: string; quantity: number; price_cents: number }[] = [];
  let total = 0;
  for (let i = 0; i < 3; i++) {
    const sku = `SKU-${rng.nextUint32().toString(16).padStart(8, '0').toUpperCase()}`;
    const quantity = rng.intBetween(1, 9);
    const price = rng.intBetween(100, 99_999);
    total += quantity * price;
    items.push({ sku, quantity, price_cents: price });
  }
  return { endpoint: '/retry-mismatch', id, data: { version, items, total_cents: total } };
}

// ---- /auth-required -------------------------------------------------------

export const AUTH_SCHEMES = ['basic', 'bearer', 'digest', 'none'] as const;
export type AuthScheme = (typeof AUTH_SCHEMES)[number];
export const REALM_MAX = 64;

export const AUTH_PARAMS = {
  scheme: oneOf(AUTH_SCHEMES, { default: 'basic', description: 'challenge scheme; none = a 401 without WWW-Authenticate' }),
  // Longer input is cut after sanitising, never refused: the raw bound is the request line's.
  realm: str({
    maxLength: 16_384, // above the request line's own bound (8–16 KiB), so never the one that refuses
    description: 'default: the service domain; only letters, digits, . _ - and space are kept; cut to 64',
  }),
};

/** Keeps ASCII letters, digits, `.`, `_`, `-` and space, then cuts to 64 characters. */
export function sanitizeRealm(raw: string): string {
  return raw.replace(/[^A-Za-z0-9._ -]/g, '').slice(0, REALM_MAX);
}

const defaultRealms = new WeakMap<Config, string>();
/** The service's domain name: the hub's host name, sanitised (computed once per config). */
export function defaultRealm(config: Config): string {
  let realm = defaultRealms.get(config);
  if (realm === undefined) {
    realm = sanitizeRealm(new URL(config.urls.hub).hostname);
    defaultRealms.set(config, realm);
  }
  return realm;
}

export function realmFor(config: Config, raw: string | undefined): string {
  return raw === undefined ? defaultRealm(config) : sanitizeRealm(raw);
}

/**
 * Digest nonce and opaque: a fixed function of the realm, so a challenge is
 * reproducible. This is a test service; a real server must use fresh nonces.
 */
export function digestNonce(realm: string): { nonce: string; opaque: string } {
  const bytes = seededBytes(`auth-required:digest:${realm}`, 32);
  return { nonce: bytes.toString('hex', 0, 16), opaque: bytes.toString('hex', 16, 32) };
}

/** Realms are sanitised to characters that need no escaping inside quotes. */
export function basicChallenge(realm: string): string {
  return `Basic realm="${realm}"`;
}

export function bearerChallenge(realm: string): string {
  return `Bearer realm="${realm}"`;
}

export function digestChallenge(realm: string, algorithm: 'SHA-256' | 'MD5'): string {
  const { nonce, opaque } = digestNonce(realm);
  return `Digest realm="${realm}", qop="auth", algorithm=${algorithm}, nonce="${nonce}", opaque="${opaque}"`;
}

export function authBody(scheme: AuthScheme, realm: string, authenticated: boolean, note: string): Record<string, unknown> {
  return { endpoint: '/auth-required', authenticated, scheme, realm, note };
}

// ---- /status-line ---------------------------------------------------------

export const STATUS_LINE_MODES = [
  'reason-mismatch', 'empty-reason', 'no-reason', 'http10', 'http2-version', 'four-digit', 'lowercase', 'lf-only',
] as const;
export type StatusLineMode = (typeof STATUS_LINE_MODES)[number];

export const STATUS_LINE_PARAMS = {
  mode: oneOf(STATUS_LINE_MODES, { default: 'reason-mismatch', description: 'how the status line (or, for lf-only, the line ends) lies' }),
};

/** The well-formed line the twin sends, and every mode means. */
export const HONEST_STATUS_LINE = 'HTTP/1.1 200 OK';

/** The status line each mode sends, without its line end (lf-only: the honest line, every line of the head ending in LF). */
export const STATUS_LINES: Readonly<Record<StatusLineMode, string>> = {
  'reason-mismatch': 'HTTP/1.1 200 Not Found',
  'empty-reason': 'HTTP/1.1 200 ',
  'no-reason': 'HTTP/1.1 200',
  http10: 'HTTP/1.0 200 OK',
  'http2-version': 'HTTP/2 200',
  'four-digit': 'HTTP/1.1 2000 OK',
  lowercase: 'http/1.1 200 ok',
  'lf-only': HONEST_STATUS_LINE,
};

export function statusLineBody(mode: StatusLineMode, statusLine: string, lineEnd: 'CRLF' | 'LF'): Buffer {
  return jsonBody({ endpoint: '/status-line', mode, status_line: statusLine, line_end: lineEnd, means: HONEST_STATUS_LINE });
}

// ---- /weighted-status -----------------------------------------------------

export interface WeightedCode {
  readonly code: number;
  readonly weight: number;
}

export const WEIGHTED_MAX_CODES = 20;
export const WEIGHTED_DEFAULT: readonly WeightedCode[] = [
  { code: 200, weight: 0.9 },
  { code: 500, weight: 0.1 },
];
const WEIGHTED_ITEM = /^(\d{3}):(\d+(?:\.\d*)?|\.\d+)$/;

/**
 * `200:0.9,500:0.1`: at most 20 `CODE:WEIGHT` pairs, each code 100–599 but
 * 101 (it would switch protocols), each weight a plain number ≥ 0, the total
 * above 0. Refused whole, never clamped: each pair means something.
 */
export function parseWeightedCodes(raw: string): ItemOutcome<readonly WeightedCode[]> {
  const items = raw.split(',');
  if (items.length > WEIGHTED_MAX_CODES) return { ok: false, reason: `has ${items.length} entries; at most ${WEIGHTED_MAX_CODES}` };
  const codes: WeightedCode[] = [];
  let total = 0;
  for (const item of items) {
    const m = WEIGHTED_ITEM.exec(item);
    if (!m) return { ok: false, reason: `has ${JSON.stringify(item.slice(0, 32))}, not CODE:WEIGHT (e.g. 500:0.1)` };
    const code = Number(m[1]);
    const weight = Number(m[2]);
    if (code < 100 || code > 599) return { ok: false, reason: `has code ${code}, outside 100–599` };
    if (switchesProtocols(code)) return { ok: false, reason: 'has code 101, which would switch protocols' };
    if (!Number.isFinite(weight)) return { ok: false, reason: `has a weight for ${code} that is not finite` };
    codes.push({ code, weight });
    total += weight;
  }
  if (!(total > 0)) return { ok: false, reason: 'has weights adding up to 0' };
  return { ok: true, value: codes };
}

export const WEIGHTED_STATUS_PARAMS = {
  codes: grammar<readonly WeightedCode[]>({
    accepted: ['CODE:WEIGHT,… (at most 20; CODE 100–599 except 101; WEIGHT ≥ 0, total > 0)'],
    parse: parseWeightedCodes,
    description: 'the codes and their weights; 200:0.9,500:0.1 when absent',
  }),
  seed: str({ maxLength: 256, description: 'same seed, same status; omitted: a fresh seed, reported in X-Chaos-Weighted-Seed' }),
};

/** The drawn code: a pure function of the list and the seed (a draw in [0, total) walked through the cumulative weights). */
export function weightedDraw(codes: readonly WeightedCode[], seed: string): number {
  const total = codes.reduce((sum, c) => sum + c.weight, 0);
  let point = rngFromSeed(`weighted-status:${seed}`).nextFloat() * total;
  for (const c of codes) {
    if (c.weight > 0 && point < c.weight) return c.code;
    point -= c.weight;
  }
  // Rounding can leave the point a hair above the last sum: the last code with any weight.
  return [...codes].reverse().find((c) => c.weight > 0)?.code ?? (codes[0] as WeightedCode).code;
}

export function weightedCodesText(codes: readonly WeightedCode[]): string {
  return codes.map((c) => `${c.code}:${c.weight}`).join(',');
}

export function weightedStatusBody(codes: readonly WeightedCode[], seed: string, drawn: number, status: number): Record<string, unknown> {
  return { endpoint: '/weighted-status', drawn, status, reason: reasonPhrase(status), codes: weightedCodesText(codes), seed };
}
