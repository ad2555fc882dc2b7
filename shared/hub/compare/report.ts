// What one compare found, as data: each side's bytes read as a client would
// (status, head lines as sent, the X-Chaos-* explanation, framing, body, how
// the connection ended) and the differences between the two. The JSON form
// is this object; the HTML page renders it.
import { CHAOS_PREFIX } from '../../primitives/headers.js';
import type { HostName } from '../../config/config.js';
import { parseResponse, type Framing, type ParsedResponse } from './response.js';
import type { Capture, Upstream, WireEnd, WireLimits } from './wire.js';

export interface HeadLineReport {
  readonly raw: string;
  readonly name: string | null;
  readonly value: string | null;
  readonly line_end: 'crlf' | 'lf';
  /** An X-Chaos-* line: the service explaining what it did. */
  readonly chaos: boolean;
  readonly notes: readonly string[];
}

export interface FramingReport {
  /** content-length, chunked, until-close (no length: the close ends the body), conflicting-length, no-body; none without a head. */
  readonly kind: Framing['kind'] | 'none';
  readonly content_length?: number;
  readonly content_length_values?: readonly string[];
  readonly decoded_bytes?: number;
  readonly problem?: string;
  /** Bytes after the head, framing included. */
  readonly body_bytes: number;
  /** The framing says the response is complete. */
  readonly complete: boolean;
  /** Bytes beyond the framed end. */
  readonly excess_bytes: number;
}

export interface SideReport {
  readonly host: HostName;
  readonly url: string;
  /** host:port the socket went to. */
  readonly connected_to: string;
  /** The request head sent. */
  readonly request: string;
  readonly elapsed_ms: number;
  readonly first_byte_ms: number | null;
  readonly bytes_received: number;
  readonly end: { readonly kind: WireEnd; readonly code: string | null; readonly detail: string };
  /** Status lines of interim (1xx) heads, in order. */
  readonly interim: readonly string[];
  readonly head_complete: boolean;
  /** The first bytes cannot begin an HTTP/1.x response. */
  readonly not_http: boolean;
  readonly status_line: string | null;
  readonly status_line_end: 'crlf' | 'lf' | null;
  readonly status: number | null;
  readonly status_notes: readonly string[];
  readonly head_lines: readonly HeadLineReport[];
  /** The X-Chaos-* lines, pulled out: what the service says it did. */
  readonly explanation: readonly { readonly name: string; readonly value: string }[];
  readonly framing: FramingReport;
  /** After the head (everything, without one): as UTF-8 text (invalid bytes replaced) and exactly, in base64. */
  readonly body: { readonly bytes: number; readonly text: string; readonly base64: string };
  /** What a careful client would notice on this side alone. */
  readonly notes: readonly string[];
}

export interface Difference {
  readonly kind: 'status' | 'interim' | 'ending' | 'framing' | 'headers-one-side' | 'header-values' | 'body';
  readonly detail: string;
}

export interface CompareReport {
  /** The path and query compared, as given. */
  readonly path: string;
  readonly endpoint: { readonly id: string; readonly path: string; readonly category: string };
  readonly limits: { readonly timeout_ms: number; readonly max_bytes: number };
  readonly chaos: SideReport;
  /** The twin's side; null when the endpoint has none (`twin_note` says so). */
  readonly twin: SideReport | null;
  readonly twin_note: string | null;
  /** Empty when both sides agree in status (the reason phrase's case aside), ending, framing, headers (Date, X-Chaos-* and connection management aside) and body. */
  readonly differences: readonly Difference[];
}

/** Headers that differ on every pair of answers for no reason worth reporting. */
const UNCOMPARED = new Set(['date']);

/**
 * Connection management (RFC 9110 §7.6.1): hop-by-hop fields that a proxy in
 * front of a side rewrites. HAProxy in http mode (the front door of the control
 * host) answers the compare's `Connection: close` with its own `connection: close`
 * and passes on the `Keep-Alive` that the twin sent to HAProxy's keep-alive
 * request, while the chaos host's tcp route passes every byte. Compared as sent
 * they differ on every compare through the front door; what is compared instead
 * is what they promise (see `keepsOpen`).
 */
export const CONNECTION_FIELDS: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-connection']);

/** Whether a side's head promises a persistent connection: `Connection: keep-alive` without `close`. */
function keepsOpen(side: SideReport): boolean {
  const tokens = side.head_lines
    .filter((l) => l.name?.toLowerCase() === 'connection')
    .flatMap((l) => (l.value ?? '').split(','))
    .map((v) => v.trim().toLowerCase());
  return tokens.includes('keep-alive') && !tokens.includes('close');
}

/** The Connection lines as received, for the words of a difference. */
function connectionWords(side: SideReport): string {
  const values = side.head_lines.filter((l) => l.name?.toLowerCase() === 'connection').map((l) => shown(l.value ?? ''));
  return values.length > 0 ? `Connection: ${values.join(' + ')}` : 'no Connection field';
}

/** Status lines equal but for the reason phrase's case ("I'm a teapot", "I'm a Teapot"): clients ignore the phrase. */
function sameStatusLine(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  const split = (line: string) => /^(\S* \S*)(?: (.*))?$/.exec(line);
  const x = split(a);
  const y = split(b);
  if (!x || !y) return a === b;
  return x[1] === y[1] && (x[2] ?? '').toLowerCase() === (y[2] ?? '').toLowerCase() && (x[2] === undefined) === (y[2] === undefined);
}

function isChaosLine(name: string | undefined): boolean {
  return name !== undefined && name.toLowerCase().startsWith(CHAOS_PREFIX.toLowerCase());
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Where the body stood when the connection ended, in words: "Content-Length 20, 10 body bytes received". */
function bodyProgress(parsed: ParsedResponse): string {
  const framing = parsed.framing;
  if (framing === undefined) return '';
  if (framing.kind === 'content-length') return ` (Content-Length ${framing.declared}, ${plural(parsed.body.length, 'body byte')} received)`;
  if (framing.kind === 'chunked') return ` (chunked: ${plural(framing.decodedBytes, 'byte')} of chunk data${framing.complete ? ', last chunk received' : ', no last chunk yet'})`;
  return ` (${plural(parsed.body.length, 'body byte')} received)`;
}

/** How the connection ended, in one sentence a person can act on. */
function endDetail(upstream: Upstream, capture: Capture, parsed: ParsedResponse, limits: WireLimits): string {
  const n = capture.bytes.length;
  const at = `${upstream.connect.host}:${upstream.connect.port}`;
  switch (capture.end) {
    case 'connect-failed':
      return upstream.unreachable ?? `could not connect to ${at}${capture.errorCode ? ` (${capture.errorCode})` : ''}`;
    case 'aborted':
      return 'not finished: the compare was cancelled';
    case 'timeout':
      return `timeout: no end within ${limits.timeoutMs} ms, stopped reading after ${plural(n, 'byte')}${bodyProgress(parsed)}`;
    case 'byte-limit':
      return `stopped after ${plural(n, 'byte')} (the compare keeps at most ${limits.maxBytes} per side): the response is longer${bodyProgress(parsed)}`;
    case 'complete-open':
      return `complete by its framing; the connection stayed open for ${limits.settleMs} ms more although the request said Connection: close`;
    case 'reset':
    case 'error': {
      const what = capture.end === 'reset' ? `reset (${capture.errorCode ?? 'ECONNRESET'})` : `socket error (${capture.errorCode ?? 'unknown'})`;
      if (n === 0) return `${what} before any byte`;
      if (!parsed.head) return `${what} after ${plural(n, 'byte')}, before a complete head`;
      return `${what} ${parsed.complete ? 'after the complete response' : 'mid-body'}${bodyProgress(parsed)}`;
    }
    case 'close': {
      if (n === 0) return 'clean close (FIN) before any byte: an empty reply';
      if (parsed.notHttp) return `clean close (FIN) after ${plural(n, 'byte')} that are not an HTTP response`;
      if (!parsed.head) return `clean close (FIN) after ${plural(n, 'byte')}, before a complete head`;
      const framing = parsed.framing as Framing;
      if (framing.kind === 'until-close') return `clean close (FIN): it ends a body without Content-Length or chunked framing${bodyProgress(parsed)}`;
      if (framing.kind === 'conflicting-length') return `clean close (FIN) after a body with conflicting Content-Length values${bodyProgress(parsed)}`;
      if (parsed.complete) return parsed.excess > 0 ? `clean close (FIN) after the complete response and ${plural(parsed.excess, 'byte')} more` : 'clean close (FIN) after the complete response';
      if (framing.kind === 'chunked' && framing.problem) return `clean close (FIN); the chunked framing is broken: ${framing.problem}`;
      return `clean close (FIN) mid-body: the response ended early${bodyProgress(parsed)}`;
    }
  }
}

function framingReport(parsed: ParsedResponse): FramingReport {
  const base = { body_bytes: parsed.body.length, complete: parsed.complete, excess_bytes: parsed.excess };
  const f = parsed.framing;
  if (f === undefined) return { kind: 'none', ...base };
  if (f.kind === 'content-length') return { kind: f.kind, content_length: f.declared, ...base };
  if (f.kind === 'conflicting-length') return { kind: f.kind, content_length_values: f.values, ...base };
  if (f.kind === 'chunked') return { kind: f.kind, decoded_bytes: f.decodedBytes, ...(f.problem ? { problem: f.problem } : {}), ...base };
  return { kind: f.kind, ...base };
}

/** Findings on one side alone: body against its framing, repeated fields, odd lines. */
function sideNotes(parsed: ParsedResponse): string[] {
  const notes: string[] = [];
  if (parsed.notHttp) notes.push('the bytes are not an HTTP response: no status line');
  const head = parsed.head;
  if (!head) return notes;
  const f = parsed.framing as Framing;
  if (f.kind === 'content-length' && parsed.body.length < f.declared) {
    notes.push(`Content-Length says ${f.declared}; ${plural(parsed.body.length, 'body byte')} arrived (${f.declared - parsed.body.length} short)`);
  }
  if (parsed.excess > 0) notes.push(`${plural(parsed.excess, 'byte')} beyond the end the framing declares`);
  if (f.kind === 'conflicting-length') notes.push(`Content-Length values disagree or are not numbers: ${f.values.join(', ')}`);
  if (f.kind === 'chunked' && f.problem) notes.push(`chunked framing broken: ${f.problem}`);
  const names = head.lines.map((l) => l.name?.toLowerCase()).filter((n): n is string => n !== undefined);
  if (names.includes('transfer-encoding') && names.includes('content-length')) {
    notes.push('Transfer-Encoding and Content-Length together: Transfer-Encoding wins (RFC 9112 §6.3), a proxy must not pass it on as is');
  }
  const counts = new Map<string, { shown: string; n: number }>();
  for (const line of head.lines) {
    if (line.name === undefined) continue;
    const key = line.name.toLowerCase();
    const seen = counts.get(key);
    if (seen) seen.n++;
    else counts.set(key, { shown: line.name, n: 1 });
  }
  // Several Set-Cookie lines are how cookies are sent; any other repeated field is worth a look.
  for (const [key, { shown, n }] of counts) if (n > 1 && key !== 'set-cookie') notes.push(`${shown} sent ${n} times`);
  const odd = head.lines.filter((l) => l.notes.length > 0).length + (head.statusNotes.length > 0 ? 1 : 0);
  if (odd > 0) notes.push(`${plural(odd, 'head line')} a strict parser refuses or reads differently (marked below)`);
  return notes;
}

/** One side of the compare, from what was sent and what came back. */
export function sideReport(host: HostName, upstream: Upstream, capture: Capture, limits: WireLimits): SideReport {
  const parsed = parseResponse(capture.bytes);
  const head = parsed.head;
  const lines = head?.lines ?? [];
  return {
    host,
    url: upstream.url,
    connected_to: `${upstream.connect.host.includes(':') ? `[${upstream.connect.host}]` : upstream.connect.host}:${upstream.connect.port}`,
    request: upstream.request,
    elapsed_ms: Math.round(capture.elapsedMs),
    first_byte_ms: capture.firstByteMs === undefined ? null : Math.round(capture.firstByteMs),
    bytes_received: capture.bytes.length,
    end: { kind: capture.end, code: capture.errorCode ?? null, detail: endDetail(upstream, capture, parsed, limits) },
    interim: parsed.interim.map((h) => h.statusLine),
    head_complete: head !== undefined,
    not_http: parsed.notHttp,
    status_line: head?.statusLine ?? null,
    status_line_end: head?.statusLineEnd ?? null,
    status: head?.status ?? null,
    status_notes: head?.statusNotes ?? [],
    head_lines: lines.map((l) => ({ raw: l.raw, name: l.name ?? null, value: l.value ?? null, line_end: l.lineEnd, chaos: isChaosLine(l.name), notes: l.notes })),
    explanation: lines.filter((l) => isChaosLine(l.name)).map((l) => ({ name: l.name as string, value: l.value as string })),
    framing: framingReport(parsed),
    body: { bytes: parsed.body.length, text: parsed.body.toString('utf8'), base64: parsed.body.toString('base64') },
    notes: sideNotes(parsed),
  };
}

/** A value shown in a difference: quoted, cut at 60 characters. */
function shown(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
}

/** Field name (lower case) → its name as first sent and its values, without the uncompared and X-Chaos-* lines. */
function compared(side: SideReport): Map<string, { name: string; values: string[] }> {
  const fields = new Map<string, { name: string; values: string[] }>();
  for (const line of side.head_lines) {
    if (line.name === null || line.chaos || UNCOMPARED.has(line.name.toLowerCase()) || CONNECTION_FIELDS.has(line.name.toLowerCase())) continue;
    const key = line.name.toLowerCase();
    const field = fields.get(key);
    if (field) field.values.push(line.value ?? '');
    else fields.set(key, { name: line.name, values: [line.value ?? ''] });
  }
  return fields;
}

function framingWords(f: FramingReport): string {
  switch (f.kind) {
    case 'content-length':
      return `Content-Length ${f.content_length}`;
    case 'conflicting-length':
      return `conflicting Content-Length (${(f.content_length_values ?? []).join(', ')})`;
    case 'chunked':
      return 'chunked';
    case 'until-close':
      return 'no length (the close ends the body)';
    case 'no-body':
      return 'no body';
    case 'none':
      return 'no complete head';
  }
}

/** What tells the two answers apart, most telling first. */
export function differences(chaos: SideReport, twin: SideReport): Difference[] {
  const found: Difference[] = [];
  if (chaos.status !== twin.status) {
    found.push({ kind: 'status', detail: `status: chaos ${chaos.status ?? 'none'}, twin ${twin.status ?? 'none'}` });
  } else if (!sameStatusLine(chaos.status_line, twin.status_line)) {
    found.push({ kind: 'status', detail: `status line: chaos ${shown(chaos.status_line ?? '')}, twin ${shown(twin.status_line ?? '')}` });
  }
  if (chaos.interim.length !== twin.interim.length) {
    found.push({ kind: 'interim', detail: `interim (1xx) heads: chaos ${chaos.interim.length}, twin ${twin.interim.length}` });
  }
  const ending = (s: SideReport) => `${s.end.kind}${s.framing.complete ? ', complete' : ', incomplete'}`;
  if (ending(chaos) !== ending(twin)) found.push({ kind: 'ending', detail: `ending: chaos ${chaos.end.detail}; twin ${twin.end.detail}` });
  // Without a head on one side, the status and the ending already say it all.
  if (!chaos.head_complete || !twin.head_complete) return [...found, ...bodyDifference(chaos, twin)];
  if (chaos.framing.kind !== twin.framing.kind) {
    found.push({ kind: 'framing', detail: `framing: chaos ${framingWords(chaos.framing)}, twin ${framingWords(twin.framing)}` });
  }
  const a = compared(chaos);
  const b = compared(twin);
  const onlyChaos = [...a.keys()].filter((k) => !b.has(k)).map((k) => a.get(k)?.name);
  const onlyTwin = [...b.keys()].filter((k) => !a.has(k)).map((k) => b.get(k)?.name);
  if (keepsOpen(chaos) !== keepsOpen(twin)) {
    const words = (s: SideReport) => `${keepsOpen(s) ? 'keeps the connection open' : 'does not'} (${connectionWords(s)})`;
    found.push({ kind: 'header-values', detail: `connection: chaos ${words(chaos)}, twin ${words(twin)}` });
  }
  if (onlyChaos.length > 0) found.push({ kind: 'headers-one-side', detail: `only chaos sends: ${onlyChaos.join(', ')}` });
  if (onlyTwin.length > 0) found.push({ kind: 'headers-one-side', detail: `only the twin sends: ${onlyTwin.join(', ')}` });
  for (const [key, field] of a) {
    const other = b.get(key);
    if (!other || other.values.join('\n') === field.values.join('\n')) continue;
    const values = (f: { values: string[] }) => f.values.map(shown).join(' + ');
    found.push({ kind: 'header-values', detail: `${field.name}: chaos ${values(field)}, twin ${values(other)}` });
  }
  return [...found, ...bodyDifference(chaos, twin)];
}

/** Whether the bytes after the heads differ, and where. */
function bodyDifference(chaos: SideReport, twin: SideReport): Difference[] {
  const chaosBody = Buffer.from(chaos.body.base64, 'base64');
  const twinBody = Buffer.from(twin.body.base64, 'base64');
  if (chaosBody.equals(twinBody)) return [];
  let at = 0;
  while (at < chaosBody.length && at < twinBody.length && chaosBody[at] === twinBody[at]) at++;
  return [{
    kind: 'body',
    detail: chaosBody.length === twinBody.length
      ? `body: both ${plural(chaosBody.length, 'byte')}, different from byte ${at}`
      : `body: chaos ${plural(chaosBody.length, 'byte')}, twin ${plural(twinBody.length, 'byte')}${at > 0 ? ` (the first ${at} alike)` : ''}`,
  }];
}
