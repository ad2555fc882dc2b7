import { controlDocuments, CORS_ANY, SCHEMA_CONTENT_TYPES, SEMANTIC_SCHEMAS, WELL_KNOWN_CHAOS_MODES } from '../../../../shared/content/discovery.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { bool, oneOf } from '../../../../shared/primitives/params.js';

export default defineControlEndpoint({
  id: 'well-known-chaos',
  path: '/.well-known/chaos',
  category: 'agent',
  summary: 'Twin of /.well-known/chaos: the well-formed, consistent document of the chosen schema (the bytes of /semantic-drift here)',
  params: {
    schema: oneOf(SEMANTIC_SCHEMAS, { default: 'openid-configuration', description: 'discovery schema the document follows' }),
    mode: oneOf(WELL_KNOWN_CHAOS_MODES, { default: 'semantic', description: 'accepted for parity; the document is always well-formed' }),
    ai: bool({ default: false, description: 'accepted for parity; the control host never calls a model' }),
  },
  headers: ['Access-Control-Allow-Origin'],
  handle(ctx, { schema }) {
    ctx.send(200, SCHEMA_CONTENT_TYPES[schema], controlDocuments(ctx.config).schemas[schema], undefined, CORS_ANY);
  },
});
