// The client's half of an HTTP/2 connection on the chaos host: bytes in,
// protocol events out. It checks what RFC 9113 asks of a server's reader and
// every bound of issue 28 ("The reader faces hostile clients"); it writes
// nothing itself (the session turns its events into frames), so every bound
// is testable on bytes alone. After a connection error it reads nothing more.
import { DEFAULT_MAX_FRAME, DEFAULT_WINDOW, ERROR, FLAG, FRAME, MAX_WINDOW, PREFACE, SETTING } from './frames.js';
import { HpackDecoder, HpackError, HPACK_LIMITS, type HeaderField } from './hpack.js';

export const H2_BOUNDS = {
  /** A header block, HEADERS and its CONTINUATIONs together, in bytes. */
  maxHeaderBlockBytes: 16 * 1024,
  /** CONTINUATION frames after one HEADERS (the CVE-2024-27316 family floods them). */
  maxContinuations: 32,
  /** Streams in progress at once (advertised as SETTINGS_MAX_CONCURRENT_STREAMS). */
  maxConcurrentStreams: 8,
  /** Streams over the connection's life; then GOAWAY NO_ERROR and a new connection. */
  maxTotalStreams: 100,
  /** RST_STREAM frames a client may send (rapid reset, CVE-2023-44487); then GOAWAY ENHANCE_YOUR_CALM. */
  maxClientResets: 50,
  /** SETTINGS frames, and PING frames, per second each. */
  maxControlPerSecond: 10,
  /** Request body bytes a stream may send; past it the stream gets no more window. */
  maxBodyBytes: 1024 * 1024,
} as const;

/** What RFC 9113 §6.5.2 forbids in a SETTINGS value (the reader's, and an h2c upgrade's HTTP2-Settings): the error and why. */
export function settingError(id: number, value: number): readonly [code: number, reason: string] | undefined {
  if (id === SETTING.ENABLE_PUSH && value > 1) return [ERROR.PROTOCOL_ERROR, 'SETTINGS_ENABLE_PUSH above 1'];
  if (id === SETTING.INITIAL_WINDOW_SIZE && value > MAX_WINDOW) return [ERROR.FLOW_CONTROL_ERROR, 'SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1'];
  if (id === SETTING.MAX_FRAME_SIZE && (value < DEFAULT_MAX_FRAME || value > 2 ** 24 - 1)) return [ERROR.PROTOCOL_ERROR, 'SETTINGS_MAX_FRAME_SIZE out of range'];
  return undefined;
}

/** What the reader found; the session answers each. */
export interface ReaderEvents {
  /** A new stream's request head. */
  request(streamId: number, fields: HeaderField[], endStream: boolean): void;
  /** The client ended its side of a stream (DATA or trailers with END_STREAM). */
  requestEnded(streamId: number): void;
  /** A stream error: RST_STREAM with `code`. */
  refuse(streamId: number, code: number): void;
  /** Window to give back: WINDOW_UPDATE (0 = the connection). */
  grant(streamId: number, increment: number): void;
  /** The client's SETTINGS (not an ACK): to apply and acknowledge. */
  settings(values: ReadonlyMap<number, number>): void;
  settingsAck(): void;
  /** A PING to answer with the same payload. */
  ping(payload: Buffer): void;
  windowUpdate(streamId: number, increment: number): void;
  streamReset(streamId: number, code: number): void;
  goaway(lastStreamId: number, code: number): void;
  /** The stream that used up the connection's streams: GOAWAY NO_ERROR naming it. */
  exhausted(lastStreamId: number): void;
  /** GOAWAY with `code`, then close. */
  connectionError(code: number, reason: string): void;
}

interface InboundStream {
  bodyBytes: number;
  window: number;
  remoteEnded: boolean;
}

/** The header block being assembled from HEADERS and CONTINUATION. */
interface PendingBlock {
  readonly streamId: number;
  readonly endStream: boolean;
  readonly parts: Buffer[];
  bytes: number;
  continuations: number;
}

export class FrameReader {
  readonly #events: ReaderEvents;
  readonly #now: () => number;
  readonly #hpack = new HpackDecoder(HPACK_LIMITS);
  /** Input not yet read, and how many bytes the next step needs. */
  #chunks: Buffer[] = [];
  #held = 0;
  #need = 9;
  #prefaceSeen = false;
  #settingsSeen = false;
  #dead = false;
  #block: PendingBlock | undefined;
  readonly #streams = new Map<number, InboundStream>();
  #lastStreamId = 0;
  /** The highest stream a push lie of ours promised (even ids are ours, RFC 9113 §5.1.1). */
  #lastPromisedId = 0;
  #accepted = 0;
  #resets = 0;
  #connectionWindow = DEFAULT_WINDOW;
  readonly #settingsTimes: number[] = [];
  readonly #pingTimes: number[] = [];

  constructor(events: ReaderEvents, now: () => number = () => performance.now(), prefaceRead = false) {
    this.#events = events;
    this.#now = now;
    this.#prefaceSeen = prefaceRead;
  }

  /** Streams in progress (the client's side open or our response not ended). */
  get openStreams(): number {
    return this.#streams.size;
  }

  get dead(): boolean {
    return this.#dead;
  }

  /** The highest stream the client opened. */
  get lastStreamId(): number {
    return this.#lastStreamId;
  }

  /** A lie of ours promised this stream: the client may now reset it or send WINDOW_UPDATE on it. */
  promised(streamId: number): void {
    this.#lastPromisedId = Math.max(this.#lastPromisedId, streamId);
  }

  /** After an h2c upgrade's 101 (h2c.ts): its request is stream 1, half-closed (remote); the client's preface comes next (RFC 7540 §3.2). */
  adoptUpgrade(fields: HeaderField[]): void {
    this.#lastStreamId = this.#accepted = 1;
    this.#streams.set(1, { bodyBytes: 0, window: DEFAULT_WINDOW, remoteEnded: true });
    this.#events.request(1, fields, true);
    this.#events.requestEnded(1);
  }

  /** Whether no one has opened the stream yet: the client's odd ids, our even (promised) ones (RFC 9113 §5.1). */
  #idle(streamId: number): boolean {
    return streamId % 2 === 1 ? streamId > this.#lastStreamId : streamId > this.#lastPromisedId;
  }

  /** Our response on the stream ended (END_STREAM or RST_STREAM sent): it no longer counts as in progress. */
  closeStream(streamId: number): void {
    this.#streams.delete(streamId);
  }

  /** Bytes waiting for the rest of their frame (at most one frame header and payload). */
  get heldBytes(): number {
    return this.#held;
  }

  push(chunk: Buffer): void {
    if (this.#dead || chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#held += chunk.length;
    // Nothing is joined until the piece waited for is complete: a frame fed byte by byte costs no quadratic copying.
    if (this.#held < this.#need) return;
    let input = this.#chunks.length === 1 ? chunk : Buffer.concat(this.#chunks, this.#held);
    this.#chunks = [];
    this.#held = 0;
    this.#need = 9;
    if (!this.#prefaceSeen) {
      const have = Math.min(input.length, PREFACE.length);
      if (!input.subarray(0, have).equals(PREFACE.subarray(0, have))) return this.#fail(ERROR.PROTOCOL_ERROR, 'bad connection preface');
      if (input.length < PREFACE.length) return this.#keep(input, PREFACE.length);
      this.#prefaceSeen = true;
      input = input.subarray(PREFACE.length);
    }
    let at = 0;
    while (!this.#dead && input.length - at >= 9) {
      const length = input.readUIntBE(at, 3);
      if (length > DEFAULT_MAX_FRAME) return this.#fail(ERROR.FRAME_SIZE_ERROR, `frame of ${length} bytes, above ${DEFAULT_MAX_FRAME}`);
      if (input.length - at < 9 + length) return this.#keep(input.subarray(at), 9 + length);
      const type = input[at + 3] as number;
      const flags = input[at + 4] as number;
      const streamId = input.readUInt32BE(at + 5) & 0x7fffffff;
      const payload = input.subarray(at + 9, at + 9 + length);
      at += 9 + length;
      this.#frame(type, flags, streamId, payload);
    }
    if (!this.#dead && at < input.length) this.#keep(input.subarray(at), 9);
  }

  /** Keeps an incomplete piece (a copy: it must not keep the whole chunk alive) until `need` bytes are there. */
  #keep(rest: Buffer, need: number): void {
    this.#chunks = [Buffer.from(rest)];
    this.#held = rest.length;
    this.#need = need;
  }

  #fail(code: number, reason: string): void {
    if (this.#dead) return;
    this.#dead = true;
    this.#chunks = [];
    this.#held = 0;
    this.#block = undefined;
    this.#events.connectionError(code, reason);
  }

  #frame(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (!this.#settingsSeen) {
      // The preface ends with the client's SETTINGS (RFC 9113 §3.4).
      if (type !== FRAME.SETTINGS || (flags & FLAG.ACK) !== 0) return this.#fail(ERROR.PROTOCOL_ERROR, 'the preface must be followed by SETTINGS');
      this.#settingsSeen = true;
    }
    if (this.#block !== undefined) {
      if (type !== FRAME.CONTINUATION || streamId !== this.#block.streamId) return this.#fail(ERROR.PROTOCOL_ERROR, 'header block interrupted');
      return this.#continuation(this.#block, flags, payload);
    }
    switch (type) {
      case FRAME.DATA: return this.#data(flags, streamId, payload);
      case FRAME.HEADERS: return this.#headers(flags, streamId, payload);
      case FRAME.PRIORITY:
        if (streamId === 0) return this.#fail(ERROR.PROTOCOL_ERROR, 'PRIORITY on stream 0');
        if (payload.length !== 5) this.#events.refuse(streamId, ERROR.FRAME_SIZE_ERROR);
        return;
      case FRAME.RST_STREAM: return this.#reset(streamId, payload);
      case FRAME.SETTINGS: return this.#settings(flags, streamId, payload);
      case FRAME.PUSH_PROMISE: return this.#fail(ERROR.PROTOCOL_ERROR, 'a client sent PUSH_PROMISE');
      case FRAME.PING: return this.#ping(flags, streamId, payload);
      case FRAME.GOAWAY:
        if (streamId !== 0) return this.#fail(ERROR.PROTOCOL_ERROR, 'GOAWAY on a stream');
        if (payload.length < 8) return this.#fail(ERROR.FRAME_SIZE_ERROR, 'GOAWAY shorter than 8 bytes');
        return this.#events.goaway(payload.readUInt32BE(0) & 0x7fffffff, payload.readUInt32BE(4));
      case FRAME.WINDOW_UPDATE: return this.#windowUpdate(streamId, payload);
      case FRAME.CONTINUATION: return this.#fail(ERROR.PROTOCOL_ERROR, 'CONTINUATION without HEADERS');
      default:
        // Unknown frame types are ignored (RFC 9113 §4.1).
        return;
    }
  }

  /** The payload without its padding (PADDED flag), or undefined after a connection error. */
  #unpad(flags: number, payload: Buffer, what: string): Buffer | undefined {
    if ((flags & FLAG.PADDED) === 0) return payload;
    if (payload.length < 1) return this.#fail(ERROR.FRAME_SIZE_ERROR, `${what} too short for its padding`), undefined;
    const padLength = payload[0] as number;
    if (padLength >= payload.length) return this.#fail(ERROR.PROTOCOL_ERROR, `${what} padding longer than its payload`), undefined;
    return payload.subarray(1, payload.length - padLength);
  }

  #data(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0) return this.#fail(ERROR.PROTOCOL_ERROR, 'DATA on stream 0');
    this.#connectionWindow -= payload.length;
    if (this.#connectionWindow < 0) return this.#fail(ERROR.FLOW_CONTROL_ERROR, 'DATA beyond the connection window');
    // The whole frame, padding included, counts against flow control; the connection's window comes back at once.
    if (payload.length > 0) {
      this.#connectionWindow += payload.length;
      this.#events.grant(0, payload.length);
    }
    const body = this.#unpad(flags, payload, 'DATA');
    if (body === undefined) return;
    const stream = this.#streams.get(streamId);
    if (stream === undefined) {
      if (streamId > this.#lastStreamId) return this.#fail(ERROR.PROTOCOL_ERROR, 'DATA on an idle stream');
      // A stream we have finished with: in-flight data, counted above and dropped.
      return;
    }
    if (stream.remoteEnded) return this.#events.refuse(streamId, ERROR.STREAM_CLOSED);
    stream.window -= payload.length;
    if (stream.window < 0) return this.#events.refuse(streamId, ERROR.FLOW_CONTROL_ERROR);
    stream.bodyBytes += body.length;
    // Bodies are counted and dropped; past the bound the stream's window is not given back (the client stalls).
    if (payload.length > 0 && stream.bodyBytes <= H2_BOUNDS.maxBodyBytes) {
      stream.window += payload.length;
      this.#events.grant(streamId, payload.length);
    }
    if ((flags & FLAG.END_STREAM) !== 0) {
      stream.remoteEnded = true;
      this.#events.requestEnded(streamId);
    }
  }

  #headers(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0) return this.#fail(ERROR.PROTOCOL_ERROR, 'HEADERS on stream 0');
    let fragment = this.#unpad(flags, payload, 'HEADERS');
    if (fragment === undefined) return;
    if ((flags & FLAG.PRIORITY) !== 0) {
      if (fragment.length < 5) return this.#fail(ERROR.FRAME_SIZE_ERROR, 'HEADERS too short for its priority');
      fragment = fragment.subarray(5);
    }
    const block: PendingBlock = { streamId, endStream: (flags & FLAG.END_STREAM) !== 0, parts: [], bytes: 0, continuations: 0 };
    if (!this.#addFragment(block, fragment)) return;
    if ((flags & FLAG.END_HEADERS) !== 0) this.#blockDone(block);
    else this.#block = block;
  }

  #continuation(block: PendingBlock, flags: number, payload: Buffer): void {
    if (++block.continuations > H2_BOUNDS.maxContinuations) {
      return this.#fail(ERROR.ENHANCE_YOUR_CALM, `more than ${H2_BOUNDS.maxContinuations} CONTINUATION frames`);
    }
    if (!this.#addFragment(block, payload)) return;
    if ((flags & FLAG.END_HEADERS) !== 0) {
      this.#block = undefined;
      this.#blockDone(block);
    }
  }

  #addFragment(block: PendingBlock, fragment: Buffer): boolean {
    block.bytes += fragment.length;
    if (block.bytes > H2_BOUNDS.maxHeaderBlockBytes) {
      this.#fail(ERROR.ENHANCE_YOUR_CALM, `header block larger than ${H2_BOUNDS.maxHeaderBlockBytes} bytes`);
      return false;
    }
    // A copy: the fragment's chunk is not kept.
    block.parts.push(Buffer.from(fragment));
    return true;
  }

  #blockDone(block: PendingBlock): void {
    let fields: HeaderField[];
    try {
      fields = this.#hpack.decode(block.parts.length === 1 ? (block.parts[0] as Buffer) : Buffer.concat(block.parts));
    } catch (error) {
      if (!(error instanceof HpackError)) throw error;
      return this.#fail(error.bound ? ERROR.ENHANCE_YOUR_CALM : ERROR.COMPRESSION_ERROR, error.message);
    }
    const { streamId, endStream } = block;
    const existing = this.#streams.get(streamId);
    if (existing !== undefined) {
      // Trailers: they must end the stream (RFC 9113 §8.1).
      if (existing.remoteEnded || !endStream) return this.#events.refuse(streamId, ERROR.PROTOCOL_ERROR);
      existing.remoteEnded = true;
      return this.#events.requestEnded(streamId);
    }
    if (streamId % 2 === 0 || streamId <= this.#lastStreamId) return this.#fail(ERROR.PROTOCOL_ERROR, `HEADERS opening stream ${streamId}`);
    this.#lastStreamId = streamId;
    if (this.#accepted >= H2_BOUNDS.maxTotalStreams || this.#streams.size >= H2_BOUNDS.maxConcurrentStreams) {
      return this.#events.refuse(streamId, ERROR.REFUSED_STREAM);
    }
    this.#accepted++;
    this.#streams.set(streamId, { bodyBytes: 0, window: DEFAULT_WINDOW, remoteEnded: endStream });
    this.#events.request(streamId, fields, endStream);
    // HEADERS with END_STREAM: the request has ended (the session's stream says so to a handler waiting for a body).
    if (endStream) this.#events.requestEnded(streamId);
    if (this.#accepted === H2_BOUNDS.maxTotalStreams) this.#events.exhausted(streamId);
  }

  #reset(streamId: number, payload: Buffer): void {
    if (streamId === 0) return this.#fail(ERROR.PROTOCOL_ERROR, 'RST_STREAM on stream 0');
    if (payload.length !== 4) return this.#fail(ERROR.FRAME_SIZE_ERROR, 'RST_STREAM not 4 bytes');
    if (this.#idle(streamId)) return this.#fail(ERROR.PROTOCOL_ERROR, 'RST_STREAM on an idle stream');
    if (++this.#resets > H2_BOUNDS.maxClientResets) return this.#fail(ERROR.ENHANCE_YOUR_CALM, `more than ${H2_BOUNDS.maxClientResets} RST_STREAM`);
    if (this.#streams.delete(streamId)) this.#events.streamReset(streamId, payload.readUInt32BE(0));
  }

  /** True when one more frame of this kind stays within the per-second bound. */
  #withinRate(times: number[]): boolean {
    const now = this.#now();
    while (times.length > 0 && now - (times[0] as number) >= 1000) times.shift();
    if (times.length >= H2_BOUNDS.maxControlPerSecond) return false;
    times.push(now);
    return true;
  }

  #settings(flags: number, streamId: number, payload: Buffer): void {
    if (streamId !== 0) return this.#fail(ERROR.PROTOCOL_ERROR, 'SETTINGS on a stream');
    if ((flags & FLAG.ACK) !== 0) {
      if (payload.length !== 0) return this.#fail(ERROR.FRAME_SIZE_ERROR, 'SETTINGS ACK with a payload');
      return this.#events.settingsAck();
    }
    if (payload.length % 6 !== 0) return this.#fail(ERROR.FRAME_SIZE_ERROR, 'SETTINGS length not a multiple of 6');
    if (!this.#withinRate(this.#settingsTimes)) return this.#fail(ERROR.ENHANCE_YOUR_CALM, `more than ${H2_BOUNDS.maxControlPerSecond} SETTINGS per second`);
    const values = new Map<number, number>();
    for (let at = 0; at < payload.length; at += 6) {
      const id = payload.readUInt16BE(at);
      const value = payload.readUInt32BE(at + 2);
      const wrong = settingError(id, value);
      if (wrong !== undefined) return this.#fail(...wrong);
      values.set(id, value);
    }
    this.#events.settings(values);
  }

  #ping(flags: number, streamId: number, payload: Buffer): void {
    if (streamId !== 0) return this.#fail(ERROR.PROTOCOL_ERROR, 'PING on a stream');
    if (payload.length !== 8) return this.#fail(ERROR.FRAME_SIZE_ERROR, 'PING not 8 bytes');
    if ((flags & FLAG.ACK) !== 0) return;
    if (!this.#withinRate(this.#pingTimes)) return this.#fail(ERROR.ENHANCE_YOUR_CALM, `more than ${H2_BOUNDS.maxControlPerSecond} PING per second`);
    this.#events.ping(Buffer.from(payload));
  }

  #windowUpdate(streamId: number, payload: Buffer): void {
    if (payload.length !== 4) return this.#fail(ERROR.FRAME_SIZE_ERROR, 'WINDOW_UPDATE not 4 bytes');
    const increment = payload.readUInt32BE(0) & 0x7fffffff;
    if (increment === 0) {
      if (streamId === 0) return this.#fail(ERROR.PROTOCOL_ERROR, 'WINDOW_UPDATE of 0 on the connection');
      return this.#events.refuse(streamId, ERROR.PROTOCOL_ERROR);
    }
    if (this.#idle(streamId)) return this.#fail(ERROR.PROTOCOL_ERROR, 'WINDOW_UPDATE on an idle stream');
    this.#events.windowUpdate(streamId, increment);
  }
}
