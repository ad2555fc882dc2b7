import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { FAIL_FIRST_PARAMS, failFirstBody } from '../../../../shared/content/fault-injection/index.js';

export default defineControlEndpoint({
  id: 'fail-first',
  path: '/fail-first',
  category: 'status',
  summary: 'Twin of /fail-first: never fails; 200 with the same JSON shape (attempt null, failed false) whatever n, status and ttl say',
  params: FAIL_FIRST_PARAMS,
  handle(ctx, { id, n, ttl }) {
    ctx.send(200, 'application/json', jsonBody(failFirstBody(id, null, false, 200, n, ttl)), undefined, [['Cache-Control', 'no-store']]);
  },
});
