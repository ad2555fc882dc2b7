import { HEADERS_PARAMS } from '../../../../shared/content/http2.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { H2_TWIN_TRANSPORTS, sendWhole, twinBody } from '../../http2/twin.js';

export default defineControlEndpoint({
  id: 'h2-headers',
  path: '/h2/headers',
  category: 'http2',
  summary: 'Twin of /h2/headers over HTTP/2 (node:http2): one :status first, lowercase names, no connection-specific field, an accurate content-length, HPACK its client decodes',
  params: HEADERS_PARAMS,
  transports: H2_TWIN_TRANSPORTS,
  handle(ctx, { mode }) {
    sendWhole(ctx, twinBody(ctx, mode));
  },
});
