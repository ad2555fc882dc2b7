import { LOOP_PARAMS, loopFinalBody, loopHopBody, loopLocation } from '../../../../shared/content/redirects.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'redirect-loop',
  path: '/redirect-loop',
  category: 'status',
  summary: 'Twin of /redirect-loop: the same n URLs as a chain, 302 to at+1 until at reaches n, then 200',
  params: LOOP_PARAMS,
  headers: ['Location'],
  handle(ctx, { n, at }) {
    if (at >= n) {
      ctx.send(200, 'application/json', loopFinalBody(n));
      return;
    }
    const location = loopLocation(n, at + 1);
    ctx.send(302, 'application/json', loopHopBody(n, at, location, true), undefined, [['Location', location]]);
  },
});
