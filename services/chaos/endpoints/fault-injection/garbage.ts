import { GARBAGE_PARAMS, garbageBytes } from '../../../../shared/content/fault-injection/index.js';
import { compose } from '../../faults/stage.js';
import { garbage } from '../../faults/garbage.js';
import { chaosHead, defineChaosEndpoint } from '../../endpoint.js';
import { NO_H2, noH2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'garbage',
  path: '/garbage',
  category: 'fault-injection',
  transports: noH2(NO_H2.garbage),
  summary: '`n` seeded random bytes in place of an HTTP response, then a clean close; the same seed, the same bytes',
  params: GARBAGE_PARAMS,
  wire: {
    cuts: 'close',
  },
  // Not in the /random pool: its answer is not HTTP.
  handle(ctx, { n, seed }) {
    // The twin's honest response, which the fault replaces whole by the same bytes unframed.
    const body = garbageBytes(seed, n);
    const sink = compose(ctx.wire, [garbage(n, `garbage:${seed}`)]);
    sink.head(200, chaosHead(ctx, 'application/octet-stream', body.length));
    sink.write(body);
    sink.end();
  },
});
