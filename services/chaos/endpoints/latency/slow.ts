import { SLOW_MAX_MS, SLOW_PARAMS, slowBody } from '../../../../shared/content/latency.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'slow',
  path: '/slow',
  category: 'latency',
  summary: 'Waits `ms` milliseconds, then sends the whole response at once',
  transports: HTTP1_AND_H2,
  params: SLOW_PARAMS,
  headers: ['X-Chaos-Delayed-Ms'],
  holding: {
    longestMs: () => SLOW_MAX_MS,
  },
  handle(ctx, { ms }) {
    // The wait dies with the socket: a client that gives up costs nothing. The
    // response is built when it is over (its Date, its Connection line), and on
    // the connection's own wire it leaves as one string and one write: a held
    // /slow keeps no fault stage, and its answer builds no header list.
    ctx.wire.setTimer(ms, () => {
      sendComplete(ctx, 200, 'application/json', jsonBody(slowBody(ms)), { 'Delayed-Ms': ms });
    });
  },
});
