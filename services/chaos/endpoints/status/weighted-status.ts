import { jsonBody } from '../../../../shared/primitives/json.js';
import { freshSeed } from '../../../../shared/primitives/seed.js';
import { WEIGHTED_DEFAULT, WEIGHTED_STATUS_PARAMS, isInterim, weightedCodesText, weightedDraw, weightedStatusBody } from '../../../../shared/content/status.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import { canSendInterim, sendStatus } from '../../status-writer.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'weighted-status',
  path: '/weighted-status',
  category: 'status',
  transports: HTTP1_AND_H2,
  summary: 'Answers a status drawn from `codes` (e.g. 200:0.9,500:0.1) by weight; `seed` fixes the draw (reported, so any call can be replayed)',
  params: WEIGHTED_STATUS_PARAMS,
  headers: ['X-Chaos-Status', 'X-Chaos-Weighted-Codes', 'X-Chaos-Weighted-Seed'],
  docs: {
    example: { target: '/weighted-status?codes=200:0.9,500:0.1' },
  },
  handle(ctx, { codes, seed }) {
    const list = codes ?? WEIGHTED_DEFAULT;
    const used = seed ?? freshSeed();
    const drawn = weightedDraw(list, used);
    // Written the way /status/{code} writes it: a 1xx as an interim head then a final 200, 204/304 bodiless.
    const body = weightedStatusBody(list, used, drawn, isInterim(drawn) ? 200 : drawn);
    if (isInterim(drawn)) body.interim_sent = canSendInterim(ctx);
    sendStatus(ctx, drawn, jsonBody(body), {
      Status: drawn,
      'Weighted-Codes': weightedCodesText(list),
      'Weighted-Seed': encodeURIComponent(used),
    });
  },
});
