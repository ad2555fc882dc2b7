import { controlDocuments, CORS_ANY } from '../../../../shared/content/discovery.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'oauth-authorization-server',
  path: '/.well-known/oauth-authorization-server',
  category: 'auth',
  summary: 'Twin of the chaos document: RFC 8414 metadata with the same issuer (this host) as the OpenID document',
  params: {},
  handle(ctx) {
    ctx.send(200, 'application/json', controlDocuments(ctx.config).schemas['oauth-authorization-server'], undefined, CORS_ANY);
  },
});
