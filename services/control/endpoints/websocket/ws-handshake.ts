import { HANDSHAKE_PARAMS } from '../../../../shared/content/websocket.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { WEBSOCKET_HOLDING, WEBSOCKET_TRANSPORTS } from '../../websocket/declarations.js';
import { serveTwin } from '../../websocket/twin.js';

export default defineControlEndpoint({
  id: 'ws-handshake',
  path: '/ws/handshake',
  category: 'websocket',
  summary: 'Twin of /ws/handshake: a correct opening handshake at once (the right accept, the first subprotocol offered, no extension), then an echo',
  params: HANDSHAKE_PARAMS,
  transports: WEBSOCKET_TRANSPORTS,
  holding: WEBSOCKET_HOLDING,
  handle(ctx) {
    serveTwin(ctx, {});
  },
});
