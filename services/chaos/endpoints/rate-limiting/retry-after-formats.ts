import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { CONFLICTING_LIMIT_FIELDS, RETRY_AFTER_PARAMS, retryAfterBody, retryAfterValue } from '../../../../shared/content/rate-limiting.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'retry-after-formats',
  path: '/retry-after-formats',
  category: 'rate-limiting',
  transports: HTTP1_AND_H2,
  summary: 'A 429 or 503 whose Retry-After is an HTTP-date, a past date, negative, fractional, huge or garbage; or RateLimit fields that contradict X-RateLimit-*',
  params: RETRY_AFTER_PARAMS,
  headers: ['Retry-After', 'RateLimit', 'RateLimit-Policy', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Chaos-Retry-After-Mode'],
  handle(ctx, { mode, status }) {
    const sent = retryAfterValue(mode, Date.now());
    const more: HeaderList = [['Retry-After', sent]];
    if (mode === 'ratelimit-conflict') more.push(...CONFLICTING_LIMIT_FIELDS);
    sendComplete(ctx, Number(status), 'application/json', retryAfterBody(mode, Number(status), sent), { 'Retry-After-Mode': mode }, more);
  },
});
