import { CROSS_CHAOS_PARAMS, CROSS_COOKIE, crossCookieToControl, crossHopBody, crossToControl } from '../../../../shared/content/redirects.js';
import { examCarry } from '../../../../shared/primitives/exam-param.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'redirect-cross-host',
  path: '/redirect-cross-host',
  category: 'redirects',
  transports: HTTP1_AND_H2,
  summary: 'A 302 chain that alternates between the chaos and control hosts (absolute Locations) hops times, resolving with 200 on control; cookie=true sets a host-only cookie on the chaos hop',
  params: CROSS_CHAOS_PARAMS,
  headers: ['Location', 'Set-Cookie', 'X-Chaos-Redirect-Remaining'],
  handle(ctx, { hops, cookie }) {
    // Always across: the control hop sends the chain back here while hops remain.
    // A client exam's step id rides along, so the other host records the hop (docs/exam.md).
    const location = (cookie ? crossCookieToControl(ctx.config, hops - 1) : crossToControl(ctx.config, hops - 1)) + examCarry(ctx.req.query);
    const lines: [string, string][] = [['Location', location]];
    if (cookie) lines.push(['Set-Cookie', CROSS_COOKIE]);
    sendComplete(ctx, 302, 'application/json', crossHopBody('chaos', hops, location), { 'Redirect-Remaining': hops }, lines);
  },
});
