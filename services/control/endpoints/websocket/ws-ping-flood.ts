import { PING_FLOOD_PARAMS } from '../../../../shared/content/websocket.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { WEBSOCKET_HOLDING, WEBSOCKET_TRANSPORTS } from '../../websocket/declarations.js';
import { serveTwin } from '../../websocket/twin.js';

export default defineControlEndpoint({
  id: 'ws-ping-flood',
  path: '/ws/ping-flood',
  category: 'websocket',
  summary: 'Twin of /ws/ping-flood: one ping of `size` bytes where the chaos twin sends `count`, then the text message, then an echo',
  params: PING_FLOOD_PARAMS,
  transports: WEBSOCKET_TRANSPORTS,
  holding: WEBSOCKET_HOLDING,
  handle(ctx, { count, size }) {
    serveTwin(ctx, {
      opened(ws) {
        ws.ping(Buffer.alloc(size, 0x2e));
        ws.send(`control:ping-flood: sent 1 ping (the chaos twin sends ${count})`);
      },
    });
  },
});
