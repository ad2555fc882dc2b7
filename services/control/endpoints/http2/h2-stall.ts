import { STALL_PARAMS } from '../../../../shared/content/http2.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { H2_TWIN_TRANSPORTS, sendWhole, twinBody } from '../../http2/twin.js';

export default defineControlEndpoint({
  id: 'h2-stall',
  path: '/h2/stall',
  category: 'http2',
  summary: 'Twin of /h2/stall over HTTP/2 (node:http2): the whole body its content-length promises, at once, ended with END_STREAM',
  params: STALL_PARAMS,
  transports: H2_TWIN_TRANSPORTS,
  handle(ctx, { after }) {
    sendWhole(ctx, twinBody(ctx, 'stall', { stalled: false }, after + 1));
  },
});
