import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { RETRY_PARAMS, retryBody } from '../../../../shared/content/fault-injection/index.js';

export default defineControlEndpoint({
  id: 'retry-mismatch',
  path: '/retry-mismatch',
  category: 'rate-limiting',
  summary: 'Twin of /retry-mismatch: idempotent; every call for an `id` gets the same version 1 data',
  params: RETRY_PARAMS,
  docs: {
    // Stateless here, so a seed covers it.
    random: 'seeded',
  },
  handle(ctx, { id }) {
    ctx.send(200, 'application/json', jsonBody(retryBody(id, 1)));
  },
});
