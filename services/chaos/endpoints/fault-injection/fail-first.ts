import { FAIL_FIRST_PARAMS, failFirstBody, failFirstStoreKey } from '../../../../shared/content/fault-injection/index.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'fail-first',
  path: '/fail-first',
  category: 'fault-injection',
  transports: HTTP1_AND_H2,
  summary: 'Per `id`, the first `n` calls answer `status` with Retry-After: 1, then 200 until the record expires after `ttl` seconds',
  params: FAIL_FIRST_PARAMS,
  headers: ['X-Chaos-Fail-First-Attempt', 'X-Chaos-Fail-First-Remaining'],
  // Not in the /random pool: stateful, and a seed would replay a different answer.
  async handle(ctx, { id, n, status, ttl }) {
    // The window starts at the first call and is not extended by later ones.
    const attempt = await ctx.store.countInWindow(failFirstStoreKey(id), ttl * 1000);
    const failed = attempt <= n;
    const extra = { 'Fail-First-Attempt': attempt, 'Fail-First-Remaining': Math.max(0, n - attempt) };
    const body = jsonBody(failFirstBody(id, attempt, failed, failed ? status : 200, n, ttl));
    // no-store: a cache would hide the change from failure to success.
    const more: [string, string][] = [['Cache-Control', 'no-store']];
    if (failed) more.push(['Retry-After', '1']);
    sendComplete(ctx, failed ? status : 200, 'application/json', body, extra, more);
  },
});
