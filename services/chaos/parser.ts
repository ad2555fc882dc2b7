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
 * It must answer alike for the same method and target: a request whose head
 * repeats the previous one byte for byte, after an answer of undefined, is
 * not parsed again, nor is the hook asked again.
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

/**
 * The longest head kept to recognise its repeat (see #readHead): clients'
 * heads are far shorter (wrk 40 bytes, curl 80, a browser under 1 KiB), and
 * an idle connection keeps its last one.
 */
const MAX_REMEMBERED_HEAD = 2048;

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
const SP = 0x20;
const HTAB = 0x09;
const COLON = 0x3a;
const CRLFCRLF = Buffer.from('\r\n\r\n', 'latin1');
// The head is checked by char codes, not regular expressions: the parser was
// the largest JS cost per request (issue 15). tests/unit/parser-equivalence
// holds these checks to the former regular expressions, kept in comments.
const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** tchar (RFC 9110 §5.6.2), as TOKEN_RE: 1, and 2 for an upper-case letter; 0 otherwise. */
const TCHAR = tableOf("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz", 'ABCDEFGHIJKLMNOPQRSTUVWXYZ');
/** reg-name characters of HOST_RE below (unreserved, sub-delims, '%'). */
const REG_NAME = tableOf("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~!$&'()*+,;=%-", '');
/** What an IP literal holds between its brackets in HOST_RE. */
const IP_LITERAL = tableOf('0123456789abcdefABCDEF:.', '');
// Former HOST_RE, for reference: /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]*)(:\d*)?$/
// Field values: visible ASCII, obs-text, SP and HTAB; never CTLs (NUL included) or DEL.
const BAD_VALUE_RE = /[\x00-\x08\x0a-\x1f\x7f]/;
const CONNECTION_CLOSE_RE = /(^|,)\s*close\s*(,|$)/;
const CONNECTION_KEEP_ALIVE_RE = /(^|,)\s*keep-alive\s*(,|$)/;
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
  /** The last request without a body or capture, and the head it was parsed from (see #readHead). */
  #lastHead: string | undefined;
  #lastRequest: ParsedRequest | undefined;

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
    this.#lastHead = this.#lastRequest = undefined;
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
    const start = this.#start;
    if (this.#end === start) return false;
    if (this.#buf[start] === LF) throw new RequestRejected(400, 'bare LF');

    // Common case: the whole head is here. One search finds its end, then
    // #checkLineEnds judges its line ends on the string, in the order the
    // byte scan of #scanPartialHead would.
    const buf = this.#buf;
    const end = this.#end;
    let head: string | undefined;
    let headBytes = end - start;
    if (end - start > 4 && buf[end - 1] === LF && buf[end - 2] === CR && buf[end - 3] === LF && buf[end - 4] === CR) {
      // The input ends with a blank line (one GET per read): it ends the head
      // unless an earlier one does, which a string search tells more cheaply
      // than Buffer#indexOf's native call. (A head ending in CRLF would hide
      // an earlier CRLF CRLF across the two.)
      const text = buf.toString('latin1', start, end - 4);
      if (text.indexOf('\r\n\r\n') === -1 && !text.endsWith('\r\n')) head = text;
    }
    if (head === undefined) {
      // Searched in #buf itself (no view to allocate), from where the last
      // look stopped; an owned #buf may hold stale bytes past #end, hence the bound.
      const at = buf.indexOf(CRLFCRLF, start + Math.max(0, this.#scanned - 3));
      if (at === -1 || at + 4 > end) return this.#scanPartialHead();
      head = buf.toString('latin1', start, at);
      headBytes = at + 4 - start;
    }
    if (head === this.#lastHead) {
      // The previous request's head again, byte for byte (a client repeating
      // a request): parsing it would judge and give the same, so it is the
      // same request. Only heads of requests without a body or capture are kept.
      this.#scanned = 0;
      this.#lineEnd = -1;
      this.#emptyLines = 0;
      this.#consume(headBytes);
      this.events.onRequest(this.#lastRequest as ParsedRequest);
      return true;
    }
    const fieldLines = this.#checkLineEnds(head);
    this.#scanned = 0;
    this.#lineEnd = -1;
    this.#emptyLines = 0;
    this.#consume(headBytes);
    this.#startRequest(head, fieldLines);
    return true;
  }

  /**
   * The line ends of a complete head (without its blank line's CRLF CRLF),
   * judged as #scanPartialHead judges them, first fault first; returns how
   * many field lines follow the request line (its CRLFs).
   */
  #checkLineEnds(head: string): number {
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
   * yet seen, and the limits on what is buffered. Returns false (more bytes needed).
   */
  #scanPartialHead(): false {
    const buf = this.#pending;
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
    return false;
  }

  /** A complete head (request line and fields, without the blank line) has arrived. */
  #startRequest(head: string, fieldLines: number): void {
    const lineEnd = this.#readRequestLine(head);
    const capture = this.#capture?.(this.#method, this.#target);
    const headers = this.#readFields(head, lineEnd, fieldLines, capture?.rawHeaders === true);
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
      this.#finish(capture === undefined ? head : undefined);
    }
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
    this.#method = head.slice(0, sp1);
    this.#target = head.slice(sp1 + 1, sp2);
    this.#version = minor === 0x31 ? '1.1' : '1.0';
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
    const version = this.#version;
    const target = this.#target;
    if (this.#hostFields > 1) throw new RequestRejected(400, 'duplicate Host');
    let host = headers.get('host');
    if (version === '1.1' && host === undefined) throw new RequestRejected(400, 'missing Host');
    if (host !== undefined && !isHost(host)) throw new RequestRejected(400, 'invalid Host');

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
      if (!isHost(authority)) throw new RequestRejected(400, 'invalid authority in request target');
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

    this.#keepAlive = keepAlive(version, headers.get('connection'));

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

  /** `head`: the request's head when the same head again means the same request (see #readHead). */
  #finish(head?: string): void {
    this.#state = 'head';
    const request = this.#captured ? this.#capturedRequest() : this.#plainRequest();
    // A long head is not kept: an idle connection holds at most this much of its last request.
    const kept = head !== undefined && head.length <= MAX_REMEMBERED_HEAD ? head : undefined;
    this.#lastHead = kept;
    this.#lastRequest = kept === undefined ? undefined : request;
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

  /** Drops the finished request's strings and map: an idle connection holds none of its head but a short one kept for its repeat. */
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
