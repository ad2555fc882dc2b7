import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { AGREEING_LIMIT_FIELDS, RETRY_AFTER_PARAMS, RETRY_AFTER_SECONDS, retryAfterBody } from '../../../../shared/content/rate-limiting.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'retry-after-formats',
  path: '/retry-after-formats',
  category: 'rate-limiting',
  summary: 'Twin of /retry-after-formats: the same status with a correct Retry-After (delta-seconds, 30); agreeing RateLimit and X-RateLimit-* in ratelimit-conflict',
  params: RETRY_AFTER_PARAMS,
  headers: ['Retry-After', 'RateLimit', 'RateLimit-Policy', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
  handle(ctx, { mode, status }) {
    const sent = String(RETRY_AFTER_SECONDS);
    const more: HeaderList = [['Retry-After', sent]];
    if (mode === 'ratelimit-conflict') more.push(...AGREEING_LIMIT_FIELDS);
    ctx.send(Number(status), 'application/json', retryAfterBody(mode, Number(status), sent), undefined, more);
  },
});
