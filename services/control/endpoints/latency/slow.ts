import { int } from '../../../../shared/params.js';
import { SLOW_MAX_MS, slowBody } from '../../../../shared/payloads.js';
import { defineHttpEndpoint } from '../../../../shared/http-service.js';
import { jsonBody } from '../../../../shared/json.js';

export default defineHttpEndpoint({
  id: 'slow',
  path: '/slow',
  category: 'latency',
  summary: 'Twin of /slow: the same JSON document, answered at once (delayed_ms is 0)',
  params: { ms: int({ min: 0, max: SLOW_MAX_MS, default: 1000, description: 'accepted for parity; never waited' }) },
  handle(ctx) {
    ctx.send(200, 'application/json', jsonBody(slowBody(0)));
  },
});
