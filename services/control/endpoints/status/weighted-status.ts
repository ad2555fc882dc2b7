import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { freshSeed } from '../../../../shared/primitives/seed.js';
import { WEIGHTED_DEFAULT, WEIGHTED_STATUS_PARAMS, weightedDraw, weightedStatusBody } from '../../../../shared/content/status.js';

export default defineControlEndpoint({
  id: 'weighted-status',
  path: '/weighted-status',
  category: 'status',
  summary: 'Twin of /weighted-status: always 200, the same JSON naming the same seeded draw (drawn), whatever it is',
  params: WEIGHTED_STATUS_PARAMS,
  docs: {
    example: { target: '/weighted-status?codes=200:0.9,500:0.1' },
  },
  handle(ctx, { codes, seed }) {
    const list = codes ?? WEIGHTED_DEFAULT;
    const used = seed ?? freshSeed();
    ctx.send(200, 'application/json', jsonBody(weightedStatusBody(list, used, weightedDraw(list, used), 200)));
  },
});
