// The WebSocket frame format (RFC 6455 §5.2) as the chaos host writes it:
// every bit is a parameter, so a lie (a masked server frame, RSV bits, a
// 126-byte ping, a 1005 close code) is written as easily as the truth.
import { createHash } from 'node:crypto';

export const OPCODES = {
  continuation: 0x0,
  text: 0x1,
  binary: 0x2,
  close: 0x8,
  ping: 0x9,
  pong: 0xa,
} as const;

/** RSV bits as they sit in the first byte: RSV1 0x40, RSV2 0x20, RSV3 0x10. */
export const RSV1 = 0x40;
export const RSV2 = 0x20;

/** One frame to write; everything but opcode and payload defaults to an honest single frame. */
export interface FrameSpec {
  readonly opcode: number;
  readonly payload: Buffer;
  /** FIN bit; default true. */
  readonly fin?: boolean;
  /** RSV bits as in the first byte (RSV1 | RSV2 …); default 0. */
  readonly rsv?: number;
  /** A masking key: the server must never send one (§5.1), so only a lie passes it. */
  readonly mask?: Buffer;
}

/** A whole frame: 2–14 header bytes (7-, 16- or 64-bit length, optional mask key), then the payload. */
export function encodeFrame(spec: FrameSpec): Buffer {
  const { payload, mask } = spec;
  const length = payload.length;
  const lengthBytes = length < 126 ? 0 : length <= 0xffff ? 2 : 8;
  const headerLength = 2 + lengthBytes + (mask ? 4 : 0);
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = (spec.fin === false ? 0 : 0x80) | ((spec.rsv ?? 0) & 0x70) | (spec.opcode & 0x0f);
  const maskBit = mask ? 0x80 : 0;
  if (lengthBytes === 0) frame[1] = maskBit | length;
  else if (lengthBytes === 2) {
    frame[1] = maskBit | 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = maskBit | 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  if (mask) {
    mask.copy(frame, 2 + lengthBytes, 0, 4);
    for (let i = 0; i < length; i++) frame[headerLength + i] = (payload[i] as number) ^ (mask[i & 3] as number);
  } else payload.copy(frame, headerLength);
  return frame;
}

/** A close frame's payload: the code (two bytes), then the reason's bytes; no code gives an empty body. */
export function closePayload(code: number | undefined, reason: Buffer | string = ''): Buffer {
  if (code === undefined) return Buffer.alloc(0);
  const text = typeof reason === 'string' ? Buffer.from(reason, 'utf8') : reason;
  const body = Buffer.allocUnsafe(2 + text.length);
  body.writeUInt16BE(code & 0xffff, 0);
  text.copy(body, 2);
  return body;
}

/** A close frame, reason cut to fit the 125-byte control payload. */
export function closeFrame(code: number, reason: string): Buffer {
  return encodeFrame({ opcode: OPCODES.close, payload: closePayload(code, fitReason(reason)) });
}

/** A reason that fits a control frame (123 bytes after the code), cut on a character boundary. */
export function fitReason(reason: string): string {
  let text = reason;
  while (Buffer.byteLength(text, 'utf8') > 123) text = text.slice(0, -1);
  return text;
}

/**
 * Close codes a peer may send (RFC 6455 §7.4.1, IANA registry): 1000–1003,
 * 1007–1014, 3000–4999. 1004–1006 and 1015 are reserved, the rest unused.
 */
export function isValidCloseCode(code: number): boolean {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** Sec-WebSocket-Accept for a client's Sec-WebSocket-Key (§4.2.2). */
export function acceptKey(key: string): string {
  return createHash('sha1').update(key + GUID).digest('base64');
}

/** A Sec-WebSocket-Key as §4.1 asks: base64 of 16 bytes. */
export function isValidKey(key: string | undefined): key is string {
  return key !== undefined && /^[A-Za-z0-9+/]{22}==$/.test(key);
}
