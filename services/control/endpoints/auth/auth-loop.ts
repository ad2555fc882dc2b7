import { AUTH_LOOP_REALM, basicMatches } from '../../../../shared/content/auth/index.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { CONTROL_PASSWORD, CONTROL_USER } from './auth-required.js';

const CHALLENGE = `Basic realm="${AUTH_LOOP_REALM}", charset="UTF-8"`;

export default defineControlEndpoint({
  id: 'auth-loop',
  path: '/auth-loop',
  category: 'auth',
  summary: `Twin of /auth-loop: one fixed realm; 401 without credentials, 200 with Basic ${CONTROL_USER}:${CONTROL_PASSWORD}`,
  params: {},
  headers: ['WWW-Authenticate'],
  handle(ctx) {
    const header = ctx.req.headers.authorization;
    if (basicMatches(header, CONTROL_USER, CONTROL_PASSWORD)) {
      ctx.send(200, 'application/json', jsonBody({ endpoint: '/auth-loop', realm: AUTH_LOOP_REALM, authenticated: true }));
      return;
    }
    const body = { endpoint: '/auth-loop', realm: AUTH_LOOP_REALM, authenticated: false, note: header === undefined ? 'credentials required' : 'invalid credentials' };
    ctx.send(401, 'application/json', jsonBody(body), undefined, [['WWW-Authenticate', CHALLENGE], ['Cache-Control', 'no-store']]);
  },
});
