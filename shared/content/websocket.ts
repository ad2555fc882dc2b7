// The WebSocket family's parameters (issue 27, docs/websocket.md): the chaos
// endpoints and their control twins take the same ones, so a client tried on
// one can be pointed at the other unchanged.
import { int, oneOf, str } from '../primitives/params.js';

export const FRAME_MODES = [
  'masked', 'rsv1', 'rsv2', 'fragmented-ping', 'oversized-ping', 'invalid-utf8', 'unknown-opcode',
  'orphan-continuation', 'interleaved-fragments', 'data-after-close',
] as const;
export type FrameMode = (typeof FRAME_MODES)[number];

export const FRAMES_PARAMS = {
  mode: oneOf(FRAME_MODES, { default: 'masked', description: 'which frame rule the server breaks' }),
  after: int({ min: 0, max: 100, default: 0, description: 'messages echoed correctly before the lie' }),
  at: int({ min: 0, max: 63, default: 19, description: 'invalid-utf8: the byte of the text message that is made invalid' }),
};

export const CLOSE_MODES = [
  'clean', 'reserved-code', 'invalid-code', 'one-byte-body', 'invalid-utf8-reason', 'no-close-frame', 'reset', 'never-closes',
] as const;
export type CloseMode = (typeof CLOSE_MODES)[number];

export const CLOSE_PARAMS = {
  mode: oneOf(CLOSE_MODES, { default: 'clean', description: 'how the server ends the connection' }),
  code: int({ min: 0, max: 4999, default: 1000, description: 'the close code; a mode replaces one outside its class (see docs/websocket.md)' }),
  reason: str({ maxLength: 80, default: '', description: 'text after `chaos:<mode>` in the close reason' }),
};

export const HANDSHAKE_MODES = [
  'bad-accept', 'protocol-not-offered', 'protocol-missing', 'extension-not-offered', 'status-200', 'no-upgrade-header', 'http-1.0-101', 'slow-101',
] as const;
export type HandshakeMode = (typeof HANDSHAKE_MODES)[number];

export const HANDSHAKE_PARAMS = {
  mode: oneOf(HANDSHAKE_MODES, { default: 'bad-accept', description: 'how the opening handshake lies' }),
};

export const PING_FLOOD_PARAMS = {
  count: int({ min: 1, max: 10_000, default: 1000, description: 'pings sent at once after the handshake' }),
  size: int({ min: 0, max: 125, default: 16, description: 'payload bytes of each ping' }),
};

export const DEFLATE_MODES = ['bad-window-bits', 'bad-inflate', 'control-rsv1'] as const;
export type DeflateMode = (typeof DEFLATE_MODES)[number];

export const DEFLATE_PARAMS = {
  mode: oneOf(DEFLATE_MODES, { default: 'bad-inflate', description: 'how permessage-deflate lies' }),
};

/** Close codes by class (RFC 6455 §7.4): a mode whose `code` is outside its class sends the class's default. */
export function closeCodeFor(mode: CloseMode, code: number): number {
  if (mode === 'reserved-code') return [1004, 1005, 1006, 1015].includes(code) ? code : 1005;
  if (mode === 'invalid-code') return code <= 999 || (code >= 1016 && code <= 2999) ? code : 999;
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999) ? code : 1000;
}

/** A close reason naming the lie (DESIGN §12): `chaos:<mode>`, then the caller's text. */
export function chaosReason(mode: string, text = ''): string {
  return text === '' ? `chaos:${mode}` : `chaos:${mode} ${text}`;
}

/** The bounds of every WebSocket, chaos or twin (docs/websocket.md, "Bounds"). */
export const WS_BOUNDS = {
  /** No frame from the client for this long: close 1001 (the chaos host uses its connections' idle time, 30 s by default). */
  idleMs: 30_000,
  /** What an echo sends back per second, on average, past a burst of one whole message. */
  echoBytesPerSecond: 256 * 1024,
  /** A client frame's payload, and a client message. */
  maxFrameBytes: 64 * 1024,
  maxMessageBytes: 1024 * 1024,
} as const;

/** The close reason when MAX_RESPONSE_MS ends a WebSocket (code 1001). */
export const LIFETIME_REASON = 'the connection reached its time limit (MAX_RESPONSE_MS)';
