import { RESET_PARAMS, resetBody } from '../../../../shared/content/fault-injection/index.js';
import { compose } from '../../faults/stage.js';
import { resetAt } from '../../faults/reset-at.js';
import { chaosHead, defineChaosEndpoint } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'reset',
  path: '/reset',
  category: 'fault-injection',
  transports: HTTP1_AND_H2,
  summary: 'A TCP reset (RST) before the head, right after it, or after `after` bytes of a declared body',
  params: RESET_PARAMS,
  headers: ['X-Chaos-Reset-Phase', 'X-Chaos-Reset-After'],
  wire: {
    cuts: 'reset',
  },
  docs: {
    modeParam: 'phase',
  },
  // Not in the /random pool: its answer is a reset, never a response.
  handle(ctx, { phase, after }) {
    // An honest response with a body longer than `after`, written through the reset.
    const body = resetBody(after);
    const sink = compose(ctx.wire, [resetAt(phase, after)]);
    sink.head(200, chaosHead(ctx, 'text/plain; charset=utf-8', body.length, { 'Reset-Phase': phase, 'Reset-After': after }));
    sink.write(body);
    sink.end();
  },
});
