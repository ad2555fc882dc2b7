// Twin content, fault-injection family: /mix, the composable answer, and the
// public names of the wire faults it takes.
import { grammar, int, list, type ItemOutcome } from '../../primitives/params.js';
import { seededBytes } from '../../primitives/seed.js';

// ---- /mix ------------------------------------------------------------------

/** The longest `delay` part of /mix (ms). */
export const MIX_DELAY_MAX_MS = 15_000;
/** The largest `text:` body and the largest `bytes:N`. */
export const MIX_TEXT_MAX = 4096;
export const MIX_BYTES_MAX = 65_536;
export const MIX_HEADERS_MAX = 20;
/** slow-head and drip send their part of a /mix answer in this many pieces, MS apart. */
export const MIX_PIECES = 10;

export type MixBody = { readonly kind: 'json' } | { readonly kind: 'bytes'; readonly n: number } | { readonly kind: 'text'; readonly text: string };

// ---- /mix's `fault`: the wire faults' public names --------------------------
//
// One entry per wire fault of services/chaos/faults/, by its slug: the one
// argument /mix takes for it (`name` alone takes the default) and what it does
// there. The chaos host binds an implementation to every name here and to no
// other (faults/index.ts does not compile otherwise); /mix's grammar on both
// hosts, its OpenAPI schema, the catalog's values and the table in
// docs/fault-injection.md are all derived from this table.

/** reset-at: where the reset comes. */
export const RESET_PHASES = ['before-head', 'after-head', 'mid-body'] as const;
export type ResetPhase = (typeof RESET_PHASES)[number];

/** chunked-corrupt: how the chunked framing breaks (services/chaos/faults/chunked-corrupt.ts). */
export const CHUNKED_CORRUPTIONS = ['bad-size', 'overstated', 'cut-chunk', 'no-last-chunk', 'junk-extensions', 'junk-trailers', 'cl-and-te'] as const;
export type ChunkedCorruption = (typeof CHUNKED_CORRUPTIONS)[number];

interface IntArgument {
  readonly kind: 'int';
  readonly placeholder: 'MS' | 'N';
  readonly min: number;
  readonly max: number;
  readonly default: number;
}
interface WordArgument<W extends string> {
  readonly kind: 'word';
  readonly placeholder: string;
  readonly values: readonly W[];
  readonly default: W;
}
interface LineArgument {
  readonly kind: 'line';
  readonly placeholder: 'Name:Value';
  readonly default: readonly [string, string];
}
type FaultArgument = IntArgument | WordArgument<string> | LineArgument;

export interface FaultTerm {
  readonly argument: FaultArgument;
  /** What it does to the /mix answer, for the docs. */
  readonly does: string;
  /** The default in words, where the value alone would not say it. */
  readonly defaultMeans?: string;
  /** The most it adds to the answer's time on the wire (ms), for /mix's stated bound. */
  readonly longestMs: number;
}

/** The most one fault adds to a /mix answer (ms): 10 pieces 1 s apart, or a 9 s wait. */
const MIX_FAULT_MAX_MS = (MIX_PIECES - 1) * 1000;

export const FAULT_TERMS = {
  'delay-first-byte': {
    argument: { kind: 'int', placeholder: 'MS', min: 1, max: MIX_FAULT_MAX_MS, default: 1000 },
    does: 'nothing is sent for MS more ms, after `delay`',
    longestMs: MIX_FAULT_MAX_MS,
  },
  'slow-head': {
    argument: { kind: 'int', placeholder: 'MS', min: 1, max: 1000, default: 100 },
    does: `the head in ${MIX_PIECES} pieces, MS apart`,
    longestMs: MIX_FAULT_MAX_MS,
  },
  drip: {
    argument: { kind: 'int', placeholder: 'MS', min: 1, max: 1000, default: 200 },
    does: `the head at once, then the body in ${MIX_PIECES} pieces, MS apart`,
    longestMs: MIX_FAULT_MAX_MS,
  },
  'truncate-at': {
    argument: { kind: 'int', placeholder: 'N', min: 0, max: MIX_BYTES_MAX, default: 512 },
    does: 'N body bytes, then a FIN; the head still promises the whole body',
    longestMs: 0,
  },
  'reset-at': {
    argument: { kind: 'word', placeholder: 'PHASE', values: RESET_PHASES, default: 'mid-body' },
    does: 'a TCP reset: before any byte (`before-head`), right after the head (`after-head`) or after half the body (`mid-body`)',
    longestMs: 0,
  },
  garbage: {
    argument: { kind: 'int', placeholder: 'N', min: 0, max: MIX_BYTES_MAX, default: 1024 },
    does: 'N seeded bytes in place of the answer (the same on every call), then a FIN; `garbage:0` sends nothing at all',
    longestMs: 0,
  },
  'close-early': {
    argument: { kind: 'int', placeholder: 'N', min: 0, max: MIX_BYTES_MAX, default: MIX_BYTES_MAX },
    does: 'the head loses Content-Length and says `Connection: close`; N body bytes, then a FIN that nothing marks as early',
    defaultMeans: 'the whole body',
    longestMs: 0,
  },
  'header-inject': {
    argument: { kind: 'line', placeholder: 'Name:Value', default: ['Content-Length', '0'] },
    does: "one header line added after the head's own, as it is: unlike the `header` part it may name the framing and the connection (a second `Content-Length`, `Transfer-Encoding`, `Connection`); never `X-Chaos-*`, never a control character",
    defaultMeans: 'Content-Length:0, a second length that contradicts the first',
    longestMs: 0,
  },
  'chunked-corrupt': {
    argument: { kind: 'word', placeholder: 'KIND', values: CHUNKED_CORRUPTIONS, default: 'bad-size' },
    does:
      "the body goes out chunked and its framing breaks one way: `bad-size`, `cut-chunk` (/chunked's `size-too-large`), `no-last-chunk` (its `missing-terminator`), " +
      '`junk-extensions`, `junk-trailers` and `cl-and-te` as [/chunked](#get-chunked) describes them; `overstated`: every size line claims one byte more than follows',
    longestMs: 0,
  },
} as const satisfies Readonly<Record<string, FaultTerm>>;

export type FaultName = keyof typeof FAULT_TERMS;
export const FAULT_NAMES = Object.keys(FAULT_TERMS) as readonly FaultName[];

/** The value a fault's argument parses to. */
type ArgumentValue<A> = A extends { readonly kind: 'int' }
  ? number
  : A extends { readonly kind: 'word'; readonly values: readonly (infer W)[] }
    ? W
    : readonly [string, string];
export type FaultArgumentOf<N extends FaultName> = ArgumentValue<(typeof FAULT_TERMS)[N]['argument']>;

/** A parsed `fault` part: the fault, its argument, and how X-Chaos-Mix names it (canonical spelling; a header-inject line by its name only). */
export type MixFault = {
  readonly [N in FaultName]: { readonly name: N; readonly argument: FaultArgumentOf<N>; readonly spelled: string };
}[FaultName];

/**
 * The spellings /mix took before its faults were named as the registry names
 * them (docs promised them): each still parses as the fault it meant, and
 * X-Chaos-Mix names that fault. A whole value, or a name before its argument.
 */
export const FAULT_ALIASES: Readonly<Record<string, string>> = {
  'reset-before-head': 'reset-at:before-head',
  'reset-mid-body': 'reset-at:mid-body',
  'chunked-bad-size': 'chunked-corrupt:bad-size',
  empty: 'garbage:0',
};
export const FAULT_NAME_ALIASES: Readonly<Record<string, FaultName>> = { truncate: 'truncate-at' };

/** One fault's forms, as the catalog lists them: `name[:ARG] (…)`. */
export function faultForm(name: FaultName): string {
  const a: FaultArgument = FAULT_TERMS[name].argument;
  const range = a.kind === 'int' ? `${a.placeholder} ${a.min}–${a.max}` : a.kind === 'word' ? `${a.placeholder} ${a.values.join(', ')}` : 'a header line';
  return `${name}[:${a.placeholder}] (${range}; default ${defaultText(name)})`;
}

/** A fault's default argument in words. */
export function defaultText(name: FaultName): string {
  const term: FaultTerm = FAULT_TERMS[name];
  if (term.defaultMeans !== undefined) return term.defaultMeans;
  const a = term.argument;
  return a.kind === 'line' ? `${a.default[0]}:${a.default[1]}` : String(a.default);
}

const TOKEN_CHARS = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
const VALUE_CHARS = '[\\t\\x20-\\x7e\\x80-\\xff]*';

function argumentPattern(a: FaultArgument): string {
  if (a.kind === 'int') return '\\d+';
  return a.kind === 'word' ? `(?:${a.values.join('|')})` : `${TOKEN_CHARS}:${VALUE_CHARS}`;
}

/** Values that take an argument (`name:ARG`), older spellings included: the second half of the OpenAPI schema. */
const FAULT_ARGUMENT_PATTERN = `^(?:${[
  ...FAULT_NAMES.map((name) => `${name}:${argumentPattern(FAULT_TERMS[name].argument)}`),
  ...Object.entries(FAULT_NAME_ALIASES).map(([alias, name]) => `${alias}:${argumentPattern(FAULT_TERMS[name].argument)}`),
  ...Object.keys(FAULT_ALIASES),
].join('|')})$`;
const FAULT_PATTERN = `^(?:${[...FAULT_NAMES, FAULT_ARGUMENT_PATTERN.slice(4, -2)].join('|')})$`;

const TOKEN = new RegExp(`^${TOKEN_CHARS}$`);
/** Field values: visible ASCII, Latin-1 and inner spaces or tabs (RFC 9110 §5.5); no CR, LF or NUL. */
const FIELD_VALUE = new RegExp(`^${VALUE_CHARS}$`);
/** Lines a user header must not set: the framing, the connection, and the service's own X-Chaos-*. */
const RESERVED = /^(content-length|transfer-encoding|connection|keep-alive|upgrade|te|trailer|date|x-chaos-.*)$/i;
/** What header-inject may not set either: the lines that tell chaos from failure. */
const CHAOS_LINE = /^x-chaos-/i;

function integerIn(raw: string, min: number, max: number): number | undefined {
  if (!/^\d{1,6}$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= min && n <= max ? n : undefined;
}

/** `Name:Value` as a header line: a token name, a value without control characters (spaces and tabs at its ends trimmed). */
function headerLine(raw: string, refused: RegExp): ItemOutcome<readonly [string, string]> {
  const colon = raw.indexOf(':');
  if (colon === -1) return { ok: false, reason: 'must be Name:Value' };
  const name = raw.slice(0, colon);
  // Only spaces and tabs are trimmed (RFC 9110 §5.5 OWS): a CR or LF at either end is refused below.
  const value = raw.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
  if (!TOKEN.test(name)) return { ok: false, reason: 'the name must be an HTTP token' };
  if (refused.test(name)) return { ok: false, reason: `${name} is set by the service` };
  if (!FIELD_VALUE.test(value)) return { ok: false, reason: 'the value holds a control character' };
  return { ok: true, value: [name, value] };
}

export function parseMixHeader(raw: string): ItemOutcome<readonly [string, string]> {
  return headerLine(raw, RESERVED);
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

function isFaultName(name: string): name is FaultName {
  return Object.hasOwn(FAULT_TERMS, name);
}

/** `name` or `name:ARG` (an older spelling parses as what it meant); a reason names the form as it was written. */
export function parseMixFault(raw: string): ItemOutcome<MixFault> {
  const value = FAULT_ALIASES[raw] ?? raw;
  const colon = value.indexOf(':');
  const written = colon === -1 ? value : value.slice(0, colon);
  const name = FAULT_NAME_ALIASES[written] ?? written;
  if (!isFaultName(name)) return { ok: false, reason: `is not a fault /mix knows (${FAULT_NAMES.join(', ')})` };
  const a: FaultArgument = FAULT_TERMS[name].argument;
  if (colon === -1) return { ok: true, value: { name, argument: a.default, spelled: name } as MixFault };
  const text = value.slice(colon + 1);
  const form = `${written}:${a.placeholder}`;
  if (a.kind === 'int') {
    const n = integerIn(text, a.min, a.max);
    return n === undefined ? { ok: false, reason: `${form} takes ${a.placeholder} from ${a.min} to ${a.max}` } : { ok: true, value: { name, argument: n, spelled: `${name}:${n}` } as MixFault };
  }
  if (a.kind === 'word') {
    return a.values.includes(text) ? { ok: true, value: { name, argument: text, spelled: `${name}:${text}` } as MixFault } : { ok: false, reason: `${form} takes one of ${a.values.join(', ')}` };
  }
  const line = headerLine(text, CHAOS_LINE);
  // X-Chaos-Mix names header lines, never their values.
  return line.ok ? { ok: true, value: { name, argument: line.value, spelled: `${name}:${line.value[0]}` } as MixFault } : { ok: false, reason: `${form}: ${line.reason}` };
}

export const MIX_PARAMS = {
  status: int({ min: 200, max: 599, default: 200, description: 'the status of the answer' }),
  delay: int({ min: 0, max: MIX_DELAY_MAX_MS, default: 0, description: 'ms before the first byte' }),
  header: list({
    maxItems: MIX_HEADERS_MAX,
    item: 'Name:Value',
    pattern: `^${TOKEN_CHARS}:${VALUE_CHARS}$`,
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
    accepted: FAULT_NAMES.map(faultForm),
    names: FAULT_NAMES,
    argumentPattern: FAULT_ARGUMENT_PATTERN,
    pattern: FAULT_PATTERN,
    parse: parseMixFault,
    description: `one wire fault (chaos host only), by its name; older spellings still accepted: ${Object.keys(FAULT_ALIASES).join(', ')}, ${Object.keys(FAULT_NAME_ALIASES).map((n) => `${n}:N`).join(', ')}`,
  }),
};

/** A body part's name as X-Chaos-Mix lists it. */
export function mixBodyName(body: MixBody): string {
  if (body.kind === 'bytes') return `bytes:${body.n}`;
  return body.kind === 'text' ? 'text' : 'json';
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
  if (fault) parts.push(`fault=${fault.spelled}`);
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
