// A frozen copy of services/chaos/parser.ts as it was before its fast paths
// (issue 15): the oracle of tests/unit/parser-equivalence.test.ts. Do not edit.

// A strict, incremental HTTP/1.1 request parser for hostile input (DESIGN §4).
// At least as strict as llhttp: anything ambiguous in framing is refused, the
// connection is closed, and nothing after it is read. Bodies are counted and
// discarded (bounded), unless the capture hook asks, request by request, for
// the raw header lines or the first bytes of the body (inspection endpoints).

export interface ParsedRequest {
  readonly method: string;
  /** The request-target as sent. */
  readonly target: string;
  /** Path part of the target, still percent-encoded. */
  readonly path: string;
  /** Query string without `?`, still percent-encoded ('' when absent). */
  readonly query: string;
  readonly version: '1.0' | '1.1';
  /** Lower-cased names; repeated fields joined with ", " (RFC 9110 §5.3). */
  readonly headers: ReadonlyMap<string, string>;
  /** Authority from an absolute-form target, else the Host field; undefined for HTTP/1.0 without Host. */
  readonly host: string | undefined;
  /** Whether the client allows the connection to stay open after this response. */
  readonly keepAlive: boolean;
  /** Decoded body length (Content-Length, or the sum of the chunk sizes), whether kept or not. */
  readonly bodyBytes: number;
  // The fields below are present only when the capture hook asked for them
  // (undefined when it asked for the other kind; absent without a capture).
  /**
   * Every field line as received, in order, name case and repeats kept. The
   * value is everything between the colon and the CRLF, OWS included and
   * untrimmed, so `${name}:${value}` is the line byte for byte (latin1).
   */
  readonly rawHeaders?: readonly RawHeader[];
  /** The head byte for byte: request line to the CRLF of the blank line, inclusive (empty lines before it excluded). */
  readonly rawHead?: Buffer;
  /** The first `max` bytes of the decoded body (de-chunked: no sizes, extensions or trailers). */
  readonly body?: Buffer;
  /** Whether the body had more than `max` bytes (`bodyBytes` counts them all). */
  readonly bodyTruncated?: boolean;
}

/** One field line as received: its name and the bytes after the colon (latin1). */
export type RawHeader = readonly [name: string, value: string];

/** What to keep of one request beyond the parsed fields. */
export interface RequestCapture {
  /** Keep the field lines as received (`rawHeaders`) and the head's bytes (`rawHead`). */
  readonly rawHeaders?: boolean;
  /**
   * Keep the first `max` bytes of the decoded body (`body`, `bodyTruncated`).
   * The rest is still read and counted, within `maxBodyBytes` (413 beyond).
   * A negative or non-numeric max counts as 0.
   */
  readonly body?: { readonly max: number };
}

/**
 * Asked once per request, right after its request line is read (so possibly
 * for a request then refused for its fields); undefined keeps nothing extra.
 */
export type CaptureHook = (method: string, target: string) => RequestCapture | undefined;

export interface ParserOptions {
  readonly capture?: CaptureHook;
}

export type RejectStatus = 400 | 408 | 413 | 414 | 417 | 431 | 501 | 505;

export class RequestRejected extends Error {
  constructor(
    readonly status: RejectStatus,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'RequestRejected';
  }
}

export interface ParserLimits {
  /** Longest request line, CRLF excluded (414 beyond). */
  readonly maxRequestLine: number;
  /** Largest header block after the request line (431 beyond). */
  readonly maxHeaderBytes: number;
  readonly maxHeaderCount: number;
  /** Largest request body, by Content-Length or chunked total (413 beyond). */
  readonly maxBodyBytes: number;
}

export const DEFAULT_LIMITS: ParserLimits = {
  maxRequestLine: 8192,
  maxHeaderBytes: 16384,
  maxHeaderCount: 100,
  maxBodyBytes: 1024 * 1024,
};

export interface ParserEvents {
  /** A complete request (head and body) has been read. */
  onRequest(request: ParsedRequest): void;
  /** The head asked for `Expect: 100-continue` and a body will follow. */
  onContinue(): void;
  /** The input is not acceptable; the parser reads nothing more. */
  onReject(rejection: RequestRejected): void;
}

const EMPTY = Buffer.alloc(0);
const CR = 0x0d;
const LF = 0x0a;
const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const REQUEST_LINE_RE = /^([^ ]+) ([^ ]+) HTTP\/(\d)\.(\d)$/;
// Field values: visible ASCII, obs-text, SP and HTAB; never CTLs (NUL included) or DEL.
const BAD_VALUE_RE = /[\x00-\x08\x0a-\x1f\x7f]/;
const TARGET_RE = /^[\x21-\x7e]+$/;
const HOST_RE = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]*)(:\d*)?$/;
const ABSOLUTE_RE = /^https?:\/\/([^/?#]+)(.*)$/i;
const CHUNK_SIZE_RE = /^([0-9a-fA-F]{1,8})(;[\x09\x20-\x7e]*)?$/;
const MAX_CHUNK_LINE = 1024;
const MAX_TRAILER_BYTES = 8192;
/** Fields that frame or route a message: refused in a trailer section. */
const FORBIDDEN_TRAILERS: ReadonlySet<string> = new Set(['content-length', 'transfer-encoding', 'trailer', 'host']);
/** Empty lines tolerated before a request line (RFC 9112 §2.2 allows at least one). */
const MAX_LEADING_EMPTY_LINES = 8;
/** #readFraming's answer for a chunked body (any other answer is a length). */
const CHUNKED = -1;
const NO_HEADERS: ReadonlyMap<string, string> = new Map();
const NO_OPTIONS: ParserOptions = {};

type State = 'head' | 'body' | 'chunk-size' | 'chunk-data' | 'chunk-crlf' | 'trailers' | 'dead';

export class RequestParser {
  #state: State = 'head';
  /** Unparsed input: bytes #start..#end of #buf (a view while #owned is false). */
  #buf: Buffer = EMPTY;
  #start = 0;
  #end = 0;
  #owned = false;
  /** Bytes of the pending head already checked for bare LF. */
  #scanned = 0;
  /** Offset (from #start) of the LF that ends the request line, once seen. */
  #lineEnd = -1;
  /** Empty lines skipped before the current request line, across pushes. */
  #emptyLines = 0;
  #bodyRemaining = 0;
  #bodyTotal = 0;
  #trailerBytes = 0;
  // The request being read, from its head to the end of its body: fields
  // rather than an object, so the ParsedRequest is its only allocation here.
  #method = '';
  #target = '';
  #path = '';
  #query = '';
  #version: '1.0' | '1.1' = '1.1';
  #headers: ReadonlyMap<string, string> = NO_HEADERS;
  #host: string | undefined;
  #keepAlive = false;
  #contentLengthFields = 0;
  #hostFields = 0;
  // What the capture hook asked to keep of the request being read.
  #captured = false;
  #rawHeaders: RawHeader[] | undefined;
  #rawHead: Buffer | undefined;
  /** Body bytes kept so far are #keptBody[0..#keptBytes); its length never exceeds #keepMax. */
  #keptBody: Buffer | undefined;
  #keptBytes = 0;
  #keepMax = 0;
  #paused = false;
  #draining = false;

  readonly #capture: CaptureHook | undefined;

  constructor(
    private readonly events: ParserEvents,
    private readonly limits: ParserLimits = DEFAULT_LIMITS,
    options: ParserOptions = NO_OPTIONS,
  ) {
    this.#capture = options.capture;
  }

  /** True while part of a request has arrived but not all of it (or input waits while paused). */
  get midRequest(): boolean {
    return this.#state !== 'dead' && (this.#state !== 'head' || this.#end > this.#start);
  }

  get dead(): boolean {
    return this.#state === 'dead';
  }

  /** True while parsing is held at a request boundary (see pause). */
  get paused(): boolean {
    return this.#paused;
  }

  /** Bytes received and not yet parsed (bounded: see the limits). */
  get buffered(): number {
    return this.#end - this.#start;
  }

  /** Stops parsing; later input is ignored. */
  stop(): void {
    this.#state = 'dead';
    this.#buf = EMPTY;
    this.#start = this.#end = 0;
    this.#owned = false;
    this.#clearRequest();
  }

  /**
   * Holds parsing at the next request boundary: complete requests already
   * announced stay announced, later input is kept unparsed until resume().
   * The caller stops reading its socket meanwhile (input backpressure).
   */
  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#run();
  }

  push(chunk: Buffer): void {
    if (this.#state === 'dead' || chunk.length === 0) return;
    this.#append(chunk);
    this.#run();
  }

  #run(): void {
    // Re-entrant calls (an event handler that resumes us) leave the work to the running loop.
    if (this.#draining) return;
    this.#draining = true;
    try {
      this.#drain();
    } catch (error) {
      if (!(error instanceof RequestRejected)) throw error;
      this.stop();
      this.events.onReject(error);
    } finally {
      this.#draining = false;
    }
  }

  /** Appends without re-copying what is pending on every push (byte-by-byte input stays linear). */
  #append(chunk: Buffer): void {
    const pending = this.#end - this.#start;
    if (pending === 0) {
      // Common case: parse straight from the socket's chunk.
      this.#buf = chunk;
      this.#start = 0;
      this.#end = chunk.length;
      this.#owned = false;
      return;
    }
    const needed = pending + chunk.length;
    if (this.#owned && this.#end + chunk.length <= this.#buf.length) {
      chunk.copy(this.#buf, this.#end);
      this.#end += chunk.length;
      return;
    }
    if (this.#owned && needed <= this.#buf.length) {
      this.#buf.copyWithin(0, this.#start, this.#end);
    } else {
      const grown = Buffer.allocUnsafe(Math.max(needed, 2 * pending, 4096));
      this.#buf.copy(grown, 0, this.#start, this.#end);
      this.#buf = grown;
      this.#owned = true;
    }
    this.#start = 0;
    this.#end = pending;
    chunk.copy(this.#buf, this.#end);
    this.#end += chunk.length;
  }

  /** The unparsed bytes (a view, valid until the next append). */
  get #pending(): Buffer {
    return this.#buf.subarray(this.#start, this.#end);
  }

  #drain(): void {
    for (;;) {
      switch (this.#state) {
        case 'dead':
          return;
        case 'head':
          if (this.#paused || !this.#readHead()) return;
          break;
        case 'body': {
          const take = Math.min(this.#bodyRemaining, this.#end - this.#start);
          if (this.#keptBody !== undefined) this.#keepBody(take);
          this.#consume(take);
          this.#bodyRemaining -= take;
          if (this.#bodyRemaining > 0) return;
          this.#finish();
          break;
        }
        case 'chunk-size': {
          const line = this.#readLine(MAX_CHUNK_LINE, 'chunk size line too long');
          if (line === undefined) return;
          const m = CHUNK_SIZE_RE.exec(line);
          if (!m) throw new RequestRejected(400, 'invalid chunk size');
          const size = parseInt(m[1] as string, 16);
          this.#bodyTotal += size;
          if (this.#bodyTotal > this.limits.maxBodyBytes) throw new RequestRejected(413, 'request body too large');
          if (size === 0) {
            this.#state = 'trailers';
            this.#trailerBytes = 0;
          } else {
            this.#bodyRemaining = size;
            this.#state = 'chunk-data';
          }
          break;
        }
        case 'chunk-data': {
          const take = Math.min(this.#bodyRemaining, this.#end - this.#start);
          if (this.#keptBody !== undefined) this.#keepBody(take);
          this.#consume(take);
          this.#bodyRemaining -= take;
          if (this.#bodyRemaining > 0) return;
          this.#state = 'chunk-crlf';
          break;
        }
        case 'chunk-crlf': {
          const available = this.#end - this.#start;
          const b0 = this.#buf[this.#start];
          if (available >= 1 && b0 !== CR) throw new RequestRejected(400, 'chunk data not followed by CRLF');
          if (available < 2) return;
          if (this.#buf[this.#start + 1] !== LF) throw new RequestRejected(400, 'chunk data not followed by CRLF');
          this.#consume(2);
          this.#state = 'chunk-size';
          break;
        }
        case 'trailers': {
          const line = this.#readLine(MAX_TRAILER_BYTES, 'trailer section too large');
          if (line === undefined) return;
          this.#trailerBytes += line.length + 2;
          if (this.#trailerBytes > MAX_TRAILER_BYTES) throw new RequestRejected(431, 'trailer section too large');
          if (line === '') {
            this.#finish();
            break;
          }
          const colon = line.indexOf(':');
          if (colon <= 0 || !TOKEN_RE.test(line.slice(0, colon)) || BAD_VALUE_RE.test(line.slice(colon + 1))) {
            throw new RequestRejected(400, 'invalid trailer field');
          }
          // RFC 9110 §6.5.1: framing and routing fields never come in trailers;
          // a parser that merged them later could be led to reframe the message.
          if (FORBIDDEN_TRAILERS.has(line.slice(0, colon).toLowerCase())) {
            throw new RequestRejected(400, `${line.slice(0, colon)} is not allowed in trailers`);
          }
          break;
        }
      }
    }
  }

  #consume(n: number): void {
    this.#start += n;
    this.#scanned = Math.max(0, this.#scanned - n);
    if (this.#start === this.#end) {
      // Drop the reference so an idle connection holds no input buffer.
      this.#buf = EMPTY;
      this.#start = this.#end = 0;
      this.#owned = false;
    }
  }

  /** One CRLF-terminated line of chunked framing; bare LF is refused. */
  #readLine(limit: number, tooLong: string): string | undefined {
    const pending = this.#pending;
    const lf = pending.indexOf(LF);
    if (lf === -1) {
      if (pending.length > limit) throw new RequestRejected(this.#state === 'trailers' ? 431 : 400, tooLong);
      const cr = pending.indexOf(CR);
      if (cr !== -1 && cr + 1 < pending.length) throw new RequestRejected(400, 'bare CR in chunked framing');
      return undefined;
    }
    if (lf > limit) throw new RequestRejected(this.#state === 'trailers' ? 431 : 400, tooLong);
    if (lf === 0 || pending[lf - 1] !== CR) throw new RequestRejected(400, 'bare LF in chunked framing');
    const line = pending.toString('latin1', 0, lf - 1);
    this.#consume(lf + 1);
    return line;
  }

  /** Returns false when more bytes are needed. */
  #readHead(): boolean {
    // Tolerate a few empty lines between pipelined requests (RFC 9112 §2.2),
    // counted across pushes so a trickle of CRLFs cannot go on for ever.
    while (this.#end - this.#start >= 2 && this.#buf[this.#start] === CR && this.#buf[this.#start + 1] === LF) {
      if (++this.#emptyLines > MAX_LEADING_EMPTY_LINES) throw new RequestRejected(400, 'too many empty lines before the request line');
      this.#consume(2);
    }
    const buf = this.#pending;
    if (buf.length === 0) return false;
    if (buf[0] === LF) throw new RequestRejected(400, 'bare LF');

    // Every LF must close a CRLF: refuse bare LF as soon as it arrives, so a
    // client that only sends LF is answered rather than left to time out.
    // A CR must be followed by LF: a bare CR as a line terminator is refused at
    // once too (llhttp does the same), rather than waiting out the request timer.
    let end = -1;
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
      if (i >= 3 && buf[i - 2] === LF && buf[i - 3] === CR) {
        end = i + 1;
        break;
      }
    }
    if (end === -1) {
      // A CR last in the buffer is looked at again when its next byte arrives.
      this.#scanned = buf[buf.length - 1] === CR ? buf.length - 1 : buf.length;
      if (this.#lineEnd === -1) {
        // The CR of the line end may already be here: allow one byte for it.
        if (buf.length > this.limits.maxRequestLine + 1) throw new RequestRejected(414, 'request line too long');
      } else if (buf.length - this.#lineEnd - 1 > this.limits.maxHeaderBytes + 2) {
        throw new RequestRejected(431, 'request header block too large');
      }
      return false;
    }
    this.#scanned = 0;
    this.#lineEnd = -1;
    this.#emptyLines = 0;
    const head = buf.toString('latin1', 0, end - 4);
    this.#consume(end);
    this.#startRequest(head);
    return true;
  }

  /** A complete head (request line and fields, without the blank line) has arrived. */
  #startRequest(head: string): void {
    const lineEnd = this.#readRequestLine(head);
    const capture = this.#capture?.(this.#method, this.#target);
    const headers = this.#readFields(head, lineEnd, capture?.rawHeaders === true);
    const bodyLength = this.#readFraming(headers);
    const expectContinue = this.#readRouting(headers);
    this.#headers = headers;
    this.#bodyTotal = 0;
    if (capture !== undefined) this.#startCapture(capture, head);
    if (bodyLength === CHUNKED) {
      this.#state = 'chunk-size';
      if (expectContinue) this.events.onContinue();
    } else if (bodyLength > 0) {
      this.#bodyRemaining = bodyLength;
      this.#bodyTotal = bodyLength;
      this.#state = 'body';
      if (expectContinue) this.events.onContinue();
    } else {
      this.#finish();
    }
  }

  /** Method, target and version; returns where the request line ends in `head`. */
  #readRequestLine(head: string): number {
    const crlf = head.indexOf('\r\n');
    const lineEnd = crlf === -1 ? head.length : crlf;
    if (lineEnd > this.limits.maxRequestLine) throw new RequestRejected(414, 'request line too long');
    if (head.length - lineEnd > this.limits.maxHeaderBytes + 2) throw new RequestRejected(431, 'request header block too large');
    const m = REQUEST_LINE_RE.exec(crlf === -1 ? head : head.slice(0, lineEnd));
    if (!m) throw new RequestRejected(400, 'malformed request line');
    const [, method, target, major, minor] = m as unknown as [string, string, string, string, string];
    if (!TOKEN_RE.test(method)) throw new RequestRejected(400, 'invalid method');
    if (major !== '1' || (minor !== '0' && minor !== '1')) throw new RequestRejected(505, `HTTP/${major}.${minor} is not supported`);
    if (!TARGET_RE.test(target)) throw new RequestRejected(400, 'invalid request target');
    this.#method = method;
    this.#target = target;
    this.#version = minor === '1' ? '1.1' : '1.0';
    return lineEnd;
  }

  /**
   * The field lines after the request line, read in place (no array of lines):
   * names lower-cased, values OWS-trimmed, repeats joined.
   */
  #readFields(head: string, lineEnd: number, keepRaw: boolean): Map<string, string> {
    // Counted first: too many fields is refused before any one field is judged.
    let count = 0;
    for (let at = head.indexOf('\r\n', lineEnd); at !== -1; at = head.indexOf('\r\n', at + 2)) count++;
    if (count > this.limits.maxHeaderCount) throw new RequestRejected(431, 'too many header fields');
    const headers = new Map<string, string>();
    const raw: RawHeader[] | undefined = keepRaw ? [] : undefined;
    let contentLengths = 0;
    let hostFields = 0;
    for (let start = lineEnd + 2, n = 0; n < count; n++) {
      const crlf = head.indexOf('\r\n', start);
      const end = crlf === -1 ? head.length : crlf;
      const first = head.charCodeAt(start);
      if (first === 0x20 || first === 0x09) throw new RequestRejected(400, 'obsolete line folding');
      const colon = head.indexOf(':', start);
      if (colon === -1 || colon >= end) throw new RequestRejected(400, 'header line without colon');
      const rawName = head.slice(start, colon);
      if (rawName.endsWith(' ') || rawName.endsWith('\t')) throw new RequestRejected(400, 'whitespace before colon');
      if (!TOKEN_RE.test(rawName)) throw new RequestRejected(400, 'invalid header name');
      const rawValue = head.slice(colon + 1, end);
      if (BAD_VALUE_RE.test(rawValue)) throw new RequestRejected(400, 'control character in header value');
      const name = rawName.toLowerCase();
      const value = trimOws(rawValue);
      if (name === 'content-length') contentLengths++;
      if (name === 'host') hostFields++;
      const prior = headers.get(name);
      headers.set(name, prior === undefined ? value : `${prior}, ${value}`);
      if (raw !== undefined) raw.push([rawName, rawValue]);
      start = end + 2;
    }
    this.#contentLengthFields = contentLengths;
    this.#hostFields = hostFields;
    this.#rawHeaders = raw;
    return headers;
  }

  /** Exactly one way to know where the body ends, or none: its length, 0, or CHUNKED. */
  #readFraming(headers: ReadonlyMap<string, string>): number {
    const te = headers.get('transfer-encoding');
    const cl = headers.get('content-length');
    if (this.#contentLengthFields > 1) throw new RequestRejected(400, 'duplicate Content-Length');
    if (te !== undefined && cl !== undefined) throw new RequestRejected(400, 'both Content-Length and Transfer-Encoding');
    if (te !== undefined) {
      if (this.#version === '1.0') throw new RequestRejected(400, 'Transfer-Encoding in an HTTP/1.0 request');
      const codings = te.toLowerCase().split(',').map((c) => c.trim());
      if (codings.length !== 1 || codings[0] !== 'chunked') {
        throw new RequestRejected(codings[codings.length - 1] === 'chunked' ? 501 : 400, `unsupported Transfer-Encoding: ${te}`);
      }
      return CHUNKED;
    }
    if (cl === undefined) return 0;
    if (!/^\d{1,15}$/.test(cl)) throw new RequestRejected(400, 'invalid Content-Length');
    const length = Number(cl);
    if (length > this.limits.maxBodyBytes) throw new RequestRejected(413, 'request body too large');
    return length;
  }

  /**
   * Where the request goes (host, path, query) and how it is answered
   * (keep-alive, Expect); returns whether 100-continue was asked.
   */
  #readRouting(headers: ReadonlyMap<string, string>): boolean {
    const version = this.#version;
    const target = this.#target;
    if (this.#hostFields > 1) throw new RequestRejected(400, 'duplicate Host');
    let host = headers.get('host');
    if (version === '1.1' && host === undefined) throw new RequestRejected(400, 'missing Host');
    if (host !== undefined && !HOST_RE.test(host)) throw new RequestRejected(400, 'invalid Host');

    let pathAndQuery: string;
    if (target.startsWith('/')) {
      pathAndQuery = target;
    } else if (target === '*') {
      if (this.#method !== 'OPTIONS') throw new RequestRejected(400, 'asterisk target is only for OPTIONS');
      pathAndQuery = '*';
    } else {
      const abs = ABSOLUTE_RE.exec(target);
      if (!abs) throw new RequestRejected(400, 'invalid request target');
      const authority = abs[1] as string;
      // No userinfo, nothing a Host field could not carry.
      if (!HOST_RE.test(authority)) throw new RequestRejected(400, 'invalid authority in request target');
      host = authority; // RFC 9112 §3.2.2: the target's authority wins over Host
      const rest = abs[2] as string;
      pathAndQuery = rest === '' || rest[0] !== '/' ? `/${rest}` : rest;
    }
    const hash = pathAndQuery.indexOf('#');
    if (hash !== -1) pathAndQuery = pathAndQuery.slice(0, hash);
    const q = pathAndQuery.indexOf('?');
    this.#host = host;
    this.#path = q === -1 ? pathAndQuery : pathAndQuery.slice(0, q);
    this.#query = q === -1 ? '' : pathAndQuery.slice(q + 1);

    const connection = (headers.get('connection') ?? '').toLowerCase();
    this.#keepAlive = version === '1.1' ? !/(^|,)\s*close\s*(,|$)/.test(connection) : /(^|,)\s*keep-alive\s*(,|$)/.test(connection);

    // An HTTP/1.0 client cannot expect anything (RFC 9110 §10.1.1): ignore the field.
    const expect = version === '1.1' ? headers.get('expect') : undefined;
    if (expect !== undefined && expect.toLowerCase() !== '100-continue') throw new RequestRejected(417, `unsupported expectation: ${expect}`);
    return expect !== undefined;
  }

  /** Sets up what the hook asked to keep, once the head is accepted. */
  #startCapture(capture: RequestCapture, head: string): void {
    this.#captured = true;
    // latin1 maps bytes to chars one to one, so this gives back the bytes received.
    if (capture.rawHeaders === true) this.#rawHead = Buffer.from(`${head}\r\n\r\n`, 'latin1');
    if (capture.body === undefined) return;
    const max = capture.body.max;
    this.#keepMax = max > 0 ? Math.floor(max) : 0;
    this.#keptBytes = 0;
    this.#keptBody = EMPTY;
  }

  /**
   * Copies what fits under #keepMax of the next `n` body bytes before they are
   * consumed. Room grows with the bytes that arrive (doubling, never past the
   * body's known size), not with what Content-Length announces, so a client
   * that announces much and sends little holds little.
   */
  #keepBody(n: number): void {
    let kept = this.#keptBody as Buffer;
    const wanted = Math.min(this.#keepMax, this.#keptBytes + n);
    if (wanted === this.#keptBytes) return;
    if (wanted > kept.length) {
      // #bodyTotal is the Content-Length, or the chunk sizes so far (this chunk included).
      const grown = Buffer.alloc(Math.min(this.#keepMax, this.#bodyTotal, Math.max(wanted, 2 * kept.length)));
      kept.copy(grown, 0, 0, this.#keptBytes);
      this.#keptBody = kept = grown;
    }
    this.#buf.copy(kept, this.#keptBytes, this.#start, this.#start + (wanted - this.#keptBytes));
    this.#keptBytes = wanted;
  }

  #finish(): void {
    this.#state = 'head';
    const request = this.#captured ? this.#capturedRequest() : this.#plainRequest();
    this.#clearRequest();
    this.events.onRequest(request);
  }

  #plainRequest(): ParsedRequest {
    // A literal, not a spread: the spread cost 0.5–0.9 µs per request (bench/README.md).
    return {
      method: this.#method,
      target: this.#target,
      path: this.#path,
      query: this.#query,
      version: this.#version,
      headers: this.#headers,
      host: this.#host,
      keepAlive: this.#keepAlive,
      bodyBytes: this.#bodyTotal,
    };
  }

  /** One shape for every captured request, whichever parts were asked. */
  #capturedRequest(): ParsedRequest {
    const kept = this.#keptBody;
    return {
      method: this.#method,
      target: this.#target,
      path: this.#path,
      query: this.#query,
      version: this.#version,
      headers: this.#headers,
      host: this.#host,
      keepAlive: this.#keepAlive,
      bodyBytes: this.#bodyTotal,
      rawHeaders: this.#rawHeaders,
      rawHead: this.#rawHead,
      body: kept === undefined || kept.length === this.#keptBytes ? kept : kept.subarray(0, this.#keptBytes),
      bodyTruncated: kept === undefined ? undefined : this.#bodyTotal > this.#keptBytes,
    };
  }

  /** Drops the finished request's strings and map, so an idle connection holds none of its head. */
  #clearRequest(): void {
    this.#method = this.#target = this.#path = this.#query = '';
    this.#headers = NO_HEADERS;
    this.#host = undefined;
    this.#captured = false;
    this.#rawHeaders = undefined;
    this.#rawHead = undefined;
    this.#keptBody = undefined;
  }
}

/** `value` without the optional whitespace (SP, HTAB) around it. */
function trimOws(value: string): string {
  let from = 0;
  let to = value.length;
  while (from < to && isOws(value.charCodeAt(from))) from++;
  while (to > from && isOws(value.charCodeAt(to - 1))) to--;
  return from === 0 && to === value.length ? value : value.slice(from, to);
}

function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}
