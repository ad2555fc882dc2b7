// Reads the bytes one side of a compare received as a client would, without
// trusting them: interim heads, the head's lines as sent (odd ones kept and
// named), the framing RFC 9112 §6.3 picks, and whether the body is complete.
// A pure function of the bytes, so what the page shows is what arrived.

export type LineEnd = 'crlf' | 'lf';

export interface HeadLine {
  /** The line as received, without its line end (latin1). */
  readonly raw: string;
  /** The field name, when the line has a colon. */
  readonly name: string | undefined;
  /** The field value without surrounding whitespace, when the line has a colon. */
  readonly value: string | undefined;
  readonly lineEnd: LineEnd;
  /** What a strict parser would refuse or read differently. */
  readonly notes: readonly string[];
}

export interface ResponseHead {
  readonly statusLine: string;
  readonly statusLineEnd: LineEnd;
  /** The three-digit status; undefined when the status line has none. */
  readonly status: number | undefined;
  readonly statusNotes: readonly string[];
  readonly lines: readonly HeadLine[];
  /** Bytes of the head, its blank line included. */
  readonly length: number;
}

export type Framing =
  | { readonly kind: 'no-body'; readonly why: string }
  | { readonly kind: 'content-length'; readonly declared: number }
  | { readonly kind: 'conflicting-length'; readonly values: readonly string[] }
  | { readonly kind: 'chunked'; readonly complete: boolean; readonly decodedBytes: number; readonly problem: string | undefined }
  | { readonly kind: 'until-close' };

export interface ParsedResponse {
  /** 1xx heads before the final one (101 is final). */
  readonly interim: readonly ResponseHead[];
  /** The final head; undefined when none arrived complete, or the bytes are not HTTP. */
  readonly head: ResponseHead | undefined;
  /** True when the first bytes cannot start an HTTP/1.x status line. */
  readonly notHttp: boolean;
  /** The framing the final head implies; undefined without a head. */
  readonly framing: Framing | undefined;
  /** Bytes after the final head, framing included; without a head, every byte after the interim heads. */
  readonly body: Buffer;
  /** The framing says the response is complete (a close-delimited body never is before the close). */
  readonly complete: boolean;
  /** Bytes beyond where the framing says the response ends. */
  readonly excess: number;
}

const TOKEN_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const CONTROL_RE = /[\x00-\x08\x0a-\x1f\x7f]/;

/** Whether the bytes so far could still begin `HTTP/` (the name is case-sensitive; lower case is noted, not refused). */
function couldBeHttp(bytes: Buffer): boolean {
  const start = bytes.toString('latin1', 0, Math.min(5, bytes.length)).toUpperCase();
  return 'HTTP/'.startsWith(start);
}

function headLine(raw: string, lineEnd: LineEnd): HeadLine {
  const notes: string[] = [];
  if (lineEnd === 'lf') notes.push('ends with a bare LF, not CRLF');
  if (raw.startsWith(' ') || raw.startsWith('\t')) {
    notes.push('obsolete line folding: a continuation of the line before (RFC 9112 §5.2)');
    return { raw, name: undefined, value: undefined, lineEnd, notes };
  }
  const colon = raw.indexOf(':');
  if (colon === -1) {
    notes.push('no colon: not a header field');
    return { raw, name: undefined, value: undefined, lineEnd, notes };
  }
  const name = raw.slice(0, colon);
  const value = raw.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
  if (name === '') notes.push('empty field name');
  else if (/[ \t]$/.test(name)) notes.push('whitespace before the colon (RFC 9112 §5.1: a server must refuse it, a proxy strip it)');
  else if (!TOKEN_RE.test(name)) notes.push('the field name is not a token');
  if (CONTROL_RE.test(value)) notes.push('control characters in the value');
  return { raw, name, value, lineEnd, notes };
}

function statusNotes(line: string): { status: number | undefined; notes: string[] } {
  const m = /^(\S*) (\S*)(?: (.*))?$/.exec(line);
  const notes: string[] = [];
  const version = m?.[1] ?? line;
  if (!/^HTTP\/1\.[01]$/.test(version)) notes.push(`version ${JSON.stringify(version)} is not HTTP/1.1 or HTTP/1.0`);
  const code = m?.[2];
  const status = code !== undefined && /^\d{3}$/.test(code) ? Number(code) : undefined;
  if (status === undefined) notes.push('no three-digit status code');
  if (m && m[3] === undefined) notes.push('no reason phrase (and no space before it)');
  return { status, notes };
}

/** The head starting at `offset`, or undefined when its blank line has not arrived. */
function readHead(bytes: Buffer, offset: number): ResponseHead | undefined {
  let pos = offset;
  let statusLine: { raw: string; lineEnd: LineEnd } | undefined;
  const lines: HeadLine[] = [];
  for (;;) {
    const nl = bytes.indexOf(0x0a, pos);
    if (nl === -1) return undefined;
    const cr = nl > pos && bytes[nl - 1] === 0x0d;
    const raw = bytes.toString('latin1', pos, cr ? nl - 1 : nl);
    const lineEnd: LineEnd = cr ? 'crlf' : 'lf';
    pos = nl + 1;
    if (statusLine === undefined) {
      statusLine = { raw, lineEnd };
      continue;
    }
    if (raw === '') {
      const parsed = statusNotes(statusLine.raw);
      const notes = statusLine.lineEnd === 'lf' ? [...parsed.notes, 'ends with a bare LF, not CRLF'] : parsed.notes;
      return { statusLine: statusLine.raw, statusLineEnd: statusLine.lineEnd, status: parsed.status, statusNotes: notes, lines, length: pos - offset };
    }
    lines.push(headLine(raw, lineEnd));
  }
}

/** All values of a field, case-insensitive, comma lists split. */
function fieldValues(head: ResponseHead, name: string): string[] {
  const lower = name.toLowerCase();
  return head.lines
    .filter((l) => l.name?.toLowerCase() === lower)
    .flatMap((l) => (l.value ?? '').split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** The framing RFC 9112 §6.3 gives a response to GET. */
function framingOf(head: ResponseHead): Exclude<Framing, { kind: 'chunked' }> | { readonly kind: 'chunked' } {
  const status = head.status ?? 200;
  if (status === 204 || status === 304 || status === 101) return { kind: 'no-body', why: `a ${status} has no body` };
  const codings = fieldValues(head, 'Transfer-Encoding');
  if (codings.length > 0) return codings[codings.length - 1]?.toLowerCase() === 'chunked' ? { kind: 'chunked' } : { kind: 'until-close' };
  const lengths = fieldValues(head, 'Content-Length');
  if (lengths.length === 0) return { kind: 'until-close' };
  const first = lengths[0] as string;
  if (!/^\d+$/.test(first) || lengths.some((v) => v !== first)) return { kind: 'conflicting-length', values: lengths };
  return { kind: 'content-length', declared: Number(first) };
}

/** Decodes chunked framing as far as the bytes go: complete after the last chunk and its trailers. */
function readChunked(body: Buffer): { complete: boolean; decodedBytes: number; problem: string | undefined; end: number } {
  let pos = 0;
  let decodedBytes = 0;
  const stop = (problem?: string) => ({ complete: false, decodedBytes, problem, end: body.length });
  for (;;) {
    const nl = body.indexOf(0x0a, pos);
    if (nl === -1) return stop();
    const line = body.toString('latin1', pos, nl).replace(/\r$/, '');
    const size = (line.split(';')[0] as string).trim();
    if (!/^[0-9A-Fa-f]{1,8}$/.test(size)) return stop(`chunk size line ${JSON.stringify(line.slice(0, 40))} is not a hexadecimal size`);
    const length = parseInt(size, 16);
    pos = nl + 1;
    if (length === 0) {
      // Trailer lines, then the blank line that ends the message.
      for (;;) {
        const end = body.indexOf(0x0a, pos);
        if (end === -1) return stop();
        const trailer = body.toString('latin1', pos, end).replace(/\r$/, '');
        pos = end + 1;
        if (trailer === '') return { complete: true, decodedBytes, problem: undefined, end: pos };
      }
    }
    const available = Math.min(length, body.length - pos);
    decodedBytes += available;
    if (available < length) return stop();
    pos += length;
    if (body.length - pos < 2 && (body.length === pos || body[pos] === 0x0d)) return stop();
    if (body[pos] === 0x0d && body[pos + 1] === 0x0a) pos += 2;
    else if (body[pos] === 0x0a) pos += 1;
    else return stop(`the ${length}-byte chunk is not followed by CRLF: its size line lies`);
  }
}

/** Parses everything one side received. */
export function parseResponse(bytes: Buffer): ParsedResponse {
  const interim: ResponseHead[] = [];
  let offset = 0;
  const partial = (notHttp: boolean): ParsedResponse => ({
    interim, head: undefined, notHttp, framing: undefined, body: bytes.subarray(offset), complete: false, excess: 0,
  });
  for (;;) {
    if (!couldBeHttp(bytes.subarray(offset))) return partial(true);
    const head = readHead(bytes, offset);
    if (head === undefined) return partial(false);
    offset += head.length;
    if (head.status !== undefined && head.status >= 100 && head.status < 200 && head.status !== 101) {
      interim.push(head);
      continue;
    }
    const body = bytes.subarray(offset);
    const framing = framingOf(head);
    if (framing.kind === 'no-body') return { interim, head, notHttp: false, framing, body, complete: true, excess: body.length };
    if (framing.kind === 'content-length') {
      return { interim, head, notHttp: false, framing, body, complete: body.length >= framing.declared, excess: Math.max(0, body.length - framing.declared) };
    }
    if (framing.kind === 'chunked') {
      const chunked = readChunked(body);
      return {
        interim, head, notHttp: false, body,
        framing: { kind: 'chunked', complete: chunked.complete, decodedBytes: chunked.decodedBytes, problem: chunked.problem },
        complete: chunked.complete, excess: chunked.complete ? body.length - chunked.end : 0,
      };
    }
    return { interim, head, notHttp: false, framing, body, complete: false, excess: 0 };
  }
}

/** Whether a response is complete by its framing (the reader then waits only briefly for the close). */
export function responseComplete(bytes: Buffer): boolean {
  return parseResponse(bytes).complete;
}
