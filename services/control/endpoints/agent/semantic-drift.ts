import { controlDocuments, CORS_ANY, SCHEMA_CONTENT_TYPES, SEMANTIC_SCHEMAS } from '../../../../shared/content/discovery.js';
import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { bool, oneOf } from '../../../../shared/primitives/params.js';

export default defineControlEndpoint({
  id: 'semantic-drift',
  path: '/semantic-drift',
  category: 'agent',
  summary: 'Twin of /semantic-drift: the consistent document of the chosen schema; one issuer (this host) and every link answers here',
  params: {
    schema: oneOf(SEMANTIC_SCHEMAS, { default: 'openid-configuration', description: 'discovery schema the document follows' }),
    ai: bool({ default: false, description: 'accepted for parity; the control host never calls a model' }),
  },
  docs: {
    modeParam: 'schema',
  },
  handle(ctx, { schema }) {
    ctx.send(200, SCHEMA_CONTENT_TYPES[schema], controlDocuments(ctx.config).schemas[schema], undefined, CORS_ANY);
  },
});
