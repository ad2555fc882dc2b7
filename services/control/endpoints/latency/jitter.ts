import { JITTER_PARAMS, jitterBody, jitterDraw } from '../../../../shared/content/latency.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { freshSeed } from '../../../../shared/primitives/seed.js';

export default defineControlEndpoint({
  id: 'jitter',
  path: '/jitter',
  category: 'latency',
  summary: 'Twin of /jitter: the same document naming the same seeded draw (drawn_ms), answered at once (delayed_ms is 0)',
  params: JITTER_PARAMS,
  docs: {
    modeParam: 'dist',
  },
  handle(ctx, { dist, ms, spread, seed }) {
    const used = seed ?? freshSeed();
    ctx.send(200, 'application/json', jitterBody(dist, ms, spread, used, jitterDraw(dist, ms, spread, used), 0));
  },
});
