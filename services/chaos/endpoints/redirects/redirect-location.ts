import { LOCATION_PARAMS, chaosLocation, locationBody } from '../../../../shared/content/redirects.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'redirect-location',
  path: '/redirect-location',
  category: 'redirects',
  transports: HTTP1_AND_H2,
  summary: 'A 302 whose Location is relative, protocol-relative, full of dot segments, missing, malformed, non-http, with a fragment, or on another host',
  params: LOCATION_PARAMS,
  headers: ['Location', 'X-Chaos-Redirect-Location-Mode'],
  handle(ctx, { mode, scheme }) {
    const location = chaosLocation(mode, scheme, ctx.config);
    // Written as given: the wire adds no escaping, so the malformed Location arrives exactly as built.
    sendComplete(ctx, 302, 'application/json', locationBody(mode, location), { 'Redirect-Location-Mode': mode }, location === undefined ? [] : [['Location', location]]);
  },
});
