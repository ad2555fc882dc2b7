import { TRUNCATE_PARAMS, digitPattern } from '../../../../shared/content/payload/index.js';
import { chaosHead, defineChaosEndpoint } from '../../endpoint.js';
import { compose } from '../../faults/stage.js';
import { truncateAt } from '../../faults/truncate-at.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'truncate',
  path: '/truncate',
  category: 'payload',
  transports: HTTP1_AND_H2,
  summary: 'Content-Length claims 2×`at`; the stream closes after `at` bytes of 0123456789…',
  params: TRUNCATE_PARAMS,
  headers: ['X-Chaos-Truncated-At', 'X-Chaos-Promised-Bytes', 'X-Chaos-Actual-Bytes'],
  wire: {
    cuts: 'close',
  },
  docs: {
    random: 'seeded',
  },
  handle(ctx, { at }) {
    // The honest response promises and holds 2×at bytes; the fault cuts it with
    // a clean FIN, not a reset: the client sees the body end early.
    const promised = 2 * at;
    const wire = compose(ctx.wire, [truncateAt(at, 'close')]);
    wire.head(
      200,
      chaosHead(ctx, 'text/plain', promised, { 'Truncated-At': at, 'Promised-Bytes': promised, 'Actual-Bytes': at }),
    );
    wire.write(digitPattern(promised));
    wire.end();
  },
});
