import { JWT_DEFECTS, JWT_PARAMS, JWT_REALM, bearerToken, chaosToken, decodeJwt } from '../../../../shared/content/auth/index.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

/** Every check a validator owes the token, none of which this host applies. */
const SKIPPED = ['kid', 'alg', 'signature', 'exp', 'nbf', 'iss', 'aud'];
const NO_STORE: [string, string][] = [['Cache-Control', 'no-store']];

export default defineChaosEndpoint({
  id: 'jwt',
  path: '/jwt',
  category: 'auth',
  transports: HTTP1_AND_H2,
  summary: 'Without Authorization: a JWT a validator must refuse (`mode`); with `Authorization: Bearer <any decodable JWT>`: 200 with the claims it "accepted", nothing checked',
  params: JWT_PARAMS,
  headers: ['WWW-Authenticate', 'X-Chaos-Jwt-Mode', 'X-Chaos-Jwt-Accepted'],
  handle(ctx, { mode }) {
    const authorization = ctx.req.headers.get('authorization');
    if (authorization === undefined) {
      const { token, header, claims } = chaosToken(mode, ctx.config);
      const body = { endpoint: '/jwt', mode, token, header, claims, defect: JWT_DEFECTS[mode], use: 'send it back as Authorization: Bearer <token>' };
      sendComplete(ctx, 200, 'application/json', jsonBody(body), { 'Jwt-Mode': mode }, NO_STORE);
      return;
    }
    const presented = bearerToken(authorization);
    const decoded = presented === undefined ? undefined : decodeJwt(presented);
    if (decoded === undefined) {
      // Not even a JWT: the one thing this host refuses.
      const body = { endpoint: '/jwt', mode, accepted: false, error: 'invalid_token', note: 'send Authorization: Bearer <a JWT>; any decodable one is accepted' };
      const challenge: [string, string][] = [['WWW-Authenticate', `Bearer realm="${JWT_REALM}", error="invalid_token"`]];
      sendComplete(ctx, 401, 'application/json', jsonBody(body), { 'Jwt-Mode': mode, 'Jwt-Accepted': false }, [...challenge, ...NO_STORE]);
      return;
    }
    const body = { endpoint: '/jwt', mode, accepted: true, header: decoded.header, claims: decoded.claims, skipped_checks: SKIPPED };
    sendComplete(ctx, 200, 'application/json', jsonBody(body), { 'Jwt-Mode': mode, 'Jwt-Accepted': true }, NO_STORE);
  },
});
