import { H2_FRAMES_PARAMS } from '../../../../shared/content/http2.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { H2_TWIN_TRANSPORTS, sendWhole, twinBody } from '../../http2/twin.js';

export default defineControlEndpoint({
  id: 'h2-frames',
  path: '/h2/frames',
  category: 'http2',
  summary: 'Twin of /h2/frames over HTTP/2 (node:http2): the response framed by the rules (oversize-data: a `size`-byte body in DATA frames no larger than the client allows; nothing after END_STREAM, no orphan CONTINUATION, no bad padding)',
  params: H2_FRAMES_PARAMS,
  transports: H2_TWIN_TRANSPORTS,
  handle(ctx, { mode, size }) {
    sendWhole(ctx, mode === 'oversize-data' ? Buffer.alloc(size, 0x2e) : twinBody(ctx, mode));
  },
});
