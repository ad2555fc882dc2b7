import { HUGE_HEADER_PARAMS, hugeHeaderBody } from '../../../../shared/content/headers.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'huge-header',
  path: '/huge-header',
  category: 'headers',
  summary: 'Twin of /huge-header: no oversized header; the same `size`-byte value delivered as data in the JSON body',
  params: HUGE_HEADER_PARAMS,
  handle(ctx, { size }) {
    // Data belongs in the body: most clients refuse a head over 8–16 KiB.
    ctx.send(200, 'application/json', hugeHeaderBody(size, true));
  },
});
