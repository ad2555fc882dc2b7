import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { CHUNKED_PARAMS, chunkedParts } from '../../../../shared/content/fault-injection/index.js';

export default defineControlEndpoint({
  id: 'chunked',
  path: '/chunked',
  category: 'payload',
  summary: 'Twin of /chunked: the same JSON body in three chunks, correctly framed (Transfer-Encoding: chunked, a last chunk, no Content-Length)',
  params: CHUNKED_PARAMS,
  handle(ctx, { mode }) {
    // No Content-Length: node:http frames the writes as chunks itself, and ends with the 0 chunk.
    ctx.res.writeHead(200, [['Content-Type', 'application/json'], ...ctx.headers].flat());
    if (ctx.req.method === 'HEAD') {
      ctx.res.end();
      return;
    }
    for (const part of chunkedParts(mode)) ctx.res.write(part);
    ctx.res.end();
  },
});
