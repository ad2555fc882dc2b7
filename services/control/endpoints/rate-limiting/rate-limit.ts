import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { RATE_LIMIT_PARAMS, rateLimitBody, rateLimitHeaders } from '../../../../shared/content/rate-limiting.js';

export default defineControlEndpoint({
  id: 'rate-limit',
  path: '/rate-limit',
  category: 'rate-limiting',
  summary: 'Twin of /rate-limit: a 429 whose Retry-After is always `retry_after` (lie is accepted and ignored)',
  params: RATE_LIMIT_PARAMS,
  docs: {
    random: 'seeded',
  },
  handle(ctx, { retry_after }) {
    ctx.send(429, 'application/json', jsonBody(rateLimitBody(retry_after, retry_after)), undefined, rateLimitHeaders(retry_after, retry_after));
  },
});
