import { jsonBody } from '../../../../shared/primitives/json.js';
import { RATE_LIMIT_PARAMS, rateLimitBody, rateLimitHeaders } from '../../../../shared/content/rate-limiting.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'rate-limit',
  path: '/rate-limit',
  category: 'rate-limiting',
  transports: HTTP1_AND_H2,
  summary: 'Always 429 with Retry-After and X-RateLimit-*; with lie=true Retry-After says 1 while the body reports `retry_after`',
  params: RATE_LIMIT_PARAMS,
  headers: ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Chaos-Rate-Limit-Lied'],
  docs: {
    random: 'seeded',
  },
  handle(ctx, { retry_after, lie }) {
    const sent = lie ? 1 : retry_after;
    // "Lied" reports whether the header differs from the truth (retry_after=1 with lie=true is not a lie).
    sendComplete(ctx, 429, 'application/json', jsonBody(rateLimitBody(retry_after, sent)), { 'Rate-Limit-Lied': sent !== retry_after }, rateLimitHeaders(sent, retry_after));
  },
});
