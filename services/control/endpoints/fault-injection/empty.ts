import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { EMPTY_TWIN_BODY } from '../../../../shared/content/fault-injection/index.js';

export default defineControlEndpoint({
  id: 'empty',
  path: '/empty',
  category: 'status',
  summary: 'Twin of /empty: 200 with a JSON body saying the chaos host would close without a byte',
  params: {},
  handle(ctx) {
    ctx.send(200, 'application/json', jsonBody(EMPTY_TWIN_BODY));
  },
});
