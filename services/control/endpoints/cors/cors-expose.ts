import { EXPOSE_LIST, EXPOSE_MODES, EXPOSED_HEADERS, corsBody } from '../../../../shared/content/cors.js';
import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { oneOf } from '../../../../shared/primitives/params.js';

export default defineControlEndpoint({
  id: 'cors-expose',
  path: '/cors-expose',
  category: 'headers',
  summary: `Twin of /cors-expose: Access-Control-Expose-Headers names exactly ${EXPOSE_LIST}, so a script reads them, credentials or not`,
  params: {
    mode: oneOf(EXPOSE_MODES, { default: 'omitted', description: 'accepted for parity; the expose list is always right' }),
  },
  headers: ['Access-Control-Allow-Origin', 'Access-Control-Allow-Credentials', 'Access-Control-Expose-Headers', 'Vary', ...EXPOSED_HEADERS.map(([name]) => name)],
  handle(ctx, { mode }) {
    const origin = ctx.req.headers.origin;
    const lines: HeaderList = [['Vary', 'Origin']];
    if (origin !== undefined) {
      // Names, not `*`: a credentialed request reads `*` as a header literally named "*".
      lines.push(['Access-Control-Allow-Origin', origin], ['Access-Control-Allow-Credentials', 'true'], ['Access-Control-Expose-Headers', EXPOSE_LIST]);
    }
    lines.push(...EXPOSED_HEADERS);
    ctx.send(200, 'application/json', corsBody('/cors-expose', mode, origin, ctx.req.method ?? 'GET'), undefined, lines);
  },
});
