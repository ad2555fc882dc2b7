import { controlDocuments, CORS_ANY } from '../../../../shared/content/discovery.js';
import { defineControlEndpoint } from '../../../../shared/http-service.js';

// Named by jwks_uri of this host's OpenID and RFC 8414 documents. It exists
// only on the control host: the chaos documents name dead JWKS URLs.
export default defineControlEndpoint({
  id: 'jwks',
  path: '/.well-known/jwks.json',
  category: 'auth',
  // Linked from the discovery documents; no chaos endpoint lies about it.
  counterpart: null,
  summary: 'The JWK Set named by this host\'s jwks_uri: one RSA signing key (RS256) whose kid is its RFC 7638 thumbprint',
  params: {},
  handle(ctx) {
    ctx.send(200, 'application/jwk-set+json', controlDocuments(ctx.config).schemas.jwks, undefined, CORS_ANY);
  },
});
