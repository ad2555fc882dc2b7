import { LOCATION_FINAL_PARAMS, LOCATION_FINAL_PATH, locationFinalBody } from '../../../../shared/content/redirects.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'redirect-location-final',
  path: LOCATION_FINAL_PATH,
  category: 'redirects',
  transports: HTTP1_AND_H2,
  summary: 'Where the /redirect-location Locations resolve: 200 naming the mode that led here',
  params: LOCATION_FINAL_PARAMS,
  docs: {
    modeParam: 'from',
  },
  handle(ctx, { from }) {
    sendComplete(ctx, 200, 'application/json', locationFinalBody(from));
  },
});
