import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { FLAKY_PARAMS, flakyBody } from '../../../../shared/content/fault-injection/index.js';

export default defineControlEndpoint({
  id: 'flaky',
  path: '/flaky',
  category: 'status',
  summary: 'Twin of /flaky: never fails; 200 with the same JSON shape (failed: false) whatever p, status and seed say',
  params: FLAKY_PARAMS,
  docs: {
    random: 'seeded',
  },
  handle(ctx, { p, seed }) {
    ctx.send(200, 'application/json', jsonBody(flakyBody(false, 200, p, seed ?? null)));
  },
});
