import { authorizationServerMetadata, CONFLICT_GROUP, CORS_ANY, documentBody, perConfig } from '../../../../shared/content/discovery.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

// A valid RFC 8414 document for the identity host, served on the chaos host:
// its issuer differs from the OpenID document's (the hub) and from this host.
const body = perConfig((config) => documentBody(authorizationServerMetadata(config.urls.identity)));

export default defineChaosEndpoint({
  id: 'oauth-authorization-server',
  path: '/.well-known/oauth-authorization-server',
  category: 'discovery',
  transports: HTTP1_AND_H2,
  summary: 'RFC 8414 metadata whose issuer is the identity URL, contradicting the OpenID document (hub) and the serving host',
  params: {},
  headers: ['X-Chaos-Conflict-Group', 'X-Chaos-Claims-Issuer'],
  docs: {
    random: 'seeded',
  },
  handle(ctx) {
    const extra = { 'Conflict-Group': CONFLICT_GROUP, 'Claims-Issuer': ctx.config.urls.identity };
    sendComplete(ctx, 200, 'application/json', body(ctx.config), extra, CORS_ANY);
  },
});
