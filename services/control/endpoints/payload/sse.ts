import { SSE_PARAMS, SSE_VALID, fitSse } from '../../../../shared/content/payload/index.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

const BODY = Buffer.from(SSE_VALID, 'utf8');

export default defineControlEndpoint({
  id: 'sse',
  path: '/sse',
  category: 'payload',
  summary: 'Twin of /sse: a valid text/event-stream (retry: 3000, five events with increasing ids, each ended by a blank line), sent at once and ended cleanly',
  params: SSE_PARAMS,
  admission: {
    // Same reading of the URL as the chaos host: a longer ms is reported as lowered.
    adjust: (params, config) => fitSse(params, config.maxResponseMs),
  },
  handle(ctx) {
    ctx.send(200, 'text/event-stream; charset=utf-8', BODY, undefined, [['Cache-Control', 'no-cache']]);
  },
});
