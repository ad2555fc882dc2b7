import { CORS_MODES, corsBody } from '../../../../shared/content/cors.js';
import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { oneOf } from '../../../../shared/primitives/params.js';

export default defineControlEndpoint({
  id: 'cors',
  path: '/cors',
  category: 'headers',
  summary: 'Twin of /cors: the asking origin reflected with credentials allowed, and Vary: Origin on every answer',
  params: {
    mode: oneOf(CORS_MODES, { default: 'wildcard-with-credentials', description: 'accepted for parity; CORS is always correct' }),
  },
  headers: ['Access-Control-Allow-Origin', 'Access-Control-Allow-Credentials', 'Vary'],
  handle(ctx, { mode }) {
    const origin = ctx.req.headers.origin;
    // The answer depends on Origin whether or not one was sent, so Vary is unconditional (Fetch standard, CORS protocol and HTTP caches).
    const lines: HeaderList = [['Vary', 'Origin']];
    if (origin !== undefined) lines.push(['Access-Control-Allow-Origin', origin], ['Access-Control-Allow-Credentials', 'true']);
    ctx.send(200, 'application/json', corsBody('/cors', mode, origin, ctx.req.method ?? 'GET'), undefined, lines);
  },
});
