import { SLOW_PARAMS, slowBody } from '../../../../shared/content/latency.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';

export default defineControlEndpoint({
  id: 'slow',
  path: '/slow',
  category: 'latency',
  summary: 'Twin of /slow: the same JSON document, answered at once (delayed_ms is 0)',
  params: SLOW_PARAMS,
  handle(ctx) {
    ctx.send(200, 'application/json', jsonBody(slowBody(0)));
  },
});
