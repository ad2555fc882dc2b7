// Head parsing for the chaos parser: finding a complete head in the input
// (line ends judged as they arrive), then its request line, field lines,
// framing and routing, each refused as llhttp would or more strictly.
import { CHUNKED } from './parser-body.js';
import { CR, LF, type InputBuffer } from './parser-input.js';
import { RequestRejected, type CaptureHook, type ParserLimits, type RawHeader, type RequestCapture } from './parser-types.js';

const SP = 0x20;
const HTAB = 0x09;
const COLON = 0x3a;
const CRLFCRLF = Buffer.from('\r\n\r\n', 'latin1');
// The head is checked by char codes, not regular expressions: the parser was
// the largest JS cost per request (issue 15). tests/unit/parser-equivalence
// holds these checks to the former regular expressions, kept in comments.
// Former TOKEN_RE: /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/** tchar (RFC 9110 §5.6.2), as TOKEN_RE: 1, and 2 for an upper-case letter; 0 otherwise. */
const TCHAR = tableOf("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ');
/** reg-name characters of HOST_RE below (unreserved, sub-delims, '%'). */
const REG_NAME = tableOf("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~!$&'()*+,;=%-", '');
/** What an IP literal holds between its brackets in HOST_RE. */
const IP_LITERAL = tableOf('0123456789abcdefABCDEF:.', '');
// Former HOST_RE, for reference: /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]*)(:\d*)?$/
// Former BAD_VALUE_RE for field values: /[\x00-\x08\x0a-\x1f\x7f]/ (visible ASCII, obs-text, SP and HTAB).
const CONNECTION_CLOSE_RE = /(^|,)\s*close\s*(,|$)/;
const CONNECTION_KEEP_ALIVE_RE = /(^|,)\s*keep-alive\s*(,|$)/;
const ABSOLUTE_RE = /^https?:\/\/([^/?#]+)(.*)$/i;
/** Empty lines tolerated before a request line (RFC 9112 §2.2 allows at least one). */
const MAX_LEADING_EMPTY_LINES = 8;
const NO_HEADERS: ReadonlyMap<string, string> = new Map();

/**
 * Reads one request head at a time: what it found is in its fields until
 * clear(). One per connection, so a request costs no object here.
 */
export class HeadReader {
  /** Bytes of the pending head already checked for bare LF. */
  #scanned = 0;
  /** Offset (from the input's start) of the LF that ends the request line, once seen. */
  #lineEnd = -1;
  /** Empty lines skipped before the current request line, across pushes. */
  #emptyLines = 0;
  /** The bytes of the head find() returned, its blank line included. */
  headBytes = 0;
  // The request being read, from its head to the end of its body: fields
  // rather than an object, so the ParsedRequest is its only allocation.
  method = '';
  target = '';
  path = '';
  query = '';
  version: '1.0' | '1.1' = '1.1';
  headers: ReadonlyMap<string, string> = NO_HEADERS;
  host: string | undefined;
  keepAlive = false;
  /** Whether the head asked for 100-continue. */
  expectContinue = false;
  /** What the capture hook asked to keep of this request (undefined: nothing more). */
  capture: RequestCapture | undefined;
  rawHeaders: RawHeader[] | undefined;
  rawHead: Buffer | undefined;
  #contentLengthFields = 0;
  #hostFields = 0;

  constructor(
    private readonly limits: ParserLimits,
    private readonly hook: CaptureHook | undefined,
  ) {}

  /**
   * The next complete head in `input`, without its blank line (headBytes
   * says how many bytes to take with it); undefined while more bytes are needed.
   */
  find(input: InputBuffer): string | undefined {
    // Tolerate a few empty lines between pipelined requests (RFC 9112 §2.2),
    // counted across pushes so a trickle of CRLFs cannot go on for ever.
    while (input.end - input.start >= 2 && input.buf[input.start] === CR && input.buf[input.start + 1] === LF) {
      if (++this.#emptyLines > MAX_LEADING_EMPTY_LINES) throw new RequestRejected(400, 'too many empty lines before the request line');
      input.consume(2);
      this.#scanned = Math.max(0, this.#scanned - 2);
    }
    const start = input.start;
    if (input.end === start) return undefined;
    if (input.buf[start] === LF) throw new RequestRejected(400, 'bare LF');

    // Common case: the whole head is here. One search finds its end, then
    // checkLineEnds judges its line ends on the string, in the order the
    // byte scan of #scanPartialHead would.
    const buf = input.buf;
    const end = input.end;
    let head: string | undefined;
    this.headBytes = end - start;
    if (end - start > 4 && buf[end - 1] === LF && buf[end - 2] === CR && buf[end - 3] === LF && buf[end - 4] === CR) {
      // The input ends with a blank line (one GET per read): it ends the head
      // unless an earlier one does, which a string search tells more cheaply
      // than Buffer#indexOf's native call. (A head ending in CRLF would hide
      // an earlier CRLF CRLF across the two.)
      const text = buf.toString('latin1', start, end - 4);
      if (text.indexOf('\r\n\r\n') === -1 && !text.endsWith('\r\n')) head = text;
    }
    if (head === undefined) {
      // Searched in the input's buffer itself (no view to allocate), from where the last
      // look stopped; an owned buffer may hold stale bytes past its end, hence the bound.
      const at = buf.indexOf(CRLFCRLF, start + Math.max(0, this.#scanned - 3));
      if (at === -1 || at + 4 > end) return this.#scanPartialHead(input);
      head = buf.toString('latin1', start, at);
      this.headBytes = at + 4 - start;
    }
    return head;
  }

  /** Takes the head find() returned out of `input`; the next head is looked for afresh. */
  take(input: InputBuffer): void {
    this.#scanned = 0;
    this.#lineEnd = -1;
    this.#emptyLines = 0;
    input.consume(this.headBytes);
  }

  /**
   * A complete head (request line and fields, without the blank line): reads
   * it into the fields and returns its body's framing (a length, 0, or
   * CHUNKED). The capture hook is asked once the request line is read.
   */
  read(head: string, fieldLines: number): number {
    const lineEnd = this.#readRequestLine(head);
    const capture = this.hook?.(this.method, this.target);
    const headers = this.#readFields(head, lineEnd, fieldLines, capture?.rawHeaders === true);
    const framing = this.#readFraming(headers);
    this.expectContinue = this.#readRouting(headers);
    this.headers = headers;
    this.capture = capture;
    // latin1 maps bytes to chars one to one, so this gives back the bytes received.
    if (capture?.rawHeaders === true) this.rawHead = Buffer.from(`${head}\r\n\r\n`, 'latin1');
    return framing;
  }

  /** Drops the finished request's strings and map: an idle connection holds none of its head. */
  clear(): void {
    this.method = this.target = this.path = this.query = '';
    this.headers = NO_HEADERS;
    this.host = undefined;
    this.capture = undefined;
    this.rawHeaders = undefined;
    this.rawHead = undefined;
  }

  /**
   * The line ends of a complete head (without its blank line's CRLF CRLF),
   * judged as #scanPartialHead judges them, first fault first; returns how
   * many field lines follow the request line (its CRLFs).
   */
  checkLineEnds(head: string): number {
    let cr = head.indexOf('\r');
    let lf = head.indexOf('\n');
    let lines = 0;
    for (;;) {
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        // A CR last in `head` is followed by the blank line's CR: bare too.
        if (cr + 1 !== lf) throw new RequestRejected(400, 'bare CR in request head');
        cr = head.indexOf('\r', lf);
        continue;
      }
      if (lf === -1) break;
      if (lf === 0 || head.charCodeAt(lf - 1) !== CR) throw new RequestRejected(400, 'bare LF in request head');
      if (lines++ === 0 && lf - 1 > this.limits.maxRequestLine) throw new RequestRejected(414, 'request line too long');
      lf = head.indexOf('\n', lf + 1);
    }
    // Without fields, the blank line's first CRLF ends the request line.
    if (lines === 0 && head.length > this.limits.maxRequestLine) throw new RequestRejected(414, 'request line too long');
    return lines;
  }

  /**
   * A head not complete yet (no CRLF CRLF in the input): checks the bytes not
   * yet seen, and the limits on what is buffered. Returns undefined (more bytes needed).
   */
  #scanPartialHead(input: InputBuffer): undefined {
    const buf = input.pending;
    // Every LF must close a CRLF: refuse bare LF as soon as it arrives, so a
    // client that only sends LF is answered rather than left to time out.
    // A CR must be followed by LF: a bare CR as a line terminator is refused at
    // once too (llhttp does the same), rather than waiting out the request timer.
    for (let i = this.#scanned; i < buf.length; i++) {
      const byte = buf[i];
      if (byte === CR) {
        if (i + 1 < buf.length && buf[i + 1] !== LF) throw new RequestRejected(400, 'bare CR in request head');
        continue;
      }
      if (byte !== LF) continue;
      if (i === 0 || buf[i - 1] !== CR) throw new RequestRejected(400, 'bare LF in request head');
      if (this.#lineEnd === -1) {
        this.#lineEnd = i;
        // Refuse an over-long request line as soon as its end is seen, not when the head completes.
        if (i - 1 > this.limits.maxRequestLine) throw new RequestRejected(414, 'request line too long');
      }
    }
    // A CR last in the buffer is looked at again when its next byte arrives.
    this.#scanned = buf[buf.length - 1] === CR ? buf.length - 1 : buf.length;
    if (this.#lineEnd === -1) {
      // The CR of the line end may already be here: allow one byte for it.
      if (buf.length > this.limits.maxRequestLine + 1) throw new RequestRejected(414, 'request line too long');
    } else if (buf.length - this.#lineEnd - 1 > this.limits.maxHeaderBytes + 2) {
      throw new RequestRejected(431, 'request header block too large');
    }
    return undefined;
  }

  /**
   * Method, target and version; returns where the request line ends in `head`.
   * Refuses as the former /^([^ ]+) ([^ ]+) HTTP\/(\d)\.(\d)$/ did, then judges
   * the method (a token), the version and the target (visible ASCII), in that order.
   */
  #readRequestLine(head: string): number {
    const crlf = head.indexOf('\r\n');
    const lineEnd = crlf === -1 ? head.length : crlf;
    if (lineEnd > this.limits.maxRequestLine) throw new RequestRejected(414, 'request line too long');
    if (head.length - lineEnd > this.limits.maxHeaderBytes + 2) throw new RequestRejected(431, 'request header block too large');
    // Exactly two spaces, the second followed by the 8 bytes of `HTTP/d.d`.
    const sp1 = head.indexOf(' ');
    const sp2 = sp1 <= 0 ? -1 : head.indexOf(' ', sp1 + 2);
    const v = sp2 + 1;
    if (
      sp2 === -1 ||
      v + 8 !== lineEnd ||
      head.charCodeAt(sp1 + 1) === SP ||
      !head.startsWith('HTTP/', v) ||
      !isDigit(head.charCodeAt(v + 5)) ||
      head.charCodeAt(v + 6) !== 0x2e ||
      !isDigit(head.charCodeAt(v + 7))
    ) {
      throw new RequestRejected(400, 'malformed request line');
    }
    for (let i = 0; i < sp1; i++) {
      const c = head.charCodeAt(i);
      if (c >= 128 || TCHAR[c] === 0) throw new RequestRejected(400, 'invalid method');
    }
    const major = head.charCodeAt(v + 5);
    const minor = head.charCodeAt(v + 7);
    if (major !== 0x31 || (minor !== 0x30 && minor !== 0x31)) {
      throw new RequestRejected(505, `HTTP/${head[v + 5] as string}.${head[v + 7] as string} is not supported`);
    }
    for (let i = sp1 + 1; i < sp2; i++) {
      const c = head.charCodeAt(i);
      if (c < 0x21 || c > 0x7e) throw new RequestRejected(400, 'invalid request target');
    }
    this.method = head.slice(0, sp1);
    this.target = head.slice(sp1 + 1, sp2);
    this.version = minor === 0x31 ? '1.1' : '1.0';
    return lineEnd;
  }

  /**
   * The `count` field lines after the request line, read in place (no array of
   * lines): names lower-cased, values OWS-trimmed, repeats joined.
   */
  #readFields(head: string, lineEnd: number, count: number, keepRaw: boolean): Map<string, string> {
    // Counted first (#checkLineEnds): too many fields is refused before any one field is judged.
    if (count > this.limits.maxHeaderCount) throw new RequestRejected(431, 'too many header fields');
    const headers = new Map<string, string>();
    const raw: RawHeader[] | undefined = keepRaw ? [] : undefined;
    let contentLengths = 0;
    let hostFields = 0;
    for (let start = lineEnd + 2, n = 0; n < count; n++) {
      const crlf = head.indexOf('\r\n', start);
      const end = crlf === -1 ? head.length : crlf;
      const first = head.charCodeAt(start);
      if (first === SP || first === HTAB) throw new RequestRejected(400, 'obsolete line folding');
      const colon = head.indexOf(':', start);
      if (colon === -1 || colon >= end) throw new RequestRejected(400, 'header line without colon');
      // The name: a token (TOKEN_RE), whitespace before the colon named as such.
      const beforeColon = head.charCodeAt(colon - 1);
      if (colon > start && (beforeColon === SP || beforeColon === HTAB)) throw new RequestRejected(400, 'whitespace before colon');
      let kinds = colon === start ? 0 : 1;
      for (let i = start; i < colon && kinds !== 0; i++) {
        const c = head.charCodeAt(i);
        const kind = c < 128 ? (TCHAR[c] as number) : 0;
        kinds = kind === 0 ? 0 : kinds | kind;
      }
      if (kinds === 0) throw new RequestRejected(400, 'invalid header name');
      // The value: no CTL but HTAB, no DEL (BAD_VALUE_RE); then OWS-trimmed.
      for (let i = colon + 1; i < end; i++) {
        const c = head.charCodeAt(i);
        if ((c < 0x20 && c !== HTAB) || c === 0x7f) throw new RequestRejected(400, 'control character in header value');
      }
      let from = colon + 1;
      let to = end;
      while (from < to && isOws(head.charCodeAt(from))) from++;
      while (to > from && isOws(head.charCodeAt(to - 1))) to--;
      const rawName = head.slice(start, colon);
      // Lower-cased only when it has an upper-case letter. (A table of common
      // capitalised names measured slower than toLowerCase: both hash or copy the name.)
      const name = (kinds & 2) === 0 ? rawName : rawName.toLowerCase();
      const value = head.slice(from, to);
      if (name === 'content-length') contentLengths++;
      if (name === 'host') hostFields++;
      const prior = headers.get(name);
      headers.set(name, prior === undefined ? value : `${prior}, ${value}`);
      if (raw !== undefined) raw.push([rawName, head.slice(colon + 1, end)]);
      start = end + 2;
    }
    this.#contentLengthFields = contentLengths;
    this.#hostFields = hostFields;
    this.rawHeaders = raw;
    return headers;
  }

  /** Exactly one way to know where the body ends, or none: its length, 0, or CHUNKED. */
  #readFraming(headers: ReadonlyMap<string, string>): number {
    const te = headers.get('transfer-encoding');
    const cl = headers.get('content-length');
    if (this.#contentLengthFields > 1) throw new RequestRejected(400, 'duplicate Content-Length');
    if (te !== undefined && cl !== undefined) throw new RequestRejected(400, 'both Content-Length and Transfer-Encoding');
    if (te !== undefined) {
      if (this.version === '1.0') throw new RequestRejected(400, 'Transfer-Encoding in an HTTP/1.0 request');
      const codings = te.toLowerCase().split(',').map((c) => c.trim());
      if (codings.length !== 1 || codings[0] !== 'chunked') {
        throw new RequestRejected(codings[codings.length - 1] === 'chunked' ? 501 : 400, `unsupported Transfer-Encoding: ${te}`);
      }
      return CHUNKED;
    }
    if (cl === undefined) return 0;
    if (!isDigits(cl, 15)) throw new RequestRejected(400, 'invalid Content-Length');
    const length = Number(cl);
    if (length > this.limits.maxBodyBytes) throw new RequestRejected(413, 'request body too large');
    return length;
  }

  /**
   * Where the request goes (host, path, query) and how it is answered
   * (keep-alive, Expect); returns whether 100-continue was asked.
   */
  #readRouting(headers: ReadonlyMap<string, string>): boolean {
    const version = this.version;
    const target = this.target;
    if (this.#hostFields > 1) throw new RequestRejected(400, 'duplicate Host');
    let host = headers.get('host');
    if (version === '1.1' && host === undefined) throw new RequestRejected(400, 'missing Host');
    if (host !== undefined && !isHost(host)) throw new RequestRejected(400, 'invalid Host');

    let pathAndQuery: string;
    if (target.startsWith('/')) {
      pathAndQuery = target;
    } else if (target === '*') {
      if (this.method !== 'OPTIONS') throw new RequestRejected(400, 'asterisk target is only for OPTIONS');
      pathAndQuery = '*';
    } else {
      const abs = ABSOLUTE_RE.exec(target);
      if (!abs) throw new RequestRejected(400, 'invalid request target');
      const authority = abs[1] as string;
      // No userinfo, nothing a Host field could not carry.
      if (!isHost(authority)) throw new RequestRejected(400, 'invalid authority in request target');
      host = authority; // RFC 9112 §3.2.2: the target's authority wins over Host
      const rest = abs[2] as string;
      pathAndQuery = rest === '' || rest[0] !== '/' ? `/${rest}` : rest;
    }
    const hash = pathAndQuery.indexOf('#');
    if (hash !== -1) pathAndQuery = pathAndQuery.slice(0, hash);
    const q = pathAndQuery.indexOf('?');
    this.host = host;
    this.path = q === -1 ? pathAndQuery : pathAndQuery.slice(0, q);
    this.query = q === -1 ? '' : pathAndQuery.slice(q + 1);

    this.keepAlive = keepAlive(version, headers.get('connection'));

    // An HTTP/1.0 client cannot expect anything (RFC 9110 §10.1.1): ignore the field.
    const expect = version === '1.1' ? headers.get('expect') : undefined;
    if (expect !== undefined && expect.toLowerCase() !== '100-continue') throw new RequestRejected(417, `unsupported expectation: ${expect}`);
    return expect !== undefined;
  }
}

/** Whether the client allows the connection to stay open, by version and the Connection field. */
function keepAlive(version: '1.0' | '1.1', connection: string | undefined): boolean {
  // The usual values first, without lower-casing or a regular expression.
  if (connection === undefined || connection === '') return version === '1.1';
  if (connection === 'keep-alive' || connection === 'Keep-Alive') return true;
  if (connection === 'close' || connection === 'Close') return false;
  const lower = connection.toLowerCase();
  return version === '1.1' ? !CONNECTION_CLOSE_RE.test(lower) : CONNECTION_KEEP_ALIVE_RE.test(lower);
}

/**
 * What the former HOST_RE accepted: an IP literal in brackets, or reg-name
 * characters (possibly none), then an optional `:` and digits (possibly none).
 */
function isHost(host: string): boolean {
  let i = 0;
  if (host.charCodeAt(0) === 0x5b) {
    i = 1;
    while (i < host.length && isIn(IP_LITERAL, host.charCodeAt(i))) i++;
    if (i === 1 || host.charCodeAt(i) !== 0x5d) return false;
    i++;
  } else {
    while (i < host.length && isIn(REG_NAME, host.charCodeAt(i))) i++;
  }
  if (i === host.length) return true;
  if (host.charCodeAt(i) !== COLON) return false;
  for (i++; i < host.length; i++) if (!isDigit(host.charCodeAt(i))) return false;
  return true;
}

/** 1 to `max` ASCII digits (as /^\d{1,max}$/). */
function isDigits(value: string, max: number): boolean {
  if (value.length === 0 || value.length > max) return false;
  for (let i = 0; i < value.length; i++) if (!isDigit(value.charCodeAt(i))) return false;
  return true;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isIn(table: Uint8Array, code: number): boolean {
  return code < 128 && table[code] !== 0;
}

/** A table of the ASCII codes: 1 for each of `chars`, 2 for each of `upper`. */
function tableOf(chars: string, upper: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  for (let i = 0; i < upper.length; i++) table[upper.charCodeAt(i)] = 2;
  return table;
}

function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}
