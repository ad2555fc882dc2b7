import { RST_PARAMS } from '../../../../shared/content/http2.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { H2_TWIN_TRANSPORTS, sendWhole, twinBody } from '../../http2/twin.js';

export default defineControlEndpoint({
  id: 'h2-rst',
  path: '/h2/rst',
  category: 'http2',
  summary: 'Twin of /h2/rst over HTTP/2 (node:http2): the whole body its content-length promises (`at` bytes past the JSON line), ended with END_STREAM, no RST_STREAM',
  params: RST_PARAMS,
  transports: H2_TWIN_TRANSPORTS,
  handle(ctx, { at, code }) {
    sendWhole(ctx, twinBody(ctx, 'rst', { reset: false, code_not_sent: code }, at));
  },
});
