import {
  PREFLIGHT_ALLOW_HEADERS, PREFLIGHT_ALLOW_METHODS, PREFLIGHT_MAX_AGE, PREFLIGHT_METHODS, PREFLIGHT_MODES, corsBody,
} from '../../../../shared/content/cors.js';
import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { oneOf } from '../../../../shared/primitives/params.js';

const ALLOW = 'GET, HEAD, PUT, OPTIONS';

export default defineControlEndpoint({
  id: 'cors-preflight',
  path: '/cors-preflight',
  methods: [...PREFLIGHT_METHODS],
  category: 'headers',
  summary: `Twin of /cors-preflight: the preflight allows ${PREFLIGHT_ALLOW_METHODS} and ${PREFLIGHT_ALLOW_HEADERS} for ${PREFLIGHT_MAX_AGE} s, and the actual response allows the same origin`,
  params: {
    mode: oneOf(PREFLIGHT_MODES, { default: 'actual-refuses', description: 'accepted for parity; preflight and response always agree' }),
  },
  headers: ['Access-Control-Allow-Origin', 'Access-Control-Allow-Methods', 'Access-Control-Allow-Headers', 'Access-Control-Max-Age', 'Vary', 'Allow'],
  handle(ctx, { mode }) {
    const origin = ctx.req.headers.origin;
    if (ctx.req.method !== 'OPTIONS') {
      const lines: HeaderList = [['Vary', 'Origin']];
      if (origin !== undefined) lines.push(['Access-Control-Allow-Origin', origin]);
      ctx.send(200, 'application/json', corsBody('/cors-preflight', mode, origin, ctx.req.method ?? 'GET'), undefined, lines);
      return;
    }
    // A preflight is an OPTIONS with Origin and Access-Control-Request-Method; another OPTIONS gets a plain Allow.
    const lines: HeaderList = [['Allow', ALLOW]];
    if (origin !== undefined && ctx.req.headers['access-control-request-method'] !== undefined) {
      lines.push(
        ['Access-Control-Allow-Origin', origin],
        ['Access-Control-Allow-Methods', PREFLIGHT_ALLOW_METHODS],
        ['Access-Control-Allow-Headers', PREFLIGHT_ALLOW_HEADERS],
        ['Access-Control-Max-Age', PREFLIGHT_MAX_AGE],
      );
    }
    // A cached preflight must not answer another origin or another request's method and headers.
    lines.push(['Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers']);
    // 204: no body and no Content-Length (RFC 9110 §8.6).
    ctx.res.writeHead(204, [...ctx.headers, ...lines].flat());
    ctx.res.end();
  },
});
