import { CONFLICT_GROUP, CORS_ANY, documentBody, openidConfiguration, perConfig } from '../../../../shared/content/discovery.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

// A valid OpenID Provider document for the hub, served on the chaos host: its
// issuer matches neither the host it came from nor this host's RFC 8414 document.
const body = perConfig((config) => documentBody(openidConfiguration(config.urls.hub)));

export default defineChaosEndpoint({
  id: 'openid-configuration',
  path: '/.well-known/openid-configuration',
  category: 'discovery',
  transports: HTTP1_AND_H2,
  summary: 'OpenID Provider metadata whose issuer is the hub URL, contradicting the host it is served from and its OAuth metadata',
  params: {},
  headers: ['X-Chaos-Conflict-Group', 'X-Chaos-Claims-Issuer'],
  docs: {
    random: 'seeded',
  },
  handle(ctx) {
    const extra = { 'Conflict-Group': CONFLICT_GROUP, 'Claims-Issuer': ctx.config.urls.hub };
    sendComplete(ctx, 200, 'application/json', body(ctx.config), extra, CORS_ANY);
  },
});
