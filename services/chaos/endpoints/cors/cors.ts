import { CORS_MODES, corsBody, otherOrigin, type CorsMode } from '../../../../shared/content/cors.js';
import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { oneOf } from '../../../../shared/primitives/params.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

/** The mode's Access-Control lines for a request from `origin` (undefined: no Origin was sent). */
function corsLines(mode: CorsMode, origin: string | undefined): HeaderList {
  switch (mode) {
    case 'wildcard-with-credentials':
      // The Fetch standard refuses `*` for a credentialed request, so `credentials: 'include'` fails.
      return [['Access-Control-Allow-Origin', '*'], ['Access-Control-Allow-Credentials', 'true']];
    case 'reflect-no-vary':
      // Any origin allowed, with credentials, and no Vary: Origin: a shared cache hands one origin's answer to another.
      return origin === undefined ? [] : [['Access-Control-Allow-Origin', origin], ['Access-Control-Allow-Credentials', 'true']];
    case 'null-origin':
      // `null` is what sandboxed iframes and file: pages send: allowing it allows every one of them.
      return [['Access-Control-Allow-Origin', 'null'], ['Access-Control-Allow-Credentials', 'true'], ['Vary', 'Origin']];
    case 'duplicate-allow-origin':
      // Two lines join into one list value, which matches no origin.
      return [['Access-Control-Allow-Origin', origin ?? '*'], ['Access-Control-Allow-Origin', otherOrigin(origin)], ['Vary', 'Origin']];
    case 'wrong-origin':
      return [['Access-Control-Allow-Origin', otherOrigin(origin)], ['Vary', 'Origin']];
  }
}

export default defineChaosEndpoint({
  id: 'cors',
  path: '/cors',
  category: 'cors',
  transports: HTTP1_AND_H2,
  summary: 'A cross-origin resource whose Access-Control-Allow-Origin is wrong: * with credentials, reflected without Vary, null, duplicated, or another origin',
  params: {
    mode: oneOf(CORS_MODES, { default: 'wildcard-with-credentials', description: 'which CORS mistake the response makes' }),
  },
  headers: ['Access-Control-Allow-Origin', 'Access-Control-Allow-Credentials', 'Vary', 'X-Chaos-Cors-Mode'],
  handle(ctx, { mode }) {
    const origin = ctx.req.headers.get('origin');
    sendComplete(ctx, 200, 'application/json', corsBody('/cors', mode, origin, ctx.req.method), { 'Cors-Mode': mode }, corsLines(mode, origin));
  },
});
