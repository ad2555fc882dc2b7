import { HANDSHAKE_PARAMS, chaosReason } from '../../../../shared/content/websocket.js';
import { defineChaosEndpoint, sendResponse } from '../../endpoint.js';
import { WEBSOCKET_HOLDING, WEBSOCKET_TRANSPORTS } from '../../websocket/declarations.js';
import { acceptKey } from '../../websocket/frame.js';
import { openSession, openSessionSlowly, readHandshake, switchingHead, type ClientHandshake, type HeadLies } from '../../websocket/handshake.js';

/** slow-101: the head in this many pieces, over this long. */
const SLOW_PIECES = 20;
const SLOW_MS = 5_000;

/** The lie of each mode that still sends a 101 head. */
function liesOf(mode: string, handshake: ClientHandshake): HeadLies {
  switch (mode) {
    case 'bad-accept':
      return { accept: acceptKey(`${handshake.key}chaos`) };
    case 'protocol-not-offered':
      return { protocol: 'chaos-not-offered' };
    // protocol-missing: the client's Sec-WebSocket-Protocol is left unanswered (the honest head when it offered none).
    case 'extension-not-offered':
      // An extension outside the client's offer: permessage-deflate unless it asked for that.
      return { extensions: /permessage-deflate/i.test(handshake.extensions ?? '') ? 'x-chaos-not-offered' : 'permessage-deflate' };
    case 'no-upgrade-header':
      return { upgrade: false };
    case 'http-1.0-101':
      return { statusLine: 'HTTP/1.0 101 Switching Protocols' };
    default:
      return {};
  }
}

export default defineChaosEndpoint({
  id: 'ws-handshake',
  path: '/ws/handshake',
  category: 'websocket',
  summary: 'An opening handshake that lies (RFC 6455 §4): a wrong Sec-WebSocket-Accept, a subprotocol not offered or missing, an extension not offered, 200 instead of 101, no Upgrade line, an HTTP/1.0 101, or a 101 trickled over 5 s',
  params: HANDSHAKE_PARAMS,
  headers: ['X-Chaos-Mode'],
  transports: WEBSOCKET_TRANSPORTS,
  holding: WEBSOCKET_HOLDING,
  handle(ctx, { mode }) {
    const handshake = readHandshake(ctx);
    if (handshake === undefined) return;
    if (mode === 'status-200') {
      const body = Buffer.from(`${chaosReason(mode)}: a 200 where the handshake needs 101 Switching Protocols\n`);
      sendResponse(ctx, 200, 'text/plain; charset=utf-8', body.length, body, { Mode: mode }, 'close');
      return;
    }
    const head = switchingHead(ctx, handshake, { Mode: mode }, liesOf(mode, handshake));
    if (mode === 'slow-101') openSessionSlowly(ctx, head, SLOW_PIECES, SLOW_MS, {});
    else openSession(ctx, head, {});
  },
});
