import { controlDocuments, CORS_ANY } from '../../../../shared/content/discovery.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { oneOf } from '../../../../shared/primitives/params.js';

export default defineControlEndpoint({
  id: 'oauth-protected-resource',
  path: '/.well-known/oauth-protected-resource',
  category: 'auth',
  summary: 'Twin of the chaos document: RFC 9728 metadata whose resource is this host and whose authorization server is this host',
  params: {
    mode: oneOf(['issuer-mismatch', 'resource-mismatch', 'dead-authorization-server'], {
      default: 'issuer-mismatch',
      description: 'accepted for parity; the control host serves the consistent document in every mode',
    }),
  },
  handle(ctx) {
    ctx.send(200, 'application/json', controlDocuments(ctx.config).protectedResource, undefined, CORS_ANY);
  },
});
