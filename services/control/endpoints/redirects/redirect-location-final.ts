import { LOCATION_FINAL_PARAMS, LOCATION_FINAL_PATH, locationFinalBody } from '../../../../shared/content/redirects.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'redirect-location-final',
  path: LOCATION_FINAL_PATH,
  category: 'status',
  summary: 'Where the /redirect-location Locations resolve: 200 naming the mode that led here',
  params: LOCATION_FINAL_PARAMS,
  docs: {
    modeParam: 'from',
  },
  handle(ctx, { from }) {
    ctx.send(200, 'application/json', locationFinalBody(from));
  },
});
