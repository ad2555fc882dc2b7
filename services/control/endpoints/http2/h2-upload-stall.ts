import { UPLOAD_STALL_PARAMS } from '../../../../shared/content/http2.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { H2_TWIN_TRANSPORTS, readUpload, sendWhole, twinBody } from '../../http2/twin.js';

export default defineControlEndpoint({
  id: 'h2-upload-stall',
  path: '/h2/upload-stall',
  category: 'http2',
  summary: 'Twin of /h2/upload-stall over HTTP/2 (node:http2): the request body read as it comes (the client\'s window given back, ≤ 1 MiB, else a real 413), then an answer saying how many bytes arrived',
  methods: ['GET', 'POST', 'PUT'],
  params: UPLOAD_STALL_PARAMS,
  transports: H2_TWIN_TRANSPORTS,
  handle(ctx) {
    readUpload(ctx, (received) => sendWhole(ctx, twinBody(ctx, 'upload-stall', { received })));
  },
});
