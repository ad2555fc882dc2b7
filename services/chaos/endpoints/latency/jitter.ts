import { JITTER_MAX_MS, JITTER_PARAMS, jitterBody, jitterDraw } from '../../../../shared/content/latency.js';
import { freshSeed } from '../../../../shared/primitives/seed.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'jitter',
  path: '/jitter',
  category: 'latency',
  transports: HTTP1_AND_H2,
  summary: 'Waits a delay drawn from `dist` (uniform, normal, lognormal) around `ms`, bounded to 0–15000 ms and fixed by `seed`, then sends the whole response',
  params: JITTER_PARAMS,
  headers: ['X-Chaos-Delayed-Ms', 'X-Chaos-Jitter-Dist', 'X-Chaos-Jitter-Seed'],
  holding: {
    longestMs: () => JITTER_MAX_MS,
  },
  docs: {
    modeParam: 'dist',
  },
  handle(ctx, { dist, ms, spread, seed }) {
    const used = seed ?? freshSeed();
    const delay = jitterDraw(dist, ms, spread, used);
    // As /slow: the wait dies with the socket, and the response is built when it is over.
    ctx.wire.setTimer(delay, () => {
      sendComplete(ctx, 200, 'application/json', jitterBody(dist, ms, spread, used, delay, delay), {
        'Delayed-Ms': delay,
        'Jitter-Dist': dist,
        'Jitter-Seed': encodeURIComponent(used),
      });
    });
  },
});
