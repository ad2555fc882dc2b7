import { controlDocuments, CORS_ANY } from '../../../../shared/content/discovery.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';

export default defineControlEndpoint({
  id: 'openid-configuration',
  path: '/.well-known/openid-configuration',
  category: 'auth',
  summary: 'Twin of the chaos document: OpenID Provider metadata whose issuer is this host; every endpoint it names answers here',
  params: {},
  handle(ctx) {
    ctx.send(200, 'application/json', controlDocuments(ctx.config).schemas['openid-configuration'], undefined, CORS_ANY);
  },
});
