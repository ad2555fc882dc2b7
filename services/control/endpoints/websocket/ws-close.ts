import { CLOSE_PARAMS, closeCodeFor } from '../../../../shared/content/websocket.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { WEBSOCKET_HOLDING, WEBSOCKET_TRANSPORTS } from '../../websocket/declarations.js';
import { serveTwin } from '../../websocket/twin.js';

export default defineControlEndpoint({
  id: 'ws-close',
  path: '/ws/close',
  category: 'websocket',
  summary: 'Twin of /ws/close: a clean close right after the handshake with `code` (a valid one; else 1000) and `reason`, whatever the mode',
  params: CLOSE_PARAMS,
  transports: WEBSOCKET_TRANSPORTS,
  holding: WEBSOCKET_HOLDING,
  handle(ctx, { code, reason }) {
    serveTwin(ctx, { opened: (ws) => ws.close(closeCodeFor('clean', code), reason) });
  },
});
