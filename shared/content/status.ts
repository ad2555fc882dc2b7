// Twin content, status family: /status/{code}, /status-line, /weighted-status.
// What the status endpoints share between the chaos host and their control
// twins: parameters, bodies and the seeded draws, so a twin serves the same
// resource and only the lie differs.
import { reasonPhrase } from '../primitives/headers.js';
import { jsonBody } from '../primitives/json.js';
import { grammar, int, oneOf, str, type ItemOutcome } from '../primitives/params.js';
import { rngFromSeed } from '../primitives/seed.js';

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
