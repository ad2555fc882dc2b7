import { JWKS_PARAMS, controlDocuments, CORS_ANY } from '../../../../shared/content/discovery.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

// Named by jwks_uri of this host's OpenID and RFC 8414 documents; its key
// verifies the tokens of this host's /jwt. The chaos host's twin lies about it
// (the chaos discovery documents name dead JWKS URLs, not that twin).
export default defineControlEndpoint({
  id: 'jwks',
  path: '/.well-known/jwks.json',
  category: 'auth',
  summary: 'The JWK Set named by this host\'s jwks_uri: one RSA signing key (RS256, use "sig") whose kid is its RFC 7638 thumbprint and signs /jwt\'s tokens (mode accepted for parity)',
  params: JWKS_PARAMS,
  handle(ctx) {
    ctx.send(200, 'application/jwk-set+json', controlDocuments(ctx.config).schemas.jwks, undefined, CORS_ANY);
  },
});
