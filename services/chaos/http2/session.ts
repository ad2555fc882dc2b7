// One HTTP/2 connection on the chaos host (prior knowledge: connection.ts saw
// the client's preface and handed the socket over). The reader's events become
// frames here: SETTINGS and its ACK, PING answers, window updates, refusals;
// each accepted request becomes an H2Stream the host routes through the
// registry. Our output obeys the client's flow control and frame size unless a
// lie writes raw frames; frames written in one turn leave in one write
// (turn-writes.ts). Bounds: idle 30 s without a stream, the whole connection
// MAX_RESPONSE_MS.
import type { Socket } from 'node:net';
import { corkForTurn, destroyFlushed } from '../turn-writes.js';
import {
  DEFAULT_MAX_FRAME, DEFAULT_WINDOW, ERROR, FLAG, FRAME, frame, goawayFrame, headerBlockFrames, MAX_WINDOW, pingFrame, rstStreamFrame,
  SETTING, SETTINGS_ACK, settingsFrame, windowUpdateFrame,
} from './frames.js';
import { encodeLiterals, type HeaderField } from './hpack.js';
import { FrameReader, H2_BOUNDS, type ReaderEvents } from './reader.js';
import { withholdsSettingsAck } from './settings-ack.js';

export const H2_IDLE_MS = 30_000;
const LINGER_MS = 2_000; // after our GOAWAY, the client's time to close before the socket is destroyed
const ACK_WAIT_MS = 100; // the longest a client SETTINGS' ACK waits for the first request (settings-ack.ts)

/** What a session needs from the server. */
export interface SessionHost {
  /** The connection's whole life (MAX_RESPONSE_MS). */
  readonly lifeMs: number;
  readonly idleMs?: number;
  /** A new stream's request: route it. */
  request(stream: H2Stream, fields: readonly HeaderField[]): void;
}

/** Our SETTINGS: the bounds the client must know (RFC 9113 §6.5.2). */
export const SERVER_SETTINGS: readonly (readonly [number, number])[] = [
  [SETTING.HEADER_TABLE_SIZE, 4096],
  [SETTING.MAX_CONCURRENT_STREAMS, H2_BOUNDS.maxConcurrentStreams],
  [SETTING.MAX_HEADER_LIST_SIZE, 16 * 1024],
];

export class H2Session implements ReaderEvents {
  readonly socket: Socket;
  readonly #host: SessionHost;
  readonly #reader: FrameReader;
  readonly #streams = new Map<number, H2Stream>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #idle: NodeJS.Timeout | undefined;
  #sendWindow = DEFAULT_WINDOW;
  #peerInitialWindow = DEFAULT_WINDOW;
  #peerMaxFrame = DEFAULT_MAX_FRAME;
  /** The client's SETTINGS_HEADER_TABLE_SIZE and SETTINGS_ENABLE_PUSH as it last sent them (RFC 9113 §6.5.2 defaults). */
  #peerHeaderTableSize = 4096;
  #peerEnablePush = 1;
  /**
   * SETTINGS ACKs owed: written once the chunk that carried them is read, and
   * before the first request only with it (or after ACK_WAIT_MS), so that the
   * never-ack lie can withhold the ACK of the client's first SETTINGS.
   */
  #acksOwed = 0;
  #requestSeen = false;
  #neverAck = false;
  #goawaySent = false;
  #closed = false;
  /** Whether our first SETTINGS (the server preface) is still to be written: a lie may write its own. */
  #prefaceWritten = false;

  constructor(socket: Socket, host: SessionHost, head: Buffer, writePreface = true) {
    this.socket = socket;
    this.#host = host;
    this.#reader = new FrameReader(this);
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('close', () => this.#onClose());
    socket.on('error', () => undefined);
    socket.on('end', () => this.destroy());
    if (writePreface) this.writePreface(settingsFrame(SERVER_SETTINGS));
    this.setTimer(host.lifeMs, () => this.sendGoaway(ERROR.NO_ERROR, 'connection lifetime reached'));
    this.#armIdle();
    this.#onData(head);
  }

  /** The server preface (our first SETTINGS); a lie may write another in its place, once. */
  writePreface(bytes: Buffer): void {
    if (this.#prefaceWritten) return;
    this.#prefaceWritten = true;
    this.write(bytes);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The highest stream id the client opened. */
  get lastStreamId(): number {
    return this.#reader.lastStreamId;
  }

  get peerMaxFrame(): number {
    return this.#peerMaxFrame;
  }
  get peerHeaderTableSize(): number {
    return this.#peerHeaderTableSize;
  }
  get peerEnablePush(): number {
    return this.#peerEnablePush;
  }
  /** What the client's connection window still lets us send. */
  get sendWindow(): number {
    return this.#sendWindow;
  }

  write(bytes: Buffer): void {
    if (this.#closed || this.socket.destroyed) return;
    corkForTurn(this.socket);
    this.socket.write(bytes);
  }

  /** A timer cleared when the socket closes. */
  setTimer(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
  }

  /** GOAWAY naming the last stream we took, then close once the client has had its chance to read it. */
  sendGoaway(code: number, debug: string, lastStreamId = this.#reader.lastStreamId): void {
    if (this.#goawaySent) return this.destroy();
    this.#goawaySent = true;
    this.write(goawayFrame(lastStreamId, code, debug));
    this.socket.end();
    this.setTimer(LINGER_MS, () => this.destroy());
  }

  /** A lie's end of the connection: FIN after what was written, no GOAWAY of ours; destroyed if the client lingers. */
  destroyAfterFlush(): void {
    this.#goawaySent = true;
    this.socket.end();
    this.setTimer(LINGER_MS, () => this.destroy());
  }

  destroy(): void {
    if (!this.socket.destroyed) destroyFlushed(this.socket);
  }

  #onData(chunk: Buffer): void {
    this.#armIdle();
    this.#reader.push(chunk);
    if (this.#requestSeen) this.#writeAcks();
  }

  #writeAcks(): void {
    for (; this.#acksOwed > 0; this.#acksOwed--) if (!this.#neverAck) this.write(SETTINGS_ACK);
  }

  #armIdle(): void {
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      if (this.#streams.size === 0) this.sendGoaway(ERROR.NO_ERROR, 'idle');
      else this.#armIdle();
    }, this.#host.idleMs ?? H2_IDLE_MS);
  }

  #onClose(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    if (this.#idle) clearTimeout(this.#idle);
    for (const stream of this.#streams.values()) stream.socketClosed();
    this.#streams.clear();
  }

  /** A stream ended on our side: it no longer counts against the bounds. */
  streamDone(stream: H2Stream): void {
    this.#streams.delete(stream.id);
    this.#reader.closeStream(stream.id);
  }

  /** A lie wrote `bytes` of DATA itself: the client counts them against the connection's window, so do we (RFC 9113 §6.9). */
  spent(bytes: number): void {
    this.#sendWindow -= bytes;
  }

  /** Writes DATA for a stream within the client's windows and frame size; returns what did not fit. */
  sendData(streamId: number, window: { value: number }, data: Buffer, endStream: boolean): Buffer {
    let at = 0;
    do {
      const size = Math.min(data.length - at, this.#peerMaxFrame, Math.max(0, this.#sendWindow), Math.max(0, window.value));
      if (size === 0 && data.length - at > 0) break;
      const last = at + size === data.length;
      this.write(frame(FRAME.DATA, last && endStream ? FLAG.END_STREAM : 0, streamId, data.subarray(at, at + size)));
      this.#sendWindow -= size;
      window.value -= size;
      at += size;
    } while (at < data.length);
    return data.subarray(at);
  }

  // ---- reader events ----

  request(streamId: number, fields: HeaderField[]): void {
    if (!this.#requestSeen) {
      // The client's first SETTINGS is acknowledged before the first answer, unless the first request is the never-ack lie.
      if (withholdsSettingsAck(fields)) this.#neverAck = true;
      this.#requestSeen = true;
      this.#writeAcks();
    }
    const stream = new H2Stream(this, streamId, this.#peerInitialWindow);
    this.#streams.set(streamId, stream);
    this.#host.request(stream, fields);
  }

  /** After an h2c upgrade's 101 (h2c.ts): HTTP2-Settings are the client's SETTINGS, the 101 their ACK (RFC 7540 §3.2.1); its request is stream 1. */
  upgraded(settings: ReadonlyMap<number, number>, fields: HeaderField[]): void {
    this.settings(settings, true);
    this.#reader.adoptUpgrade(fields);
  }

  requestEnded(streamId: number): void {
    this.#streams.get(streamId)?.clientEnded();
  }

  refuse(streamId: number, code: number): void {
    this.write(rstStreamFrame(streamId, code));
    this.#streams.get(streamId)?.socketClosed();
    this.#streams.delete(streamId);
    this.#reader.closeStream(streamId);
  }

  grant(streamId: number, increment: number): void {
    // A flow lie keeps the stream's window shut (its body stalls); the connection's window still comes back.
    const stream = streamId === 0 ? undefined : this.#streams.get(streamId);
    if (stream?.windowWithheld === true) return void (stream.withheldBytes += increment);
    this.write(windowUpdateFrame(streamId, increment));
  }

  /** A lie promised stream `promisedId` (PUSH_PROMISE): the client may reset it or grant it window. */
  promised(promisedId: number): void {
    this.#reader.promised(promisedId);
  }

  settings(values: ReadonlyMap<number, number>, acknowledged = false): void {
    const window = values.get(SETTING.INITIAL_WINDOW_SIZE);
    if (window !== undefined) {
      const delta = window - this.#peerInitialWindow;
      this.#peerInitialWindow = window;
      for (const stream of this.#streams.values()) {
        if (!stream.adjustWindow(delta)) return this.sendGoaway(ERROR.FLOW_CONTROL_ERROR, 'stream window above 2^31-1');
      }
    }
    this.#peerMaxFrame = values.get(SETTING.MAX_FRAME_SIZE) ?? this.#peerMaxFrame;
    this.#peerHeaderTableSize = values.get(SETTING.HEADER_TABLE_SIZE) ?? this.#peerHeaderTableSize;
    this.#peerEnablePush = values.get(SETTING.ENABLE_PUSH) ?? this.#peerEnablePush;
    // Owed until the chunk is read (#onData); before the first request, at most ACK_WAIT_MS.
    if (!acknowledged && this.#acksOwed++ === 0 && !this.#requestSeen) this.setTimer(ACK_WAIT_MS, () => this.#writeAcks());
  }

  settingsAck(): void {
    /* our settings hold from the start: they only bound the client */
  }

  ping(payload: Buffer): void {
    this.write(pingFrame(payload, true));
  }

  windowUpdate(streamId: number, increment: number): void {
    if (streamId === 0) {
      if (this.#sendWindow + increment > MAX_WINDOW) return this.sendGoaway(ERROR.FLOW_CONTROL_ERROR, 'connection window above 2^31-1');
      this.#sendWindow += increment;
      for (const stream of this.#streams.values()) stream.flush();
      return;
    }
    const stream = this.#streams.get(streamId);
    if (stream && !stream.adjustWindow(increment)) this.refuse(streamId, ERROR.FLOW_CONTROL_ERROR);
    else stream?.flush();
  }

  streamReset(streamId: number): void {
    const stream = this.#streams.get(streamId);
    this.#streams.delete(streamId);
    stream?.socketClosed();
  }

  /** The client's GOAWAY: it will open no more streams; we end our side. */
  goaway(): void {
    this.socket.end();
  }

  exhausted(lastStreamId: number): void {
    // The connection's streams are used up: the client opens a new connection for more (RFC 9113 §6.8).
    this.write(goawayFrame(lastStreamId, ERROR.NO_ERROR, 'stream limit reached'));
    this.#goawaySent = true;
  }

  connectionError(code: number, reason: string): void {
    this.#goawaySent = false;
    this.sendGoaway(code, reason);
  }
}

/** One request's stream: what a handler writes its answer through. */
export class H2Stream {
  readonly session: H2Session;
  readonly id: number;
  readonly #window: { value: number };
  #pending: Buffer | undefined;
  #pendingEnd = false;
  #headersSent = false;
  #ended = false;
  #closed = false;
  #clientEnded = false;
  #status: number | undefined;
  #bytes = 0;
  /** Set by a flow lie: the reader's WINDOW_UPDATEs for this stream's request body are not sent (withheldBytes counts them). */
  windowWithheld = false;
  withheldBytes = 0;
  readonly #done: (() => void)[] = [];
  readonly #writable: (() => void)[] = [];
  readonly #requestEndWaiters: (() => void)[] = [];

  constructor(session: H2Session, id: number, initialWindow: number) {
    this.session = session;
    this.id = id;
    this.#window = { value: initialWindow };
  }

  get status(): number | undefined {
    return this.#status;
  }
  get bytesWritten(): number {
    return this.#bytes;
  }
  get headersSent(): boolean {
    return this.#headersSent;
  }
  get ended(): boolean {
    return this.#ended;
  }
  /** The stream or the connection is gone: writes are no-ops. */
  get closed(): boolean {
    return this.#closed || this.session.closed;
  }
  get requestEnded(): boolean {
    return this.#clientEnded;
  }
  /** What the client's window for this stream still lets us send. */
  get sendWindow(): number {
    return this.#window.value;
  }

  /** HEADERS with the fields as given (names are not lowercased here: a lie may want them as they are). */
  headers(status: number | undefined, fields: readonly HeaderField[], endStream: boolean): void {
    if (this.closed || this.#headersSent) return;
    this.#headersSent = true;
    this.#status = status;
    const all: HeaderField[] = status === undefined ? [...fields] : [[':status', String(status)], ...fields];
    // A block larger than the client's frame size goes on in CONTINUATION frames (a /huge-header lie is a big block, not a bad frame).
    this.session.write(headerBlockFrames(this.id, encodeLiterals(all), endStream, this.session.peerMaxFrame));
    if (endStream) this.#finish();
  }

  /** DATA within the client's windows; the rest waits for WINDOW_UPDATE. Returns false while some waits. */
  data(chunk: Buffer, endStream = false): boolean {
    if (this.closed || this.#ended) return false;
    this.#bytes += chunk.length;
    const all = this.#pending ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#pendingEnd = endStream;
    this.#pending = undefined;
    const rest = this.session.sendData(this.id, this.#window, all, endStream);
    if (rest.length > 0) {
      this.#pending = Buffer.from(rest);
      return false;
    }
    if (endStream) this.#finish();
    return true;
  }

  /** Ends the stream with an empty DATA frame carrying END_STREAM (or with what still waits). */
  end(): void {
    if (this.closed || this.#ended) return;
    if (this.#pending) {
      this.#pendingEnd = true;
      return;
    }
    this.session.write(frame(FRAME.DATA, FLAG.END_STREAM, this.id));
    this.#finish();
  }

  rst(code: number): void {
    if (this.closed) return;
    this.session.write(rstStreamFrame(this.id, code));
    this.#closed = true;
    this.#finish();
  }

  whenWritable(fn: () => void): void {
    if (this.#pending === undefined) fn();
    else this.#writable.push(fn);
  }

  /** Runs `fn` once the stream is over (ended, reset, or the connection gone). */
  whenDone(fn: () => void): void {
    if (this.#ended || this.closed) fn();
    else this.#done.push(fn);
  }

  /** More window arrived: send what waited. */
  flush(): void {
    if (this.#pending === undefined || this.closed) return;
    const waiting = this.#pending;
    this.#pending = undefined;
    this.#bytes -= waiting.length;
    if (this.data(waiting, this.#pendingEnd)) for (const fn of this.#writable.splice(0)) fn();
  }

  /** Ends a flow lie: the window withheld from the client's body is given back. */
  releaseWindow(): void {
    this.windowWithheld = false;
    if (this.withheldBytes > 0 && !this.closed) this.session.write(windowUpdateFrame(this.id, this.withheldBytes));
    this.withheldBytes = 0;
  }

  adjustWindow(delta: number): boolean {
    if (this.#window.value + delta > MAX_WINDOW) return false;
    this.#window.value += delta;
    return true;
  }

  clientEnded(): void {
    this.#clientEnded = true;
    for (const fn of this.#requestEndWaiters.splice(0)) fn();
  }

  /** Runs `fn` once the client has ended its request (at once if it has). */
  whenRequestEnded(fn: () => void): void {
    if (this.#clientEnded) fn();
    else this.#requestEndWaiters.push(fn);
  }

  socketClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#finish();
  }

  #finish(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.session.streamDone(this);
    for (const fn of this.#done.splice(0)) fn();
  }
}
