import { controlDocuments, CORS_ANY } from '../../../../shared/content/discovery.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { oneOf } from '../../../../shared/primitives/params.js';

export default defineControlEndpoint({
  id: 'mcp-server-card',
  path: '/.well-known/mcp/server-card.json',
  category: 'agent',
  summary: 'Twin of the chaos card: MCP server card whose streamable-http remote is this host\'s /mcp, with the versions it speaks',
  params: {
    mode: oneOf(['missing-transport', 'version-mismatch', 'transport-404', 'invalid-schema'], {
      default: 'missing-transport',
      description: 'accepted for parity; the control host serves the consistent card in every mode',
    }),
  },
  handle(ctx) {
    ctx.send(200, 'application/json', controlDocuments(ctx.config).serverCard, undefined, CORS_ANY);
  },
});
