import { basicMatches, CHALLENGE_PARAMS, CHALLENGE_REALM, VALID_CHALLENGE } from '../../../../shared/content/auth/index.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { CONTROL_PASSWORD, CONTROL_USER } from './auth-required.js';

export default defineControlEndpoint({
  id: 'auth-challenge',
  path: '/auth-challenge',
  category: 'auth',
  summary: `Twin of /auth-challenge: one well-formed challenge (${VALID_CHALLENGE}); Basic ${CONTROL_USER}:${CONTROL_PASSWORD} gets 200, anything else 401 (mode accepted for parity)`,
  params: CHALLENGE_PARAMS,
  headers: ['WWW-Authenticate'],
  handle(ctx, { mode }) {
    if (basicMatches(ctx.req.headers.authorization, CONTROL_USER, CONTROL_PASSWORD)) {
      ctx.send(200, 'application/json', jsonBody({ endpoint: '/auth-challenge', mode, authenticated: true, realm: CHALLENGE_REALM }));
      return;
    }
    const body = { endpoint: '/auth-challenge', mode, authenticated: false, challenges: [VALID_CHALLENGE] };
    ctx.send(401, 'application/json', jsonBody(body), undefined, [['WWW-Authenticate', VALID_CHALLENGE]]);
  },
});
