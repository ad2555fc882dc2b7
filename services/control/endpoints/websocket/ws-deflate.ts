import { DEFLATE_PARAMS } from '../../../../shared/content/websocket.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { WEBSOCKET_HOLDING, WEBSOCKET_TRANSPORTS } from '../../websocket/declarations.js';
import { serveTwin } from '../../websocket/twin.js';

export default defineControlEndpoint({
  id: 'ws-deflate',
  path: '/ws/deflate',
  category: 'websocket',
  summary: 'Twin of /ws/deflate: permessage-deflate negotiated as RFC 7692 says (only when offered), a compressed text message that inflates, then an echo',
  params: DEFLATE_PARAMS,
  transports: WEBSOCKET_TRANSPORTS,
  holding: WEBSOCKET_HOLDING,
  handle(ctx, { mode }) {
    serveTwin(ctx, { opened: (ws) => ws.send(`control:${mode}: a well-formed message, compressed when the client offered permessage-deflate`) }, { deflate: true });
  },
});
