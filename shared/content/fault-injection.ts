// Twin content, fault-injection family (wire faults): /reset, /empty,
// /garbage, /chunked, /keepalive-lie, /fail-first. The parameters and the
// honest bodies both hosts derive from: the chaos host breaks the delivery of
// these bodies, its control twin delivers them whole (or says in JSON what the
// chaos host would have done).
import { grammar, int, list, oneOf, str, type ItemOutcome } from '../primitives/params.js';
import { seededBytes } from '../primitives/seed.js';
import { idKey } from '../store/types.js';

// ---- /reset ----------------------------------------------------------------

export const RESET_PARAMS = {
  phase: oneOf(['before-head', 'after-head', 'mid-body'], {
    default: 'before-head',
    description: 'where the TCP reset comes: before any byte, right after the head, or after `after` body bytes',
  }),
  after: int({ min: 0, max: 65_536, default: 512, description: 'mid-body: body bytes sent before the reset' }),
};

/** The declared body of /reset: `after` + RESET_BODY_TAIL bytes, so a mid-body reset always cuts it. */
export const RESET_BODY_TAIL = 1024;

export function resetBody(after: number): Buffer {
  return Buffer.alloc(after + RESET_BODY_TAIL, 'reset body line\n', 'latin1');
}

export function resetTwinBody(phase: string, after: number): Record<string, unknown> {
  const what: Record<string, string> = {
    'before-head': 'reset the connection before sending any byte',
    'after-head': 'send the complete head, then reset the connection instead of the body',
    'mid-body': `send the head and ${after} of the ${after + RESET_BODY_TAIL} body bytes, then reset the connection`,
  };
  return { endpoint: '/reset', phase, after, chaos_would: what[phase] };
}

// ---- /empty ----------------------------------------------------------------

export const EMPTY_TWIN_BODY = { endpoint: '/empty', chaos_would: 'read the request, then close the connection without sending a byte' };

// ---- /garbage --------------------------------------------------------------

export const GARBAGE_PARAMS = {
  n: int({ min: 1, max: 65_536, default: 1024, description: 'random bytes sent instead of a response' }),
  // No head carries a report on the chaos host, so the default seed is fixed
  // (as /bytes'): a call without a seed replays as it is.
  seed: str({ maxLength: 256, default: '42', description: 'same seed, same bytes' }),
};

/** The bytes /garbage sends and its twin frames honestly. */
export function garbageBytes(seed: string, n: number): Buffer {
  return seededBytes(`garbage:${seed}`, n);
}

// ---- /chunked --------------------------------------------------------------

export const CHUNKED_MODES = ['bad-size', 'size-too-large', 'missing-terminator', 'junk-extensions', 'junk-trailers', 'cl-and-te'] as const;
export type ChunkedMode = (typeof CHUNKED_MODES)[number];

export const CHUNKED_PARAMS = {
  mode: oneOf(CHUNKED_MODES, { default: 'bad-size', description: 'how the chunked framing lies' }),
};

/** The body of /chunked in the pieces that become its chunks: a JSON document in three chunks. */
export function chunkedParts(mode: string): readonly Buffer[] {
  return [`{"endpoint":"/chunked",`, `"mode":${JSON.stringify(mode)},`, `"chunks":3}\n`].map((s) => Buffer.from(s, 'latin1'));
}

// ---- /keepalive-lie --------------------------------------------------------

/** What the chaos host promises, and breaks by closing right after the response. */
export const KEEPALIVE_PROMISE = 'timeout=60';

export function keepaliveBody(honest: boolean): Record<string, unknown> {
  return honest
    ? { endpoint: '/keepalive-lie', keep_alive: true, chaos_would: 'promise Keep-Alive: timeout=60, then close the connection right after this response' }
    : { endpoint: '/keepalive-lie', keep_alive: true };
}

// ---- /fail-first -----------------------------------------------------------

export const FAIL_FIRST_PARAMS = {
  id: str({ minLength: 1, maxLength: 128, required: true, description: 'client-supplied token; calls are counted per id' }),
  n: int({ min: 1, max: 100, default: 3, description: 'calls that fail before the first success' }),
  status: int({ min: 400, max: 599, default: 503, description: 'status of the failing calls' }),
  ttl: int({ min: 1, max: 3600, default: 300, description: 'seconds from the first call until the count starts again' }),
};

/** The count of an id: a fixed-size digest, as for /retry-mismatch records. */
export function failFirstStoreKey(id: string): string {
  return idKey('fail-first', id);
}

export function failFirstBody(id: string, attempt: number | null, failed: boolean, status: number, n: number, ttl: number): Record<string, unknown> {
  return { endpoint: '/fail-first', id, attempt, failed, status, fail_first: n, ttl };
}

// ---- /mix ------------------------------------------------------------------

/** The largest `text:` body and the largest `bytes:N`. */
/** The longest `delay` part of /mix (ms). */
export const MIX_DELAY_MAX_MS = 15_000;
export const MIX_TEXT_MAX = 4096;
export const MIX_BYTES_MAX = 65_536;
export const MIX_HEADERS_MAX = 20;

export type MixBody = { readonly kind: 'json' } | { readonly kind: 'bytes'; readonly n: number } | { readonly kind: 'text'; readonly text: string };

export type MixFault =
  | { readonly kind: 'reset-before-head' | 'reset-mid-body' | 'empty' | 'garbage' | 'chunked-bad-size' }
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'slow-head'; readonly ms: number };

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Field values: visible ASCII, Latin-1 and inner spaces or tabs (RFC 9110 §5.5); no CR, LF or NUL. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Lines a user header must not set: the framing, the connection, and the service's own X-Chaos-*. */
const RESERVED = /^(content-length|transfer-encoding|connection|keep-alive|upgrade|te|trailer|date|x-chaos-.*)$/i;

function integerIn(raw: string, min: number, max: number): number | undefined {
  if (!/^\d{1,6}$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= min && n <= max ? n : undefined;
}

export function parseMixHeader(raw: string): ItemOutcome<readonly [string, string]> {
  const colon = raw.indexOf(':');
  if (colon === -1) return { ok: false, reason: 'must be Name:Value' };
  const name = raw.slice(0, colon);
  // Only spaces and tabs are trimmed (RFC 9110 §5.5 OWS): a CR or LF at either end is refused below.
  const value = raw.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
  if (!TOKEN.test(name)) return { ok: false, reason: 'the name must be an HTTP token' };
  if (RESERVED.test(name)) return { ok: false, reason: `${name} is set by the service` };
  if (!FIELD_VALUE.test(value)) return { ok: false, reason: 'the value holds a control character' };
  return { ok: true, value: [name, value] };
}

export function parseMixBody(raw: string): ItemOutcome<MixBody> {
  if (raw === 'json') return { ok: true, value: { kind: 'json' } };
  if (raw.startsWith('bytes:')) {
    const n = integerIn(raw.slice(6), 0, MIX_BYTES_MAX);
    return n === undefined ? { ok: false, reason: `bytes:N takes N from 0 to ${MIX_BYTES_MAX}` } : { ok: true, value: { kind: 'bytes', n } };
  }
  if (raw.startsWith('text:')) {
    const text = raw.slice(5);
    return Buffer.byteLength(text) > MIX_TEXT_MAX ? { ok: false, reason: `text: takes at most ${MIX_TEXT_MAX} bytes` } : { ok: true, value: { kind: 'text', text } };
  }
  return { ok: false, reason: 'must be json, bytes:N or text:…' };
}

const BARE_FAULTS = new Set(['reset-before-head', 'reset-mid-body', 'empty', 'garbage', 'chunked-bad-size']);

export function parseMixFault(raw: string): ItemOutcome<MixFault> {
  if (BARE_FAULTS.has(raw)) return { ok: true, value: { kind: raw as 'empty' } };
  if (raw.startsWith('truncate:')) {
    const at = integerIn(raw.slice(9), 0, MIX_BYTES_MAX);
    return at === undefined ? { ok: false, reason: `truncate:N takes N from 0 to ${MIX_BYTES_MAX}` } : { ok: true, value: { kind: 'truncate', at } };
  }
  if (raw.startsWith('slow-head:')) {
    const ms = integerIn(raw.slice(10), 1, 1000);
    return ms === undefined ? { ok: false, reason: 'slow-head:MS takes MS from 1 to 1000' } : { ok: true, value: { kind: 'slow-head', ms } };
  }
  return { ok: false, reason: 'is not a fault /mix knows' };
}

export const MIX_PARAMS = {
  status: int({ min: 200, max: 599, default: 200, description: 'the status of the answer' }),
  delay: int({ min: 0, max: MIX_DELAY_MAX_MS, default: 0, description: 'ms before the first byte' }),
  header: list({
    maxItems: MIX_HEADERS_MAX,
    item: 'Name:Value',
    pattern: "^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+:[\\t\\x20-\\x7e\\x80-\\xff]*$",
    parseItem: parseMixHeader,
    description: 'a header line to add (repeatable)',
  }),
  body: grammar<MixBody>({
    accepted: ['json', 'bytes:N (0–65536)', 'text:… (at most 4096 bytes)'],
    pattern: '^(json|bytes:\\d+|text:[\\s\\S]*)$',
    parse: parseMixBody,
    description: 'the body (json when absent)',
  }),
  fault: grammar<MixFault>({
    accepted: ['reset-before-head', 'reset-mid-body', 'truncate:N (0–65536)', 'empty', 'garbage', 'chunked-bad-size', 'slow-head:MS (1–1000)'],
    pattern: '^(reset-before-head|reset-mid-body|empty|garbage|chunked-bad-size|truncate:\\d+|slow-head:\\d+)$',
    parse: parseMixFault,
    description: 'one wire fault (chaos host only)',
  }),
};

/** A body part's name as X-Chaos-Mix lists it. */
export function mixBodyName(body: MixBody): string {
  if (body.kind === 'bytes') return `bytes:${body.n}`;
  return body.kind === 'text' ? 'text' : 'json';
}

export function mixFaultName(fault: MixFault): string {
  if (fault.kind === 'truncate') return `truncate:${fault.at}`;
  return fault.kind === 'slow-head' ? `slow-head:${fault.ms}` : fault.kind;
}

/** The body and its type; bytes:N are seeded ('mix'), the same on both hosts. */
export function mixContent(body: MixBody, status: number): { readonly type: string; readonly bytes: Buffer } {
  switch (body.kind) {
    case 'bytes':
      return { type: 'application/octet-stream', bytes: seededBytes('mix', body.n) };
    case 'text':
      return { type: 'text/plain; charset=utf-8', bytes: Buffer.from(body.text, 'utf8') };
    case 'json':
      return { type: 'application/json', bytes: Buffer.from(`${JSON.stringify({ endpoint: '/mix', status })}\n`) };
  }
}

/** X-Chaos-Mix: the parts applied, in the order they act (status, delay, headers, body, fault). */
export function mixParts(status: number, delay: number, headers: readonly (readonly [string, string])[], body: MixBody, fault: MixFault | undefined): string {
  const parts = [`status=${status}`];
  if (delay > 0) parts.push(`delay=${delay}`);
  for (const [name] of headers) parts.push(`header=${name}`);
  parts.push(`body=${mixBodyName(body)}`);
  if (fault) parts.push(`fault=${mixFaultName(fault)}`);
  return parts.join(', ');
}

/** A Content-Type header part replaces the body's type: the type to send and the other lines. */
export function ownContentType(
  lines: readonly (readonly [string, string])[],
  content: { readonly type: string },
): { readonly type: string; readonly lines: [string, string][] } {
  const own = lines.findIndex(([name]) => name.toLowerCase() === 'content-type');
  const rest = lines.filter((_, i) => i !== own).map(([name, value]): [string, string] => [name, value]);
  return { type: own === -1 ? content.type : (lines[own] as readonly [string, string])[1], lines: rest };
}
