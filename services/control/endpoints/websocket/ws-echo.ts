import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { WEBSOCKET_HOLDING, WEBSOCKET_TRANSPORTS } from '../../websocket/declarations.js';
import { serveTwin } from '../../websocket/twin.js';

export default defineControlEndpoint({
  id: 'ws-echo',
  path: '/ws/echo',
  category: 'websocket',
  summary: 'A well-formed WebSocket echo (ws): text and binary messages back as sent, pings answered, the client\'s close answered with its code',
  params: {},
  transports: WEBSOCKET_TRANSPORTS,
  holding: WEBSOCKET_HOLDING,
  counterpart: null,
  handle(ctx) {
    serveTwin(ctx, {});
  },
});
