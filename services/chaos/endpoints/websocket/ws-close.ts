import { CLOSE_PARAMS, chaosReason, closeCodeFor, type CloseMode } from '../../../../shared/content/websocket.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import { WEBSOCKET_HOLDING, WEBSOCKET_TRANSPORTS } from '../../websocket/declarations.js';
import { closePayload, encodeFrame, fitReason, OPCODES } from '../../websocket/frame.js';
import { openSession, readHandshake, switchingHead } from '../../websocket/handshake.js';
import type { WsSession } from '../../websocket/session.js';

/** The message before a cut, so a client shows that the connection was open. */
const RESET_AFTER_MS = 200;

function closeWith(session: WsSession, payload: Buffer): void {
  session.closeRaw(encodeFrame({ opcode: OPCODES.close, payload }));
}

/** How the connection ends, right after the handshake. */
function end(session: WsSession, mode: CloseMode, code: number, reason: string): void {
  const said = fitReason(chaosReason(mode, reason));
  switch (mode) {
    case 'clean':
    case 'reserved-code':
    case 'invalid-code':
      return closeWith(session, closePayload(code, said));
    case 'one-byte-body':
      return closeWith(session, Buffer.from([0x03]));
    case 'invalid-utf8-reason':
      return closeWith(session, closePayload(1000, Buffer.concat([Buffer.from(`${said} `), Buffer.from([0xff])])));
    case 'no-close-frame':
      session.text(said);
      return session.finish();
    case 'reset':
      session.text(said);
      return session.setTimer(RESET_AFTER_MS, () => session.reset());
    case 'never-closes':
      return session.text(`${said}: close this connection; its close will not be answered`);
  }
}

export default defineChaosEndpoint({
  id: 'ws-close',
  path: '/ws/close',
  category: 'websocket',
  summary: 'A WebSocket that ends right after the handshake the way `mode` says: a clean close with `code`, a reserved or invalid code, a 1-byte close body, a reason that is not UTF-8, no close frame (FIN), a reset, or a close it never answers',
  params: CLOSE_PARAMS,
  headers: ['X-Chaos-Mode', 'X-Chaos-Close-Code'],
  transports: WEBSOCKET_TRANSPORTS,
  holding: WEBSOCKET_HOLDING,
  handle(ctx, { mode, code, reason }) {
    const handshake = readHandshake(ctx);
    if (handshake === undefined) return;
    const sent = closeCodeFor(mode, code);
    const extra: Record<string, string | number> = { Mode: mode };
    if (mode === 'clean' || mode === 'reserved-code' || mode === 'invalid-code') extra['Close-Code'] = sent;
    openSession(ctx, switchingHead(ctx, handshake, extra), {
      opened: (session) => end(session, mode, sent, reason),
      // never-closes: the client's close frame is ignored until the cap ends the connection (a FIN, no close frame).
      ...(mode === 'never-closes' ? { clientClose: () => true } : {}),
    });
  },
});
