import { SLOW_PARAMS, slowBody } from '../../../../shared/content/payload.js';
import { jsonBody } from '../../../../shared/json.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';

export default defineChaosEndpoint({
  id: 'slow',
  path: '/slow',
  category: 'latency',
  holdsConnection: true,
  summary: 'Waits `ms` milliseconds, then sends the whole response at once',
  params: SLOW_PARAMS,
  headers: ['X-Chaos-Delayed-Ms'],
  handle(ctx, { ms }) {
    // The timer dies with the socket: a client that gives up costs nothing.
    ctx.wire.setTimer(ms, () => {
      sendComplete(ctx, 200, 'application/json', jsonBody(slowBody(ms)), { 'Delayed-Ms': ms });
    });
  },
});
