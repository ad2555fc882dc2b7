import { defineHttpEndpoint } from '../../../../shared/http-service.js';
import { int } from '../../../../shared/params.js';
import { dripBody } from '../../../../shared/payloads.js';

export default defineHttpEndpoint({
  id: 'drip',
  path: '/drip',
  category: 'latency',
  summary: 'Twin of /drip: all `bytes` asterisks at once with an accurate Content-Length',
  params: {
    bytes: int({ min: 1, max: 100_000, default: 1000, description: 'total bytes' }),
    interval: int({ min: 10, max: 5000, default: 200, description: 'accepted for parity; never waited' }),
    chunk: int({ min: 1, max: 4096, default: 100, description: 'accepted for parity' }),
  },
  handle(ctx, { bytes }) {
    ctx.send(200, 'application/octet-stream', dripBody(bytes));
  },
});
