import { CROSS_CHAOS_PARAMS, crossHopBody, crossToControl } from '../../../../shared/content/redirects.js';
import { examCarry } from '../../../../shared/primitives/exam-param.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'redirect-cross-host',
  path: '/redirect-cross-host',
  category: 'redirects',
  transports: HTTP1_AND_H2,
  summary: 'A 302 chain that alternates between the chaos and control hosts (absolute Locations) hops times, resolving with 200 on control',
  params: CROSS_CHAOS_PARAMS,
  headers: ['Location', 'X-Chaos-Redirect-Remaining'],
  handle(ctx, { hops }) {
    // Always across: the control hop sends the chain back here while hops remain.
    // A client exam's step id rides along, so the other host records the hop (docs/exam.md).
    const location = crossToControl(ctx.config, hops - 1) + examCarry(ctx.req.query);
    sendComplete(ctx, 302, 'application/json', crossHopBody('chaos', hops, location), { 'Redirect-Remaining': hops }, [['Location', location]]);
  },
});
