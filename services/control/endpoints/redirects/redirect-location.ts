import { LOCATION_PARAMS, LOCATION_WELL_FORMED, locationBody, locationFinal } from '../../../../shared/content/redirects.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'redirect-location',
  path: '/redirect-location',
  category: 'status',
  summary: 'Twin of /redirect-location: every mode is a 302 with a well-formed Location, /redirect-location/final?from=<mode>',
  params: LOCATION_PARAMS,
  headers: ['Location'],
  handle(ctx, { mode }) {
    const location = locationFinal(mode);
    ctx.send(302, 'application/json', locationBody(mode, location, LOCATION_WELL_FORMED), undefined, [['Location', location]]);
  },
});
