import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { GARBAGE_PARAMS, garbageBytes } from '../../../../shared/content/fault-injection/index.js';

export default defineControlEndpoint({
  id: 'garbage',
  path: '/garbage',
  category: 'payload',
  summary: 'Twin of /garbage: the same `n` seeded bytes as a complete application/octet-stream response',
  params: GARBAGE_PARAMS,
  handle(ctx, { n, seed }) {
    ctx.send(200, 'application/octet-stream', garbageBytes(seed, n));
  },
});
