import { REDIRECT_FINAL_BODY, REDIRECT_MAX, redirectHopBody, redirectLocation } from '../../../../shared/content/redirects.js';
import { int } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'redirect-chain',
  path: '/redirect-chain',
  category: 'redirects',
  transports: HTTP1_AND_H2,
  summary: '302 to /redirect-chain?n=<n-1> until n reaches 0, then 200',
  params: {
    n: int({ min: 0, max: REDIRECT_MAX, default: 3, description: 'hops remaining' }),
  },
  headers: ['Location', 'X-Chaos-Redirect-Chain', 'X-Chaos-Redirect-Remaining'],
  docs: {
    random: 'seeded',
  },
  handle(ctx, { n }) {
    if (n === 0) {
      sendComplete(ctx, 200, 'application/json', REDIRECT_FINAL_BODY, { 'Redirect-Chain': 'resolved' });
      return;
    }
    // Remaining counts this hop, as n does. The Location is relative, exactly as
    // the spec writes it (RFC 9110 §10.2.2 allows a relative reference).
    sendComplete(
      ctx,
      302,
      'application/json',
      redirectHopBody(n),
      { 'Redirect-Chain': 'redirecting', 'Redirect-Remaining': n },
      [['Location', redirectLocation(n)]],
    );
  },
});
