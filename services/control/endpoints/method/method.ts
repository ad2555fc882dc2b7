import { ALLOW_CONTROL, METHOD_MODES, SIX_METHODS } from '../../../../shared/content/method.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { oneOf } from '../../../../shared/primitives/params.js';

const GET_BODY = jsonBody({
  endpoint: '/method',
  method: 'GET',
  handled: ['GET', 'HEAD'],
  other_methods: `405 with Allow: ${ALLOW_CONTROL}`,
  options: `204 with Allow: ${ALLOW_CONTROL}`,
});

export default defineControlEndpoint({
  id: 'method',
  path: '/method',
  // Declared so the handler, not the router, answers them (the router's 405 would list these as allowed).
  methods: [...SIX_METHODS],
  // Methods outside the six (TRACE, …) get the router's 405: it tells the same truth.
  allow: ['GET', 'HEAD', 'OPTIONS'],
  category: 'method',
  summary: 'Twin of /method: GET answered; 405 with a true Allow (GET, HEAD, OPTIONS) for other methods; OPTIONS 204 with the same Allow',
  params: {
    mode: oneOf(METHOD_MODES, { default: 'lying-allow', description: 'accepted for parity; behaviour is always truthful' }),
  },
  headers: ['Allow'],
  handle(ctx) {
    const method = ctx.req.method ?? 'GET';
    if (method === 'GET' || method === 'HEAD') {
      ctx.send(200, 'application/json', GET_BODY);
      return;
    }
    if (method === 'OPTIONS') {
      // 204: no body and no Content-Length (RFC 9110 §8.6).
      ctx.res.writeHead(204, [...ctx.headers, ['Allow', ALLOW_CONTROL]].flat());
      ctx.res.end();
      return;
    }
    ctx.send(405, 'application/json', jsonBody({ endpoint: '/method', method, status: 405, allow: ALLOW_CONTROL }), undefined, [
      ['Allow', ALLOW_CONTROL],
    ]);
  },
});
