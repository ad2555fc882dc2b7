import {
  JWT_CHECKS, JWT_DEFECTS, JWT_PARAMS, JWT_REALM, bearerToken, chaosToken, controlToken, decodeJwt, jwtRefusal,
} from '../../../../shared/content/auth/index.js';
import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';

const NO_STORE: HeaderList = [['Cache-Control', 'no-store']];

/** RFC 6750 §3: a challenge with an error only when a token was presented. */
function challenge(error?: string, description?: string): HeaderList {
  const params = [`realm="${JWT_REALM}"`];
  if (error !== undefined) params.push(`error="${error}"`);
  if (description !== undefined) params.push(`error_description="${description.replace(/["\\]/g, '')}"`);
  return [['WWW-Authenticate', `Bearer ${params.join(', ')}`], ...NO_STORE];
}

export default defineControlEndpoint({
  id: 'jwt',
  path: '/jwt',
  category: 'auth',
  summary: 'Twin of /jwt: without Authorization, a valid RS256 token it issues (5 min) and the checks it applies; a Bearer token passing them all gets 200, any other 401 with a Bearer invalid_token challenge naming the failed check',
  params: JWT_PARAMS,
  headers: ['WWW-Authenticate'],
  handle(ctx, { mode }) {
    const nowS = Math.floor(Date.now() / 1000);
    const authorization = ctx.req.headers.authorization;
    if (authorization === undefined) {
      const { token, header, claims } = controlToken(ctx.config, nowS);
      const refused = chaosToken(mode, ctx.config);
      const body = {
        endpoint: '/jwt', mode, token, header, claims, checks: JWT_CHECKS,
        refuses: { token: refused.token, defect: JWT_DEFECTS[mode], reason: jwtRefusal(refused.token, ctx.config, nowS) },
        use: 'send a token back as Authorization: Bearer <token>',
      };
      ctx.send(200, 'application/json', jsonBody(body), undefined, NO_STORE);
      return;
    }
    const token = bearerToken(authorization);
    if (token === undefined) {
      // Another scheme is no Bearer credential at all: the plain challenge.
      ctx.send(401, 'application/json', jsonBody({ endpoint: '/jwt', accepted: false, note: 'Bearer token required', checks: JWT_CHECKS }), undefined, challenge());
      return;
    }
    const reason = jwtRefusal(token, ctx.config, nowS);
    if (reason !== undefined) {
      const body = { endpoint: '/jwt', accepted: false, error: 'invalid_token', reason, checks: JWT_CHECKS };
      ctx.send(401, 'application/json', jsonBody(body), undefined, challenge('invalid_token', reason));
      return;
    }
    const claims = (decodeJwt(token) as { claims: Record<string, unknown> }).claims;
    ctx.send(200, 'application/json', jsonBody({ endpoint: '/jwt', accepted: true, claims, checks: JWT_CHECKS }), undefined, NO_STORE);
  },
});
