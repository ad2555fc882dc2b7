import { FLOW_PARAMS, FLOW_TWIN_BODY_BYTES } from '../../../../shared/content/http2.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { H2_TWIN_TRANSPORTS, readUpload, sendWhole, twinBody } from '../../http2/twin.js';

export default defineControlEndpoint({
  id: 'h2-flow',
  path: '/h2/flow',
  category: 'http2',
  summary: 'Twin of /h2/flow over HTTP/2 (node:http2): a request body read with the window given back as it comes, then a 192 KiB body sent within the client\'s windows (waiting for its WINDOW_UPDATEs, never past 2^31-1)',
  methods: ['GET', 'POST', 'PUT'],
  params: FLOW_PARAMS,
  transports: H2_TWIN_TRANSPORTS,
  handle(ctx, { mode }) {
    readUpload(ctx, (received) => {
      const head = twinBody(ctx, mode, { received });
      sendWhole(ctx, Buffer.concat([head, Buffer.alloc(FLOW_TWIN_BODY_BYTES - head.length, 0x2e)]));
    });
  },
});
