import { SLOW_HEADERS_PARAMS, fitSlowHeaders, slowHeaderLines, slowHeadersBody } from '../../../../shared/content/latency.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'slow-headers',
  path: '/slow-headers',
  category: 'latency',
  summary: 'Twin of /slow-headers: the same `lines` X-Slow-Header-NNN lines and document, the whole head at once (head_ms is 0)',
  params: SLOW_HEADERS_PARAMS,
  admission: {
    adjust: (params, config) => fitSlowHeaders(params, config.maxResponseMs),
  },
  handle(ctx, { ms, lines }) {
    ctx.send(200, 'application/json', slowHeadersBody(ms, lines, 0), undefined, slowHeaderLines(lines));
  },
});
