import { TRUNCATE_PARAMS, digitPattern } from '../../../../shared/content/payload.js';
import { chaosHead, defineChaosEndpoint } from '../../endpoint.js';

export default defineChaosEndpoint({
  id: 'truncate',
  path: '/truncate',
  category: 'payload',
  summary: 'Content-Length claims 2×`at`; the stream closes after `at` bytes of 0123456789…',
  params: TRUNCATE_PARAMS,
  headers: ['X-Chaos-Truncated-At', 'X-Chaos-Promised-Bytes', 'X-Chaos-Actual-Bytes'],
  random: 'seeded',
  handle(ctx, { at }) {
    const promised = 2 * at;
    ctx.wire.head(
      200,
      chaosHead(ctx, 'text/plain', promised, { 'Truncated-At': at, 'Promised-Bytes': promised, 'Actual-Bytes': at }),
    );
    ctx.wire.write(digitPattern(at));
    // A clean FIN, not a reset: the client sees the body end early.
    ctx.wire.end('close');
  },
});
