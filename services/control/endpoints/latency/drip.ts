import { defineControlEndpoint } from '../../../../shared/http-service.js';
import { DRIP_PARAMS, dripBody } from '../../../../shared/content/payload.js';

export default defineControlEndpoint({
  id: 'drip',
  path: '/drip',
  category: 'latency',
  summary: 'Twin of /drip: all `bytes` asterisks at once with an accurate Content-Length',
  params: DRIP_PARAMS,
  handle(ctx, { bytes }) {
    ctx.send(200, 'application/octet-stream', dripBody(bytes));
  },
});
