import type { HeaderList } from '../../../../shared/primitives/headers.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { AUTH_PARAMS, authBody, basicChallenge, bearerChallenge, digestChallenge, realmFor, type AuthScheme } from '../../../../shared/content/auth/index.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

function challenge(scheme: AuthScheme, realm: string): HeaderList {
  switch (scheme) {
    case 'basic':
      return [['WWW-Authenticate', basicChallenge(realm)]];
    case 'bearer':
      return [['WWW-Authenticate', bearerChallenge(realm)]];
    case 'digest':
      return [['WWW-Authenticate', digestChallenge(realm, 'SHA-256')]];
    case 'none':
      // The lie: a 401 that says nothing about how to authenticate.
      return [];
  }
}

export default defineChaosEndpoint({
  id: 'auth-required',
  path: '/auth-required',
  category: 'auth',
  transports: HTTP1_AND_H2,
  summary: '401 with a `scheme` challenge without Authorization; any Authorization value at all gets 200',
  params: AUTH_PARAMS,
  headers: ['WWW-Authenticate', 'X-Chaos-Auth-Scheme', 'X-Chaos-Auth-Accepted'],
  docs: {
    modeParam: 'scheme',
    random: 'seeded',
  },
  handle(ctx, { scheme, realm }) {
    const applied = realmFor(ctx.config, realm);
    // Present at all, even empty, is enough: the value is never looked at.
    if (ctx.req.headers.has('authorization')) {
      const body = authBody(scheme, applied, true, 'any Authorization value is accepted; it was not checked');
      sendComplete(ctx, 200, 'application/json', jsonBody(body), { 'Auth-Scheme': scheme, 'Auth-Accepted': true });
      return;
    }
    const body = authBody(scheme, applied, false, 'send any Authorization header to pass');
    sendComplete(ctx, 401, 'application/json', jsonBody(body), { 'Auth-Scheme': scheme, 'Auth-Accepted': false }, challenge(scheme, applied));
  },
});
