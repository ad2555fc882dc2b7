import { DEFLATE_PARAMS, chaosReason, type DeflateMode } from '../../../../shared/content/websocket.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import { WEBSOCKET_HOLDING, WEBSOCKET_TRANSPORTS } from '../../websocket/declarations.js';
import { OPCODES, RSV1 } from '../../websocket/frame.js';
import { openSession, readHandshake, switchingHead } from '../../websocket/handshake.js';

/** The answer to the client's offer: a window outside 8–15 (RFC 7692 §7.1.2.1), or plain permessage-deflate. */
function extensionOf(mode: DeflateMode): string {
  return mode === 'bad-window-bits' ? 'permessage-deflate; server_max_window_bits=7' : 'permessage-deflate';
}

/** A raw DEFLATE block of the reserved type 11 (RFC 1951 §3.2.3): it inflates to nothing but an error. */
const NOT_DEFLATE = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x00]);

export default defineChaosEndpoint({
  id: 'ws-deflate',
  path: '/ws/deflate',
  category: 'websocket',
  summary: 'permessage-deflate lies (RFC 7692): a server_max_window_bits of 7 in the answer, a compressed message that does not inflate, or RSV1 on a ping',
  params: DEFLATE_PARAMS,
  headers: ['X-Chaos-Mode'],
  transports: WEBSOCKET_TRANSPORTS,
  holding: WEBSOCKET_HOLDING,
  handle(ctx, { mode }) {
    const handshake = readHandshake(ctx);
    if (handshake === undefined) return;
    // The extension is answered whether the client offered it or not (not offering it is a lie of its own, /ws/handshake's).
    openSession(ctx, switchingHead(ctx, handshake, { Mode: mode }, { extensions: extensionOf(mode) }), {
      opened(session) {
        if (mode === 'bad-inflate') session.send({ opcode: OPCODES.text, payload: NOT_DEFLATE, rsv: RSV1 });
        // §6 of RFC 7692: the compression bit is for data frames only.
        else if (mode === 'control-rsv1') session.send({ opcode: OPCODES.ping, payload: Buffer.from(chaosReason(mode)), rsv: RSV1 });
      },
    });
  },
});
