import { GOAWAY_PARAMS } from '../../../../shared/content/http2.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { H2_TWIN_TRANSPORTS, sendWhole, streamOf, twinBody } from '../../http2/twin.js';

/** How long after the response's last byte the GOAWAY follows. */
const GOAWAY_AFTER_MS = 100;

export default defineControlEndpoint({
  id: 'h2-goaway',
  path: '/h2/goaway',
  category: 'http2',
  summary: 'Twin of /h2/goaway over HTTP/2 (node:http2): the whole response, then (100 ms later) one GOAWAY NO_ERROR naming the last stream processed (RFC 9113 §6.8), streams in flight finished before the close',
  params: GOAWAY_PARAMS,
  transports: H2_TWIN_TRANSPORTS,
  handle(ctx, { mode }) {
    const { session } = streamOf(ctx);
    // session.close(): GOAWAY NO_ERROR with nghttp2's last processed stream id, no new streams, the open ones finish.
    // A moment after the response, not in its packet: httpx 0.23 (httpcore 0.16) fails a stream it is still reading on any GOAWAY.
    const close = (): void => {
      const timer = setTimeout(() => session?.close(), GOAWAY_AFTER_MS);
      session?.once('close', () => clearTimeout(timer));
    };
    sendWhole(ctx, twinBody(ctx, mode, { goaway: 'NO_ERROR after the response' }), close);
  },
});
