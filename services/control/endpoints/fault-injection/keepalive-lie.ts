import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { keepaliveBody } from '../../../../shared/content/fault-injection/index.js';

export default defineControlEndpoint({
  id: 'keepalive-lie',
  path: '/keepalive-lie',
  category: 'headers',
  summary: "Twin of /keepalive-lie: a keep-alive that holds; node:http's own Connection and Keep-Alive lines, and the connection stays open",
  params: {},
  handle(ctx) {
    ctx.send(200, 'application/json', jsonBody(keepaliveBody(true)));
  },
});
