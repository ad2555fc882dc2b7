import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { DRIP_PARAMS, dripBody, fitDrip } from '../../../../shared/content/latency.js';

export default defineControlEndpoint({
  id: 'drip',
  path: '/drip',
  category: 'latency',
  summary: 'Twin of /drip: all `bytes` asterisks at once with an accurate Content-Length',
  params: DRIP_PARAMS,
  admission: {
    // A schedule longer than MAX_RESPONSE_MS gets a larger chunk, reported in X-Chaos-Clamped.
    adjust: (params, config) => fitDrip(params, config.maxResponseMs),
  },
  handle(ctx, { bytes }) {
    ctx.send(200, 'application/octet-stream', dripBody(bytes));
  },
});
