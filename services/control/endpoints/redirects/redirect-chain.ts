import { REDIRECT_FINAL_BODY, REDIRECT_MAX, redirectHopBody, redirectLocation } from '../../../../shared/content/redirects.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { int } from '../../../../shared/primitives/params.js';

export default defineControlEndpoint({
  id: 'redirect-chain',
  path: '/redirect-chain',
  category: 'status',
  summary: 'Twin of /redirect-chain: the same hops, 302 with Location to /redirect-chain?n=<n-1>, final 200',
  params: {
    n: int({ min: 0, max: REDIRECT_MAX, default: 3, description: 'hops remaining' }),
  },
  headers: ['Location', 'X-Chaos-Redirect-Chain'],
  handle(ctx, { n }) {
    if (n === 0) {
      // The same resolution marker as the chaos host, so a script can switch hosts unchanged.
      ctx.send(200, 'application/json', REDIRECT_FINAL_BODY, { 'Redirect-Chain': 'resolved' });
      return;
    }
    ctx.send(302, 'application/json', redirectHopBody(n), undefined, [['Location', redirectLocation(n)]]);
  },
});
