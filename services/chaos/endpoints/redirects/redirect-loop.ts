import { LOOP_PARAMS, loopHopBody, loopLocation } from '../../../../shared/content/redirects.js';
import { examCarry } from '../../../../shared/primitives/exam-param.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'redirect-loop',
  path: '/redirect-loop',
  category: 'redirects',
  transports: HTTP1_AND_H2,
  summary: 'A true cycle of n URLs (302 to /redirect-loop?n=<n>&at=<next>) that never resolves; curl -L gives up with exit 47',
  params: LOOP_PARAMS,
  headers: ['Location', 'X-Chaos-Redirect-Loop-At'],
  handle(ctx, { n, at }) {
    // Any position is taken modulo n, so every URL of the family stays on the cycle.
    const here = at % n;
    // A client exam's step id rides along, so every hop is counted (docs/exam.md).
    const location = loopLocation(n, (here + 1) % n) + examCarry(ctx.req.query);
    sendComplete(ctx, 302, 'application/json', loopHopBody(n, here, location, false), { 'Redirect-Loop-At': here }, [['Location', location]]);
  },
});
