import { STALL_PARAMS, fitStall, stallBody } from '../../../../shared/content/latency.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'stall',
  path: '/stall',
  category: 'latency',
  summary: 'Twin of /stall: all `after`+1 promised bytes at once with an accurate Content-Length, no silence',
  params: STALL_PARAMS,
  admission: {
    adjust: (params, config) => fitStall(params, config.maxResponseMs),
  },
  handle(ctx, { after }) {
    ctx.send(200, 'text/plain', stallBody(after));
  },
});
