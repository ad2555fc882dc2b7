import { CACHE_COHERENT_BODY, CACHE_MODES, COHERENT_CACHE_CONTROL } from '../../../../shared/content/headers.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { oneOf } from '../../../../shared/primitives/params.js';

export default defineControlEndpoint({
  id: 'cache-coherent',
  path: '/cache-coherent',
  category: 'headers',
  summary: 'Twin of /cache-confused: exactly one sensible Cache-Control, public, max-age=300',
  params: {
    mode: oneOf(CACHE_MODES, { default: 'all', description: 'accepted for parity; the header is always the same' }),
  },
  headers: ['Cache-Control'],
  counterpart: '/cache-confused',
  handle(ctx) {
    ctx.send(200, 'application/json', CACHE_COHERENT_BODY, undefined, [['Cache-Control', COHERENT_CACHE_CONTROL]]);
  },
});
