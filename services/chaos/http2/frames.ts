// HTTP/2 frames as bytes (RFC 9113 §4.1, §6): the 9-byte header and the
// frames the chaos host writes. Nothing here checks a rule: a lie is written
// with the same builders as the truth.
import { encodeLiterals, type HeaderField } from './hpack.js';

/** The client connection preface (RFC 9113 §3.4). */
export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

export const FRAME = {
  DATA: 0x0, HEADERS: 0x1, PRIORITY: 0x2, RST_STREAM: 0x3, SETTINGS: 0x4, PUSH_PROMISE: 0x5,
  PING: 0x6, GOAWAY: 0x7, WINDOW_UPDATE: 0x8, CONTINUATION: 0x9,
} as const;

export const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const;

/** Error codes (RFC 9113 §7). */
export const ERROR = {
  NO_ERROR: 0x0, PROTOCOL_ERROR: 0x1, INTERNAL_ERROR: 0x2, FLOW_CONTROL_ERROR: 0x3, SETTINGS_TIMEOUT: 0x4,
  STREAM_CLOSED: 0x5, FRAME_SIZE_ERROR: 0x6, REFUSED_STREAM: 0x7, CANCEL: 0x8, COMPRESSION_ERROR: 0x9,
  CONNECT_ERROR: 0xa, ENHANCE_YOUR_CALM: 0xb, INADEQUATE_SECURITY: 0xc, HTTP_1_1_REQUIRED: 0xd,
} as const;
export type ErrorName = keyof typeof ERROR;

export const SETTING = {
  HEADER_TABLE_SIZE: 0x1, ENABLE_PUSH: 0x2, MAX_CONCURRENT_STREAMS: 0x3, INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5, MAX_HEADER_LIST_SIZE: 0x6,
} as const;

/** The flow-control window every stream and the connection start with (RFC 9113 §6.9.2). */
export const DEFAULT_WINDOW = 65_535;
/** The largest frame payload a peer must accept before it says otherwise (SETTINGS_MAX_FRAME_SIZE default). */
export const DEFAULT_MAX_FRAME = 16_384;
export const MAX_WINDOW = 2 ** 31 - 1;

/** One frame: the 9-byte header, then the payload. */
export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const out = Buffer.allocUnsafe(9 + payload.length);
  out.writeUIntBE(payload.length, 0, 3);
  out[3] = type;
  out[4] = flags;
  out.writeUInt32BE(streamId & 0x7fffffff, 5);
  payload.copy(out, 9);
  return out;
}

export function settingsFrame(settings: readonly (readonly [id: number, value: number])[]): Buffer {
  const payload = Buffer.alloc(settings.length * 6);
  settings.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, i * 6);
    payload.writeUInt32BE(value >>> 0, i * 6 + 2);
  });
  return frame(FRAME.SETTINGS, 0, 0, payload);
}

export const SETTINGS_ACK = frame(FRAME.SETTINGS, FLAG.ACK, 0);

export function goawayFrame(lastStreamId: number, code: number, debug = ''): Buffer {
  const payload = Buffer.alloc(8 + Buffer.byteLength(debug));
  payload.writeUInt32BE(lastStreamId & 0x7fffffff, 0);
  payload.writeUInt32BE(code, 4);
  payload.write(debug, 8);
  return frame(FRAME.GOAWAY, 0, 0, payload);
}

export function rstStreamFrame(streamId: number, code: number): Buffer {
  const payload = Buffer.alloc(4);
  payload.writeUInt32BE(code, 0);
  return frame(FRAME.RST_STREAM, 0, streamId, payload);
}

export function windowUpdateFrame(streamId: number, increment: number): Buffer {
  const payload = Buffer.alloc(4);
  payload.writeUInt32BE(increment >>> 0, 0);
  return frame(FRAME.WINDOW_UPDATE, 0, streamId, payload);
}

export function pingFrame(payload: Buffer, ack: boolean): Buffer {
  return frame(FRAME.PING, ack ? FLAG.ACK : 0, 0, payload);
}

/** HEADERS with END_HEADERS, its block the fields as literals (encodeLiterals), or a block given as bytes. */
export function headersFrame(streamId: number, fields: readonly HeaderField[] | Buffer, endStream: boolean, endHeaders = true): Buffer {
  const block = Buffer.isBuffer(fields) ? fields : encodeLiterals(fields);
  return frame(FRAME.HEADERS, (endStream ? FLAG.END_STREAM : 0) | (endHeaders ? FLAG.END_HEADERS : 0), streamId, block);
}

/** A header block too large for one frame as HEADERS then CONTINUATIONs of at most `maxFrame` bytes (RFC 9113 §6.10). */
export function headerBlockFrames(streamId: number, block: Buffer, endStream: boolean, maxFrame: number): Buffer {
  const frames: Buffer[] = [];
  for (let at = 0; at === 0 || at < block.length; at += maxFrame) {
    const last = at + maxFrame >= block.length;
    const part = block.subarray(at, at + maxFrame);
    frames.push(at === 0
      ? frame(FRAME.HEADERS, (endStream ? FLAG.END_STREAM : 0) | (last ? FLAG.END_HEADERS : 0), streamId, part)
      : frame(FRAME.CONTINUATION, last ? FLAG.END_HEADERS : 0, streamId, part));
  }
  return Buffer.concat(frames);
}

/** PUSH_PROMISE on `streamId` promising `promisedId`, its request fields as literals (RFC 9113 §6.6). */
export function pushPromiseFrame(streamId: number, promisedId: number, fields: readonly HeaderField[]): Buffer {
  const promised = Buffer.alloc(4);
  promised.writeUInt32BE(promisedId & 0x7fffffff, 0);
  return frame(FRAME.PUSH_PROMISE, FLAG.END_HEADERS, streamId, Buffer.concat([promised, encodeLiterals(fields)]));
}

export function dataFrame(streamId: number, data: Buffer, endStream: boolean): Buffer {
  return frame(FRAME.DATA, endStream ? FLAG.END_STREAM : 0, streamId, data);
}

/** A frame header as read: the raw client uses it in tests, the reader in the service. */
export interface FrameHeader {
  readonly length: number;
  readonly type: number;
  readonly flags: number;
  readonly streamId: number;
}

export function readFrameHeader(bytes: Buffer, at = 0): FrameHeader {
  return {
    length: bytes.readUIntBE(at, 3),
    type: bytes[at + 3] as number,
    flags: bytes[at + 4] as number,
    streamId: bytes.readUInt32BE(at + 5) & 0x7fffffff,
  };
}

/** Whether a connection's first bytes start the preface, `PRI ` (no HTTP/1.1 method we serve is PRI). */
export function startsPreface(chunk: Buffer): boolean {
  return chunk.length >= 4 && chunk[0] === 0x50 && chunk[1] === 0x52 && chunk[2] === 0x49 && chunk[3] === 0x20;
}
