import { HEADER_FLOOD_MAX, headerFloodDataBody } from '../../../../shared/content/headers.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { int } from '../../../../shared/primitives/params.js';

export default defineControlEndpoint({
  id: 'header-flood',
  path: '/header-flood',
  category: 'headers',
  summary: 'Twin of /header-flood: the same JSON fields, the n synthetic headers delivered as data in the body, none on the wire',
  params: {
    n: int({ min: 1, max: HEADER_FLOOD_MAX, default: 20, description: 'number of synthetic entries listed in the body' }),
  },
  handle(ctx, { n }) {
    // No flood on the wire: data belongs in the body, and 100+ header lines break
    // proxies in http mode (HAProxy answers 502 beyond ~101 headers).
    ctx.send(200, 'application/json', headerFloodDataBody(n));
  },
});
