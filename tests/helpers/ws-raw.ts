// A raw WebSocket client for tests: it sends the opening handshake itself,
// keeps the response head as text and the server's frames as they are (every
// header bit, the mask bit, the length), and says how the connection ended.
// It reads server frames with its own few lines, not the service's reader,
// which only reads client frames. Nothing a library would hide is hidden.
import net from 'node:net';
import { endKindAtEof } from './raw.js';

export interface ServerFrame {
  readonly fin: boolean;
  /** RSV bits as in the first byte (0x40, 0x20, 0x10). */
  readonly rsv: number;
  readonly opcode: number;
  readonly masked: boolean;
  /** The header's length form: 7, 16 or 64 bits. */
  readonly lengthBits: 7 | 16 | 64;
  /** The payload, unmasked. */
  readonly payload: Buffer;
}

/** Complete frames at the start of `bytes`, and how many bytes they took. */
export function parseServerFrames(bytes: Buffer): { frames: ServerFrame[]; used: number } {
  const frames: ServerFrame[] = [];
  let at = 0;
  for (;;) {
    if (bytes.length - at < 2) break;
    const b0 = bytes[at] as number;
    const b1 = bytes[at + 1] as number;
    const len7 = b1 & 0x7f;
    let offset = at + 2;
    let length = len7;
    let lengthBits: 7 | 16 | 64 = 7;
    if (len7 === 126) {
      if (bytes.length < offset + 2) break;
      length = bytes.readUInt16BE(offset);
      offset += 2;
      lengthBits = 16;
    } else if (len7 === 127) {
      if (bytes.length < offset + 8) break;
      length = Number(bytes.readBigUInt64BE(offset));
      offset += 8;
      lengthBits = 64;
    }
    const masked = (b1 & 0x80) !== 0;
    const mask = masked ? bytes.subarray(offset, offset + 4) : undefined;
    if (masked) offset += 4;
    if (bytes.length < offset + length) break;
    const payload = Buffer.from(bytes.subarray(offset, offset + length));
    if (mask) for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] as number) ^ (mask[i & 3] as number);
    frames.push({ fin: (b0 & 0x80) !== 0, rsv: b0 & 0x70, opcode: b0 & 0x0f, masked, lengthBits, payload });
    at = offset + length;
  }
  return { frames, used: at };
}

/** A masked client frame (every client frame must be masked, §5.3), or an unmasked one to test the refusal. */
export function clientFrame(opcode: number, payload: Buffer | string, options: { fin?: boolean; masked?: boolean } = {}): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const masked = options.masked !== false;
  const mask = Buffer.from([0xa1, 0xb2, 0xc3, 0xd4]);
  const lengthBytes = data.length < 126 ? 0 : data.length <= 0xffff ? 2 : 8;
  const header = Buffer.alloc(2 + lengthBytes + (masked ? 4 : 0));
  header[0] = (options.fin === false ? 0 : 0x80) | opcode;
  const maskBit = masked ? 0x80 : 0;
  if (lengthBytes === 0) header[1] = maskBit | data.length;
  else if (lengthBytes === 2) {
    header[1] = maskBit | 126;
    header.writeUInt16BE(data.length, 2);
  } else {
    header[1] = maskBit | 127;
    header.writeBigUInt64BE(BigInt(data.length), 2);
  }
  if (!masked) return Buffer.concat([header, data]);
  mask.copy(header, 2 + lengthBytes);
  const body = Buffer.from(data);
  for (let i = 0; i < body.length; i++) body[i] = (body[i] as number) ^ (mask[i & 3] as number);
  return Buffer.concat([header, body]);
}

/** A close frame's body: its code (two bytes) and reason. */
export function closeBody(frame: ServerFrame): { code: number | undefined; reason: Buffer } {
  return { code: frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : undefined, reason: frame.payload.subarray(2) };
}

export const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';
export const ACCEPT = 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=';

export function handshakeRequest(path: string, headers: Readonly<Record<string, string>> = {}): string {
  const lines = { Host: '127.0.0.1', Upgrade: 'websocket', Connection: 'Upgrade', 'Sec-WebSocket-Key': KEY, 'Sec-WebSocket-Version': '13', ...headers };
  return `GET ${path} HTTP/1.1\r\n${Object.entries(lines).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
}

export class RawWs {
  readonly socket: net.Socket;
  #data = Buffer.alloc(0);
  #headEnd = -1;
  end: 'fin' | 'reset' | undefined;
  /** When the socket ended, in performance.now() time. */
  endedAt = 0;
  readonly openedAt = performance.now();

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#data = Buffer.concat([this.#data, chunk]);
      if (this.#headEnd === -1) this.#headEnd = this.#data.indexOf('\r\n\r\n');
    });
    socket.on('end', () => endKindAtEof(socket, (kind) => this.#ended(kind)));
    socket.on('error', () => this.#ended('reset'));
    socket.on('close', () => this.#ended('fin'));
  }

  #ended(kind: 'fin' | 'reset'): void {
    if (this.end !== undefined) return;
    this.end = kind;
    this.endedAt = performance.now();
  }

  /** Connects and sends the handshake (or `request` as given, in one write); the head is awaited with waitHead. */
  static async connect(port: number, path: string, headers: Readonly<Record<string, string>> = {}, request?: string | Buffer): Promise<RawWs> {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const ws = new RawWs(socket);
    socket.write(request ?? handshakeRequest(path, headers));
    return ws;
  }

  /** The response head as text, once it has arrived whole. */
  async waitHead(timeoutMs = 10_000): Promise<string> {
    await this.#until(() => this.#headEnd !== -1 || this.end !== undefined, timeoutMs);
    if (this.#headEnd === -1) throw new Error(`no response head (ended: ${this.end ?? 'no'}): ${this.#data.toString('latin1')}`);
    return this.#data.subarray(0, this.#headEnd + 4).toString('latin1');
  }

  /** The bytes after the head. */
  get afterHead(): Buffer {
    return this.#headEnd === -1 ? Buffer.alloc(0) : this.#data.subarray(this.#headEnd + 4);
  }

  get frames(): ServerFrame[] {
    return parseServerFrames(this.afterHead).frames;
  }

  async waitFrames(n: number, timeoutMs = 10_000): Promise<ServerFrame[]> {
    await this.#until(() => this.frames.length >= n || this.end !== undefined, timeoutMs);
    return this.frames;
  }

  async waitEnd(timeoutMs = 10_000): Promise<'fin' | 'reset' | 'timeout'> {
    await this.#until(() => this.end !== undefined, timeoutMs);
    return this.end ?? 'timeout';
  }

  send(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  destroy(): void {
    this.socket.destroy();
  }

  async #until(test: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!test() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A header's value in a head given as text (first line of that name, case-insensitive). */
export function headerOf(head: string, name: string): string | undefined {
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}
