// Reads a client's frames (RFC 6455 §5.2–5.6) with a bound on everything:
// a frame's payload ≤ MAX_FRAME_BYTES, a message ≤ MAX_MESSAGE_BYTES, the
// header ≤ 14 bytes. Memory is the frame being read plus the message being
// assembled; input split at every byte costs no more than whole frames (the
// payload is copied once, into a buffer of its declared size). The first
// broken rule ends the reading with the close code it calls for; after that
// every byte is dropped.
import { isUtf8 } from 'node:buffer';
import { WS_BOUNDS } from '../../../shared/content/websocket.js';
import { OPCODES, isValidCloseCode } from './frame.js';

export const MAX_FRAME_BYTES = WS_BOUNDS.maxFrameBytes;
export const MAX_MESSAGE_BYTES = WS_BOUNDS.maxMessageBytes;

/** What the reader hands on, in the order the frames came. */
export type ClientEvent =
  | { readonly kind: 'message'; readonly binary: boolean; readonly data: Buffer }
  | { readonly kind: 'ping'; readonly data: Buffer }
  | { readonly kind: 'pong'; readonly data: Buffer }
  /** The client's close frame: its code (undefined for an empty body) and reason. */
  | { readonly kind: 'close'; readonly code: number | undefined; readonly reason: string }
  /** The client broke a rule: close with this code (1002 protocol, 1007 bad UTF-8, 1009 too big). */
  | { readonly kind: 'fail'; readonly code: 1002 | 1007 | 1009; readonly reason: string };

interface FrameHead {
  readonly fin: boolean;
  readonly opcode: number;
  readonly mask: Buffer;
  readonly length: number;
}

export class FrameReader {
  /** Header bytes so far (at most 14). */
  readonly #header = Buffer.alloc(14);
  #headerHave = 0;
  #head: FrameHead | undefined;
  #payload: Buffer | undefined;
  #payloadHave = 0;
  /** The fragments of a message in progress, and their total. */
  #fragments: Buffer[] = [];
  #fragmentBytes = 0;
  #messageOpcode = 0;
  #dead = false;

  /** True once the reader failed or read a close frame: input is dropped. */
  get dead(): boolean {
    return this.#dead;
  }

  /** Bytes held for frames and messages in progress (the memory bound's measure). */
  get heldBytes(): number {
    return (this.#payload?.length ?? 0) + this.#fragmentBytes;
  }

  /** Reads a chunk; returns the events it completed (none while a frame is partial). */
  push(chunk: Buffer): ClientEvent[] {
    const events: ClientEvent[] = [];
    let at = 0;
    while (at < chunk.length && !this.#dead) {
      if (this.#head === undefined) {
        at = this.#readHeader(chunk, at, events);
        continue;
      }
      const head = this.#head;
      const payload = this.#payload as Buffer;
      const take = Math.min(head.length - this.#payloadHave, chunk.length - at);
      for (let i = 0; i < take; i++) {
        const index = this.#payloadHave + i;
        payload[index] = (chunk[at + i] as number) ^ (head.mask[index & 3] as number);
      }
      this.#payloadHave += take;
      at += take;
      if (this.#payloadHave === head.length) this.#frameDone(events);
    }
    return events;
  }

  /** Takes header bytes from `chunk` at `at`; parses the header once it is whole. Returns the new position. */
  #readHeader(chunk: Buffer, at: number, events: ClientEvent[]): number {
    while (at < chunk.length) {
      this.#header[this.#headerHave++] = chunk[at++] as number;
      const need = headerLength(this.#header, this.#headerHave);
      if (need !== undefined && this.#headerHave === need) {
        this.#parseHeader(events);
        return at;
      }
    }
    return at;
  }

  #parseHeader(events: ClientEvent[]): void {
    const h = this.#header;
    const b0 = h[0] as number;
    const b1 = h[1] as number;
    const fin = (b0 & 0x80) !== 0;
    const opcode = b0 & 0x0f;
    const len7 = b1 & 0x7f;
    let length: number;
    let maskAt = 2;
    if (len7 === 126) {
      length = h.readUInt16BE(2);
      maskAt = 4;
    } else if (len7 === 127) {
      const big = h.readBigUInt64BE(2);
      // §5.2: the most significant bit MUST be 0; anything over the frame bound is refused below anyway.
      if (big > BigInt(Number.MAX_SAFE_INTEGER)) return this.#fail(events, 1002, 'the 64-bit length has its top bit set');
      length = Number(big);
      maskAt = 10;
    } else length = len7;
    this.#headerHave = 0;
    if ((b0 & 0x70) !== 0) return this.#fail(events, 1002, 'RSV bits set without an extension');
    if ((b1 & 0x80) === 0) return this.#fail(events, 1002, 'client frames must be masked');
    const control = opcode >= 0x8;
    if (control) {
      if (opcode !== OPCODES.close && opcode !== OPCODES.ping && opcode !== OPCODES.pong) return this.#fail(events, 1002, `unknown opcode ${opcode}`);
      if (!fin) return this.#fail(events, 1002, 'fragmented control frame');
      if (length > 125) return this.#fail(events, 1002, 'control frame over 125 bytes');
    } else {
      if (opcode > OPCODES.binary) return this.#fail(events, 1002, `unknown opcode ${opcode}`);
      if (opcode === OPCODES.continuation && this.#messageOpcode === 0) return this.#fail(events, 1002, 'continuation with no message started');
      if (opcode !== OPCODES.continuation && this.#messageOpcode !== 0) return this.#fail(events, 1002, 'a new message inside a fragmented one');
      if (length > MAX_FRAME_BYTES) return this.#fail(events, 1009, `frame over ${MAX_FRAME_BYTES} bytes`);
      if (this.#fragmentBytes + length > MAX_MESSAGE_BYTES) return this.#fail(events, 1009, `message over ${MAX_MESSAGE_BYTES} bytes`);
    }
    this.#head = { fin, opcode, mask: Buffer.from(h.subarray(maskAt, maskAt + 4)), length };
    this.#payload = Buffer.allocUnsafe(length);
    this.#payloadHave = 0;
    if (length === 0) this.#frameDone(events);
  }

  #frameDone(events: ClientEvent[]): void {
    const head = this.#head as FrameHead;
    const data = this.#payload as Buffer;
    this.#head = undefined;
    this.#payload = undefined;
    switch (head.opcode) {
      case OPCODES.ping:
        events.push({ kind: 'ping', data });
        return;
      case OPCODES.pong:
        events.push({ kind: 'pong', data });
        return;
      case OPCODES.close:
        this.#close(data, events);
        return;
    }
    if (head.opcode !== OPCODES.continuation) this.#messageOpcode = head.opcode;
    if (data.length > 0) this.#fragments.push(data);
    this.#fragmentBytes += data.length;
    if (!head.fin) return;
    const message = this.#fragments.length === 1 ? (this.#fragments[0] as Buffer) : Buffer.concat(this.#fragments, this.#fragmentBytes);
    const binary = this.#messageOpcode === OPCODES.binary;
    this.#fragments = [];
    this.#fragmentBytes = 0;
    this.#messageOpcode = 0;
    if (!binary && !isUtf8(message)) return this.#fail(events, 1007, 'text message is not valid UTF-8');
    events.push({ kind: 'message', binary, data: message });
  }

  /** The client's close frame (§5.5.1): empty, or a valid code and a UTF-8 reason. */
  #close(data: Buffer, events: ClientEvent[]): void {
    if (data.length === 1) return this.#fail(events, 1002, 'close body of one byte');
    const code = data.length >= 2 ? data.readUInt16BE(0) : undefined;
    if (code !== undefined && !isValidCloseCode(code)) return this.#fail(events, 1002, `close code ${code} may not be sent`);
    const reason = data.subarray(2);
    if (!isUtf8(reason)) return this.#fail(events, 1007, 'close reason is not valid UTF-8');
    this.#dead = true;
    events.push({ kind: 'close', code, reason: reason.toString('utf8') });
  }

  #fail(events: ClientEvent[], code: 1002 | 1007 | 1009, reason: string): void {
    this.#dead = true;
    this.#head = undefined;
    this.#payload = undefined;
    this.#fragments = [];
    this.#fragmentBytes = 0;
    events.push({ kind: 'fail', code, reason });
  }
}

/** How long the header is, once enough of it is there to say (2 bytes: the length field's size; mask key always counted). */
function headerLength(header: Buffer, have: number): number | undefined {
  if (have < 2) return undefined;
  const len7 = (header[1] as number) & 0x7f;
  const lengthBytes = len7 === 126 ? 2 : len7 === 127 ? 8 : 0;
  // An unmasked frame is refused at once, so its header is 2 + length bytes.
  const maskBytes = ((header[1] as number) & 0x80) !== 0 ? 4 : 0;
  return 2 + lengthBytes + maskBytes;
}
