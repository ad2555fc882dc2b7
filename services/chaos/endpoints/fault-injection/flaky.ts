import { jsonBody } from '../../../../shared/primitives/json.js';
import { freshSeed } from '../../../../shared/primitives/seed.js';
import { FLAKY_PARAMS, flakyBody, flakyDraw } from '../../../../shared/content/fault-injection/index.js';
import { isInterim } from '../../../../shared/content/status.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { canSendInterim, sendStatus } from '../../status-writer.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'flaky',
  path: '/flaky',
  category: 'fault-injection',
  transports: HTTP1_AND_H2,
  summary: 'Fails with `status` with probability `p`, else 200; the outcome is a pure function of `seed` (reported, so any call can be replayed)',
  params: FLAKY_PARAMS,
  headers: ['X-Chaos-Flaky-Failed', 'X-Chaos-Flaky-Probability', 'X-Chaos-Flaky-Seed'],
  docs: {
    random: 'seeded',
  },
  handle(ctx, { p, status, seed }) {
    const used = seed ?? freshSeed();
    // draw < p: p=0 never fails, p=1 always does (draws are in [0, 1)).
    const failed = flakyDraw(used) < p;
    const extra = { 'Flaky-Failed': failed, 'Flaky-Probability': p, 'Flaky-Seed': encodeURIComponent(used) };
    if (!failed) {
      sendComplete(ctx, 200, 'application/json', jsonBody(flakyBody(false, 200, p, used)), extra);
      return;
    }
    // A failure status is written the way /status writes it (1xx interim, 204/304 bodiless).
    const body = flakyBody(true, status, p, used);
    if (isInterim(status)) body.interim_sent = canSendInterim(ctx);
    sendStatus(ctx, status, jsonBody(body), extra);
  },
});
