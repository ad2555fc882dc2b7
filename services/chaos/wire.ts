// The raw response writer (issue 2 §4): an endpoint controls every byte — the
// status line, header lines exactly as given, body bytes on a schedule — and
// how the connection ends. Every timer it hands out dies with the socket.
import type { Socket } from 'node:net';
import type { Recordings } from '../../shared/pipeline/decision-memo.js';
import { dateLine, formatHead, reasonPhrase, type HeaderList } from '../../shared/primitives/headers.js';
import { armStep, cancelStep, Step } from './step-timers.js';
import { corkForTurn, destroyFlushed, flushTurn } from './turn-writes.js';

/**
 * How a response leaves its connection:
 * - keep-alive: framing was honest; the next pipelined request is served (or the
 *   connection closes if the client asked for that);
 * - close: FIN after the bytes are flushed;
 * - hold: the framing lied about a body still to come: read nothing more, answer
 *   nothing more, keep the socket open until the client gives up (or the hold ends);
 * - reset: TCP RST, dropping anything unsent;
 * - upgrade: after a 101, another protocol owns the socket (Wire.upgrade).
 */
export type EndAction = 'keep-alive' | 'close' | 'hold' | 'reset' | 'upgrade';

/** What the connection does for a response once its handler ends it. */
export interface WireOwner {
  finished(wire: Wire, action: EndAction): void;
}

/**
 * What an endpoint writes its response to: the Wire itself, or a fault stage
 * wrapping it (services/chaos/faults/). Waits handed out here die with the socket.
 */
export interface ResponseSink {
  /** HEAD: the head goes out, body writes are dropped. */
  readonly headOnly: boolean;
  /** The client went away (or we closed); every write is now a no-op. */
  readonly closed: boolean;
  readonly headWritten: boolean;
  readonly ended: boolean;
  /** Writes the status line and header lines exactly as given. */
  head(status: number, headers: HeaderList, reason?: string): void;
  /** Writes a head given as text, byte for byte (latin1). */
  rawHead(text: string): void;
  /** Writes body bytes; returns false when the caller should wait (whenWritable). */
  write(chunk: Buffer | string): boolean;
  /**
   * Bytes outside the HTTP framing (a head sent in pieces, garbage): sent even
   * for HEAD; they count as the head written. `headStatus`: the final status
   * of the head these bytes are part of, recorded for observation.
   */
  writeRaw(chunk: Buffer | string, headStatus?: number): boolean;
  /** Ends the response; `action` says what becomes of the connection. */
  end(action?: EndAction): void;
  /** A timer that is cleared if the client goes away first. */
  setTimer(ms: number, fn: () => void): void;
  /** Calls `fn` once more can be written (at once if it already can). */
  whenWritable(fn: () => void): void;
  /** Runs `listener` when the socket closes; returns a function that unregisters it. */
  onClose(listener: () => void): () => void;
}

/**
 * A whole response as Wire.respond wrote it, encoded once: a replayable
 * endpoint's answer, written again for the next request of the same decision
 * and variant (WireResponder.replay) with the current Date line in place.
 */
export class RecordedResponse {
  #bytes: Buffer;
  #date: string;

  constructor(
    readonly status: number,
    /** Head and body as they went out (the head alone for a HEAD variant), with `date` as the Date line at `dateAt`. */
    bytes: Buffer,
    readonly dateAt: number,
    date: string,
    readonly action: EndAction,
  ) {
    this.#bytes = bytes;
    this.#date = date;
  }

  /**
   * The response with `date` as its Date line: one buffer shared by every
   * replay of the same second, a new one when the date moves on (a written
   * buffer may still wait in a socket's queue, so it is never rewritten).
   * Undefined when `date` is not as long as the line it replaces.
   */
  bytesWith(date: string): Buffer | undefined {
    if (date === this.#date) return this.#bytes;
    if (date.length !== this.#date.length) return undefined;
    const fresh = Buffer.allocUnsafeSlow(this.#bytes.length);
    this.#bytes.copy(fresh);
    fresh.write(date, this.dateAt, 'latin1');
    this.#bytes = fresh;
    this.#date = date;
    return fresh;
  }
}

export class Wire implements ResponseSink {
  #headWritten = false;
  /** A head written by rawHead and not yet on the socket (see rawHead). */
  #pendingHead: string | undefined;
  #ended = false;
  #closed = false;
  /** Stall timers of waits for drain (whenWritable). */
  #timers: Set<NodeJS.Timeout> | undefined;
  /** The response's scheduled steps (setTimer): one kept and re-armed, more only while several wait at once. */
  #step: Step | undefined;
  #moreSteps: Step[] | undefined;
  #closeListeners: (() => void)[] | undefined;
  /** Bytes handed to the socket, head included, less what a reset dropped (for logs and metrics). */
  bytesWritten = 0;
  #status: number | undefined;
  #endAction: EndAction | undefined;
  /** Where respond() keeps its response (a replayable endpoint's first answer in this variant). */
  #recordings: Recordings | undefined;
  #variant = 0;

  constructor(
    private readonly socket: Socket,
    private readonly owner: WireOwner,
    /** HEAD: the head goes out, body writes are dropped. */
    readonly headOnly: boolean,
    /** A client that reads nothing for this long while we wait to write is cut off (0: never); the connection's idle time. */
    readonly stallMs: number = 0,
  ) {}

  /** The client went away (or we closed); every write is now a no-op. */
  get closed(): boolean {
    return this.#closed;
  }

  get headWritten(): boolean {
    return this.#headWritten;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** The final status sent (after any interim 1xx heads); undefined while no head, or an unparsable raw one. */
  get status(): number | undefined {
    return this.#status;
  }

  /** How the handler ended the response (as asked: the connection turns a HEAD's hold into keep-alive); undefined until it has. */
  get endAction(): EndAction | undefined {
    return this.#endAction;
  }

  /** Called by the connection when the socket closes: cancels every wait. */
  socketClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#clearTimers();
    const listeners = this.#closeListeners;
    this.#closeListeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  /** Runs `listener` when the socket closes (at once if it has); returns a function that unregisters it. */
  onClose(listener: () => void): () => void {
    if (this.#closed) {
      listener();
      return noop;
    }
    const listeners = (this.#closeListeners ??= []);
    listeners.push(listener);
    return () => {
      const i = listeners.indexOf(listener);
      if (i !== -1) listeners.splice(i, 1);
    };
  }

  /**
   * A timer that is cleared if the client goes away first (or the response
   * ends). It never fires before `ms` have passed, and its writes leave at
   * once (step-timers.ts: one timer structure for every response's steps).
   */
  setTimer(ms: number, fn: () => void): void {
    if (this.#closed || this.#ended) return;
    armStep(this.#freeStep(), ms, fn);
  }

  /** The wire's own step when it is not armed, else one of the others (made while several wait at once). */
  #freeStep(): Step {
    const own = (this.#step ??= new Step());
    if (!own.armed) return own;
    const more = (this.#moreSteps ??= []);
    for (const step of more) if (!step.armed) return step;
    const step = new Step();
    more.push(step);
    return step;
  }

  #clearTimers(): void {
    if (this.#timers) for (const t of this.#timers) clearTimeout(t);
    this.#timers = undefined;
    if (this.#step) cancelStep(this.#step);
    if (this.#moreSteps) for (const step of this.#moreSteps) cancelStep(step);
    this.#moreSteps = undefined;
  }

  /** Writes the status line and header lines exactly as given. */
  head(status: number, headers: HeaderList, reason: string = reasonPhrase(status)): void {
    this.#holdHead(formatHead(status, reason, headers), status);
  }

  /** Writes a head given as text, byte for byte (latin1); its status is parsed from the text. */
  rawHead(text: string): void {
    this.#holdHead(text, statusOfHead(text));
  }

  /**
   * A whole response known at once (the common case): head and body leave now
   * in one write, then the response ends with `action`. HEAD: the head alone.
   * No deferral is needed, unlike head(), which cannot know whether a body follows.
   */
  respond(status: number, head: string, body: Buffer | undefined, action: EndAction = 'keep-alive'): void {
    this.#claimHead();
    if (this.#recordings !== undefined) this.#record(status, head, body, action);
    if (!this.#closed) {
      this.#status = status;
      corkForTurn(this.socket);
      this.bytesWritten += head.length;
      if (body === undefined || body.length === 0 || this.headOnly) this.socket.write(head, 'latin1');
      else {
        this.bytesWritten += body.length;
        this.#writeWithHead(head, body);
      }
    }
    this.end(action);
  }

  /** respond() keeps the response it writes in `recordings.byVariant[variant]` (see RecordedResponse). */
  recordInto(recordings: Recordings, variant: number): void {
    this.#recordings = recordings;
    this.#variant = variant;
  }

  #record(status: number, head: string, body: Buffer | undefined, action: EndAction): void {
    const recordings = this.#recordings as Recordings;
    this.#recordings = undefined;
    if (recordings.byVariant[this.#variant] !== undefined) return;
    // The head was built with this second's Date line; past a second boundary it is not found, and nothing is kept.
    const date = dateLine();
    const at = head.indexOf(date);
    if (at === -1 || (body !== undefined && body.length > JOIN_MAX_BYTES)) return;
    // What went out, in a buffer of its own: a body is often a view of a larger buffer (a seeded stream, a pool slab) it would keep alive.
    const bodyLength = body === undefined || this.headOnly ? 0 : body.length;
    if (!recordings.reserve(head.length + bodyLength)) return;
    const bytes = Buffer.allocUnsafeSlow(head.length + bodyLength);
    bytes.write(head, 0, 'latin1');
    if (bodyLength > 0) (body as Buffer).copy(bytes, head.length);
    recordings.byVariant[this.#variant] = new RecordedResponse(status, bytes, at, date, action);
  }

  /** A recorded response (RecordedResponse.bytesWith) as one write, then the response ends with `action`. */
  respondRecorded(status: number, bytes: Buffer, action: EndAction): void {
    this.#claimHead();
    if (!this.#closed) {
      this.#status = status;
      corkForTurn(this.socket);
      this.bytesWritten += bytes.length;
      this.socket.write(bytes);
    }
    this.end(action);
  }

  #claimHead(): void {
    if (this.#headWritten) throw new Error('response head already written');
    this.#headWritten = true;
  }

  #holdHead(text: string, status: number | undefined): void {
    this.#claimHead();
    if (this.#closed) return;
    this.#status = status;
    // Held until the first body bytes of this tick, so head and body leave in
    // one write (one buffer, one syscall); flushed alone at the end of the tick
    // or when the response ends, whichever comes first. Faults rely on this:
    // a stage that passes the head on and its body later (or never) gets the
    // head on the wire by itself.
    this.#pendingHead = text;
    this.bytesWritten += text.length;
    process.nextTick(flushHead, this);
  }

  /** Sends a head still held back by rawHead (no-op when there is none). */
  flushHead(): void {
    const head = this.#pendingHead;
    if (head === undefined) return;
    this.#pendingHead = undefined;
    if (this.#closed) return;
    corkForTurn(this.socket);
    this.socket.write(head, 'latin1');
  }

  /**
   * After a 101 head: ends the response and hands the socket to the protocol
   * that takes over (a WebSocket, services/chaos/websocket/). The connection
   * reads no more HTTP and holds the socket until it closes (MAX_RESPONSE_MS
   * at most), still counted as the held response it is.
   */
  upgrade(): Socket {
    this.end('upgrade');
    return this.socket;
  }

  /** Writes body bytes; returns false when the caller should wait for drain. */
  write(chunk: Buffer | string): boolean {
    if (this.#closed || this.headOnly) return true;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    this.bytesWritten += bytes.length;
    corkForTurn(this.socket);
    const head = this.#pendingHead;
    if (head === undefined) return this.socket.write(bytes);
    this.#pendingHead = undefined;
    return this.#writeWithHead(head, bytes);
  }

  /** Head and body in one syscall: joined in one buffer, or side by side when the body is large. */
  #writeWithHead(head: string, bytes: Buffer): boolean {
    if (bytes.length > JOIN_MAX_BYTES) {
      // A large body is often a view of a shared buffer (the /truncate pattern,
      // cached seed streams): hand it over as is, beside the head, in one
      // writev. A copy per response would pin memory for every slow reader.
      this.socket.cork();
      this.socket.write(head, 'latin1');
      const more = this.socket.write(bytes);
      this.socket.uncork();
      return more;
    }
    const joined = Buffer.allocUnsafe(head.length + bytes.length);
    joined.write(head, 0, 'latin1');
    bytes.copy(joined, head.length);
    return this.socket.write(joined);
  }

  writeRaw(chunk: Buffer | string, headStatus?: number): boolean {
    if (this.#closed) return true;
    this.#headWritten = true;
    if (headStatus !== undefined) this.#status = headStatus;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    this.flushHead();
    if (bytes.length === 0) return !this.socket.writableNeedDrain;
    this.bytesWritten += bytes.length;
    corkForTurn(this.socket);
    return this.socket.write(bytes);
  }

  /** Calls `fn` once the socket can take more (at once if it already can). */
  whenWritable(fn: () => void): void {
    if (this.#closed || this.#ended) return;
    if (!this.socket.writableNeedDrain) {
      fn();
      return;
    }
    // One listener pair per wait, each removing the other, so long streams under
    // backpressure do not accumulate listeners.
    let stall: NodeJS.Timeout | undefined;
    const onDrain = (): void => {
      if (stall) {
        clearTimeout(stall);
        this.#timers?.delete(stall);
      }
      unregister();
      if (!this.#closed && !this.#ended) fn();
    };
    this.socket.once('drain', onDrain);
    const unregister = this.onClose(() => this.socket.off('drain', onDrain));
    // Waiting on a client that never reads would hold the connection for ever.
    // Kept with the other timers, so it also dies when the response ends.
    if (this.stallMs > 0) {
      stall = setTimeout(() => destroyFlushed(this.socket), this.stallMs);
      (this.#timers ??= new Set()).add(stall);
    }
  }

  /** Ends the response; `action` says what becomes of the connection. */
  end(action: EndAction = 'keep-alive'): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#endAction = action;
    // The head goes out before whatever the connection does next (the next
    // pipelined response, a FIN, a hold); a reset drops it with anything unsent.
    if (action === 'reset') {
      // What this turn's batch holds back was written before the reset: it goes first, as it would unbatched.
      flushTurn(this.socket);
      this.#dropUnsent();
    } else this.flushHead();
    this.#clearTimers();
    this.owner.finished(this, action);
  }

  /** A reset discards the held head and what the socket still buffers: neither reaches the client. */
  #dropUnsent(): void {
    if (this.#pendingHead !== undefined) this.bytesWritten -= this.#pendingHead.length;
    this.#pendingHead = undefined;
    // The buffer's tail is this response's; anything before it belongs to earlier ones.
    if (!this.#closed) this.bytesWritten -= Math.min(this.socket.writableLength, this.bytesWritten);
  }
}

/**
 * The final status a raw head carries: the code on its last status line, so
 * interim 1xx heads before the final one are skipped. Undefined when no line
 * parses (the head is a lie too broken to name a status).
 */
export function statusOfHead(text: string): number | undefined {
  let status: number | undefined;
  for (const match of text.matchAll(STATUS_LINE)) status = Number(match[1]);
  return status;
}

const STATUS_LINE = /^HTTP\/\d(?:\.\d)? (\d{3})(?=[ \r\n]|$)/gm;

/** Bodies up to this size leave joined with the head in one buffer; larger ones are not copied. */
export const JOIN_MAX_BYTES = 16 * 1024;

function noop(): void {}

function flushHead(wire: Wire): void {
  wire.flushHead();
}
