import { chaosReason } from '../../../../shared/content/websocket.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import { WEBSOCKET_HOLDING, WEBSOCKET_TRANSPORTS } from '../../websocket/declarations.js';
import { OPCODES } from '../../websocket/frame.js';
import { openSession, readHandshake, switchingHead } from '../../websocket/handshake.js';

/** Pongs sent unasked right after the handshake (allowed by §5.5.3, and a surprise to clients that count them). */
const UNSOLICITED = 3;
const WRONG = Buffer.from(chaosReason('pong-lie'));

export default defineChaosEndpoint({
  id: 'ws-pong-lie',
  path: '/ws/pong-lie',
  category: 'websocket',
  summary: 'A WebSocket that sends pongs nobody asked for, then answers every ping with a pong of another payload (RFC 6455 §5.5.3), and echoes messages',
  params: {},
  transports: WEBSOCKET_TRANSPORTS,
  holding: WEBSOCKET_HOLDING,
  counterpart: null,
  handle(ctx) {
    const handshake = readHandshake(ctx);
    if (handshake === undefined) return;
    openSession(ctx, switchingHead(ctx, handshake, { Mode: 'pong-lie' }), {
      opened(session) {
        for (let i = 0; i < UNSOLICITED; i++) session.send({ opcode: OPCODES.pong, payload: Buffer.from(`${chaosReason('pong-lie')} unsolicited ${i + 1}`) });
      },
      ping(session, data) {
        // Never the ping's own payload, even when the client's is ours.
        session.send({ opcode: OPCODES.pong, payload: data.equals(WRONG) ? Buffer.from(`${chaosReason('pong-lie')}!`) : WRONG });
      },
    });
  },
});
