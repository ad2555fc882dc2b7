import { FRAMES_PARAMS, chaosReason, type FrameMode } from '../../../../shared/content/websocket.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import { closeFrame, encodeFrame, OPCODES, RSV1, RSV2 } from '../../websocket/frame.js';
import { openSession, readHandshake, switchingHead } from '../../websocket/handshake.js';
import type { WsSession } from '../../websocket/session.js';
import { WEBSOCKET_HOLDING, WEBSOCKET_TRANSPORTS } from '../../websocket/declarations.js';

/** RFC 6455 §5.3's example key: the masked lie is the same bytes every time. */
const LYING_MASK = Buffer.from([0x37, 0xfa, 0x21, 0x3d]);

/** A text message of 64 bytes whose byte `at` is 0xFF, never valid in UTF-8 (§5.6, §8.1). */
function invalidText(at: number): Buffer {
  const text = Buffer.from(chaosReason('invalid-utf8', 'one byte of this message is not UTF-8').padEnd(64, '.'));
  text[at] = 0xff;
  return text;
}

/** Writes the lie `mode` names; the session goes on echoing after it (the client is the one that must fail). */
function lie(session: WsSession, mode: FrameMode, at: number): void {
  const name = Buffer.from(chaosReason(mode));
  switch (mode) {
    case 'masked':
      return session.send({ opcode: OPCODES.text, payload: name, mask: LYING_MASK });
    case 'rsv1':
      return session.send({ opcode: OPCODES.text, payload: name, rsv: RSV1 });
    case 'rsv2':
      return session.send({ opcode: OPCODES.text, payload: name, rsv: RSV2 });
    case 'fragmented-ping':
      return session.send({ opcode: OPCODES.ping, payload: name, fin: false });
    case 'oversized-ping':
      return session.send({ opcode: OPCODES.ping, payload: Buffer.from(name.toString().padEnd(126, '.')) });
    case 'invalid-utf8':
      return session.send({ opcode: OPCODES.text, payload: invalidText(at) });
    case 'unknown-opcode':
      return session.send({ opcode: 0x3, payload: name });
    case 'orphan-continuation':
      return session.send({ opcode: OPCODES.continuation, payload: name });
    case 'interleaved-fragments':
      session.send({ opcode: OPCODES.text, payload: Buffer.from('chaos:'), fin: false });
      session.send({ opcode: OPCODES.text, payload: Buffer.from('a new message inside a fragmented one') });
      return session.send({ opcode: OPCODES.continuation, payload: Buffer.from('interleaved-fragments') });
    case 'data-after-close':
      session.closeRaw(closeFrame(1000, chaosReason(mode)));
      return session.sendRaw(encodeFrame({ opcode: OPCODES.text, payload: name }));
  }
}

export default defineChaosEndpoint({
  id: 'ws-frames',
  path: '/ws/frames',
  category: 'websocket',
  summary: 'A WebSocket that echoes `after` messages, then breaks a framing rule of RFC 6455 §5 (`mode`: a masked server frame, RSV bits, a fragmented or 126-byte ping, invalid UTF-8, opcode 3, a continuation with no start, interleaved fragments, data after close)',
  params: FRAMES_PARAMS,
  headers: ['X-Chaos-Mode', 'X-Chaos-After'],
  transports: WEBSOCKET_TRANSPORTS,
  holding: WEBSOCKET_HOLDING,
  handle(ctx, { mode, after, at }) {
    const handshake = readHandshake(ctx);
    if (handshake === undefined) return;
    openSession(ctx, switchingHead(ctx, handshake, { Mode: mode, After: after }), {
      opened(session) {
        if (after === 0) lie(session, mode, at);
      },
      message(session, data, binary, index) {
        session.echo(data, binary);
        if (index + 1 === after) lie(session, mode, at);
      },
    });
  },
});
