import { FRAMES_PARAMS } from '../../../../shared/content/websocket.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { WEBSOCKET_HOLDING, WEBSOCKET_TRANSPORTS } from '../../websocket/declarations.js';
import { serveTwin } from '../../websocket/twin.js';

export default defineControlEndpoint({
  id: 'ws-frames',
  path: '/ws/frames',
  category: 'websocket',
  summary: 'Twin of /ws/frames: echoes `after` messages, then sends a well-formed text message where the chaos twin breaks a framing rule, and echoes on',
  params: FRAMES_PARAMS,
  transports: WEBSOCKET_TRANSPORTS,
  holding: WEBSOCKET_HOLDING,
  handle(ctx, { mode, after }) {
    const honest = `control:${mode}: a well-formed text frame`;
    serveTwin(ctx, {
      opened(ws) {
        if (after === 0) ws.send(honest);
      },
      message(ws, data, binary, index) {
        ws.send(data, { binary });
        if (index + 1 === after) ws.send(honest);
      },
    });
  },
});
