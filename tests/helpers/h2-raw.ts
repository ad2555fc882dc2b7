// A raw HTTP/2 client for tests: it writes the preface, SETTINGS and one
// request's HEADERS, then reads every frame the server sends, as it is (the
// header's type, flags, stream id and the payload), so a test asserts the
// bytes of a lie no HTTP/2 library would let through.
import net from 'node:net';
import { FLAG, FRAME, headersFrame, PREFACE, readFrameHeader, settingsFrame } from '../../services/chaos/http2/frames.js';
import { HpackDecoder, type HeaderField } from '../../services/chaos/http2/hpack.js';

export interface RawFrame {
  readonly type: number;
  readonly flags: number;
  readonly streamId: number;
  readonly payload: Buffer;
}

export class RawH2 {
  readonly frames: RawFrame[] = [];
  /** After an h2c upgrade request (RawH2.upgrade): the HTTP/1.1 head that came back. */
  head: string | undefined;
  #all = Buffer.alloc(0);
  #buffer = Buffer.alloc(0);
  #ended = false;
  readonly #waiters: (() => void)[] = [];

  private constructor(readonly socket: net.Socket, awaitingHead = false) {
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#all = Buffer.concat([this.#all, chunk]);
      if (awaitingHead) {
        const end = this.#buffer.indexOf('\r\n\r\n');
        if (end < 0) return this.#wake();
        this.head = this.#buffer.subarray(0, end + 4).toString('latin1');
        this.#buffer = this.#buffer.subarray(end + 4);
        awaitingHead = false;
      }
      while (this.#buffer.length >= 9) {
        const header = readFrameHeader(this.#buffer);
        if (this.#buffer.length < 9 + header.length) break;
        this.frames.push({ type: header.type, flags: header.flags, streamId: header.streamId, payload: this.#buffer.subarray(9, 9 + header.length) });
        this.#buffer = this.#buffer.subarray(9 + header.length);
      }
      this.#wake();
    });
    socket.on('close', () => {
      this.#ended = true;
      this.#wake();
    });
    socket.on('error', () => undefined);
  }

  /** Connects and writes the preface with `settings` (none: every default) in its SETTINGS. */
  static async connect(port: number, settings: readonly (readonly [number, number])[] = []): Promise<RawH2> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const client = new RawH2(socket);
    socket.write(Buffer.concat([PREFACE, settingsFrame(settings)]));
    return client;
  }

  /**
   * Connects and writes `request` (an HTTP/1.1 upgrade request, bytes as given); the HTTP/1.1 head that
   * comes back is `head`, the frames after it `frames`. The client's preface is written by preface().
   */
  static async upgrade(port: number, request: string | Buffer): Promise<RawH2> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const client = new RawH2(socket, true);
    socket.write(request);
    return client;
  }

  /** The client's preface with `settings` in its SETTINGS (after an upgrade's 101). */
  preface(settings: readonly (readonly [number, number])[] = []): void {
    this.socket.write(Buffer.concat([PREFACE, settingsFrame(settings)]));
  }

  /** Every byte the server sent after the HTTP/1.1 head (all of them without one). */
  get afterHead(): Buffer {
    return this.#all.subarray(this.head === undefined ? 0 : Buffer.byteLength(this.head, 'latin1'));
  }

  /** GET `path` on stream `id` (another method, and no END_STREAM when a body follows, when given). */
  request(path: string, id = 1, method = 'GET', endStream = true): void {
    const fields: HeaderField[] = [[':method', method], [':scheme', 'http'], [':path', path], [':authority', '127.0.0.1']];
    this.socket.write(headersFrame(id, fields, endStream));
  }

  get ended(): boolean {
    return this.#ended;
  }

  #wake(): void {
    for (const fn of this.#waiters.splice(0)) fn();
  }

  /** Waits until `done` holds for the frames read so far, the socket closes, or `ms` pass. */
  async until(done: (frames: readonly RawFrame[]) => boolean, ms = 5000): Promise<readonly RawFrame[]> {
    const deadline = Date.now() + ms;
    while (!done(this.frames) && !this.#ended && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, Math.max(1, deadline - Date.now()));
      });
    }
    return this.frames;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** A HEADERS frame's fields, decoded with a fresh decoder (our server writes literals without indexing). */
export function fieldsOf(frame: RawFrame): HeaderField[] {
  return new HpackDecoder().decode(frame.payload);
}

export const goawayOf = (frame: RawFrame): { last: number; code: number; debug: string } => ({
  last: frame.payload.readUInt32BE(0) & 0x7fffffff,
  code: frame.payload.readUInt32BE(4),
  debug: frame.payload.subarray(8).toString('utf8'),
});

export const ofType = (frames: readonly RawFrame[], type: number): RawFrame[] => frames.filter((f) => f.type === type);

/** `until` conditions: stream `id` ended (DATA or HEADERS with END_STREAM); a frame of `type` came. */
export const endedOn = (id: number) => (frames: readonly RawFrame[]): boolean =>
  frames.some((f) => f.streamId === id && (f.type === FRAME.DATA || f.type === FRAME.HEADERS) && (f.flags & FLAG.END_STREAM) !== 0);
export const has = (type: number) => (frames: readonly RawFrame[]): boolean => frames.some((f) => f.type === type);

/** A field's value among decoded fields; the fields of the first HEADERS on stream `id`. */
export const field = (fields: readonly (readonly [string, string])[], name: string): string | undefined => fields.find(([n]) => n === name)?.[1];
export const headersOn = (client: RawH2, id: number): HeaderField[] => {
  const headers = client.frames.find((f) => f.type === FRAME.HEADERS && f.streamId === id);
  if (headers === undefined) throw new Error(`no HEADERS on stream ${id}`);
  return fieldsOf(headers);
};
export { FRAME };
