// A strict, incremental HTTP/1.1 request parser for hostile input (DESIGN §4).
// At least as strict as llhttp: anything ambiguous in framing is refused, the
// connection is closed, and nothing after it is read. Bodies are counted and
// discarded (bounded), unless the capture hook asks, request by request, for
// the raw header lines or the first bytes of the body (inspection endpoints).
//
// This file drives the parse; its rooms are head parsing (parser-head.ts),
// body framing (parser-body.ts), the repeat fast path (parser-repeat.ts) and
// the input buffer (parser-input.ts).
import type { Readable } from 'node:stream';
import { BodyReader, CHUNKED } from './parser-body.js';
import { HeadReader } from './parser-head.js';
import { InputBuffer } from './parser-input.js';
import { RepeatedHead } from './parser-repeat.js';
import { PLAIN_HTTP1, type TransportFacts } from '../../shared/pipeline/transport.js';
import { DEFAULT_LIMITS, RequestRejected, type CaptureHook, type ParsedRequest, type ParserLimits } from './parser-types.js';

export {
  DEFAULT_LIMITS, RequestRejected, type CaptureHook, type ParsedRequest, type ParserLimits, type RawHeader, type RejectStatus, type RequestCapture,
} from './parser-types.js';

export interface ParserOptions {
  readonly capture?: CaptureHook;
}

export interface ParserEvents {
  /** A complete request (head and body) has been read. */
  onRequest(request: ParsedRequest): void;
  /** The head asked for `Expect: 100-continue` and a body will follow. */
  onContinue(): void;
  /** The input is not acceptable; the parser reads nothing more. */
  onReject(rejection: RequestRejected): void;
}

const NO_OPTIONS: ParserOptions = {};

type State = 'head' | 'body' | 'dead';

export class RequestParser {
  #state: State = 'head';
  readonly #input = new InputBuffer();
  readonly #head: HeadReader;
  readonly #body: BodyReader;
  readonly #repeat = new RepeatedHead<ParsedRequest>();
  #paused = false;
  #draining = false;

  constructor(
    private readonly events: ParserEvents,
    limits: ParserLimits = DEFAULT_LIMITS,
    options: ParserOptions = NO_OPTIONS,
    /** What every request of this input came over. */
    private readonly transport: TransportFacts = PLAIN_HTTP1,
  ) {
    this.#head = new HeadReader(limits, options.capture);
    this.#body = new BodyReader(limits);
  }

  /** True while part of a request has arrived but not all of it (or input waits while paused). */
  get midRequest(): boolean {
    return this.#state !== 'dead' && (this.#state !== 'head' || this.#input.length > 0);
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
    return this.#input.length;
  }

  /**
   * From a request that asks to switch protocols (an Upgrade field; the
   * connection calls holdForUpgrade) until its response ends, parsing holds: what follows may be the new protocol's bytes
   * (a client's first WebSocket frames in the packet of its handshake), for
   * handBackRest() after a 101, or releaseUpgrade() after another answer.
   */
  #heldForUpgrade = false;

  /**
   * Gives the bytes after the upgrade request back to `socket` (unshift, while
   * it is paused, so the protocol that reads it next gets them first); the
   * parser keeps none. A socket already ended takes nothing back.
   */
  handBackRest(socket: Readable): void {
    const rest = Buffer.from(this.#input.pending);
    this.#input.clear();
    socket.pause();
    if (rest.length > 0 && !socket.readableEnded) socket.unshift(rest);
  }

  /** Called from onRequest for a request that asks to switch protocols: parsing holds after it (see #heldForUpgrade). */
  holdForUpgrade(): void {
    this.#paused = this.#heldForUpgrade = true;
  }

  /** The upgrade request was answered without a switch: what followed it is HTTP, parsed now. False when none was held. */
  releaseUpgrade(): boolean {
    if (!this.#heldForUpgrade) return false;
    this.#heldForUpgrade = false;
    this.resume();
    return true;
  }

  /** Stops parsing; later input is ignored. */
  stop(): void {
    this.#state = 'dead';
    // Dead is not paused: the connection must not stop reading a socket it handed on (a WebSocket's).
    this.#paused = this.#heldForUpgrade = false;
    this.#input.clear();
    this.#clearRequest();
    this.#repeat.forget();
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
    if (!this.#paused || this.#heldForUpgrade) return;
    this.#paused = false;
    this.#run();
  }

  push(chunk: Buffer): void {
    if (this.#state === 'dead' || chunk.length === 0) return;
    this.#input.append(chunk);
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

  #drain(): void {
    for (;;) {
      switch (this.#state) {
        case 'dead':
          return;
        case 'head':
          if (this.#paused || !this.#readHead()) return;
          break;
        case 'body':
          if (!this.#body.read(this.#input)) return;
          this.#finish(undefined);
          break;
      }
    }
  }

  /** Returns false when more bytes are needed. */
  #readHead(): boolean {
    const input = this.#input;
    const heads = this.#head;
    // Compared in the input itself first, making no string; after empty lines (which find() skips), as the string.
    const again = this.#repeat.matchAt(input.buf, input.start, input.end);
    if (again !== undefined) {
      heads.headBytes = this.#repeat.matchedBytes;
      return this.#repeated(again);
    }
    const head = heads.find(input);
    if (head === undefined) return false;
    const repeated = this.#repeat.match(head);
    if (repeated !== undefined) return this.#repeated(repeated);
    const fieldLines = heads.checkLineEnds(head);
    heads.take(input);
    const framing = heads.read(head, fieldLines);
    const capture = heads.capture;
    if (capture?.body !== undefined) this.#body.keep(capture.body.max);
    this.#body.start(framing);
    if (framing === CHUNKED || framing > 0) {
      this.#state = 'body';
      if (heads.expectContinue) this.events.onContinue();
    } else {
      this.#finish(capture === undefined ? head : undefined);
    }
    return true;
  }

  /**
   * The previous request's head again, byte for byte (a client repeating a
   * request): parsing it would judge and give the same, so it is the same
   * request. Only heads of requests without a body or capture are kept.
   */
  #repeated(request: ParsedRequest): true {
    this.#head.take(this.#input);
    this.events.onRequest(request);
    return true;
  }

  /** `head`: the request's head when the same head again means the same request (see RepeatedHead). */
  #finish(head: string | undefined): void {
    this.#state = 'head';
    const request = this.#head.capture !== undefined ? this.#capturedRequest() : this.#plainRequest();
    this.#repeat.keep(head, request);
    this.#clearRequest();
    this.events.onRequest(request);
  }

  #plainRequest(): ParsedRequest {
    const h = this.#head;
    // A literal, not a spread: the spread cost 0.5–0.9 µs per request (bench/README.md).
    return {
      method: h.method,
      target: h.target,
      path: h.path,
      query: h.query,
      version: h.version,
      headers: h.headers,
      host: h.host,
      keepAlive: h.keepAlive,
      bodyBytes: this.#body.total,
      transport: this.transport,
    };
  }

  /** One shape for every captured request, whichever parts were asked. */
  #capturedRequest(): ParsedRequest {
    const h = this.#head;
    return {
      method: h.method,
      target: h.target,
      path: h.path,
      query: h.query,
      version: h.version,
      headers: h.headers,
      host: h.host,
      keepAlive: h.keepAlive,
      bodyBytes: this.#body.total,
      transport: this.transport,
      rawHeaders: h.rawHeaders,
      rawHead: h.rawHead,
      body: this.#body.kept,
      bodyTruncated: this.#body.truncated,
    };
  }

  /** Drops the finished request's strings, map and kept bytes: an idle connection holds none of its head but a short one kept for its repeat. */
  #clearRequest(): void {
    this.#head.clear();
    this.#body.clear();
  }
}
