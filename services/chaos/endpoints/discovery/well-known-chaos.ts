import { controlDocuments, CORS_ANY, SCHEMA_CONTENT_TYPES, SEMANTIC_SCHEMAS, WELL_KNOWN_CHAOS_MODES, type SemanticSchema } from '../../../../shared/content/discovery.js';
import { bool, oneOf } from '../../../../shared/primitives/params.js';
import { serveGeneratedDrift } from '../../drift-ai.js';
import { brokenShape, driftBodies } from '../../drift.js';
import { defineChaosEndpoint, sendComplete, type ChaosContext } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'well-known-chaos',
  path: '/.well-known/chaos',
  category: 'discovery',
  transports: HTTP1_AND_H2,
  summary: 'A discovery document of the chosen schema that is wrong in meaning (semantic: the /semantic-drift document), or lacks its required fields, or has them in the wrong JSON types',
  params: {
    schema: oneOf(SEMANTIC_SCHEMAS, { default: 'openid-configuration', description: 'discovery schema the document follows' }),
    mode: oneOf(WELL_KNOWN_CHAOS_MODES, { default: 'semantic', description: 'semantic (dead URLs, false capabilities), missing-fields or wrong-types' }),
    ai: bool({ default: false, description: 'mode=semantic only: a language model writes the drift, as /semantic-drift?ai=true does' }),
  },
  headers: [
    'Access-Control-Allow-Origin', 'X-Chaos-Discovery-Mode', 'X-Chaos-Drift-Schema', 'X-Chaos-Broken-Fields', 'X-Chaos-Ai-Source', 'X-Chaos-Ai-Fallback-Reason',
  ],
  handle(ctx, { schema, mode, ai }) {
    const extra = { 'Discovery-Mode': mode, 'Drift-Schema': schema };
    if (mode !== 'semantic') {
      const broken = brokenShape(controlDocuments(ctx.config).schemas[schema], schema, mode);
      send(ctx, schema, broken.body, { ...extra, 'Broken-Fields': broken.fields.join(', ') });
      return undefined;
    }
    if (!ai) {
      send(ctx, schema, driftBodies(ctx.config)[schema], extra);
      return undefined;
    }
    // The AI path of /semantic-drift: the same daily budget, timeout and fallback.
    return serveGeneratedDrift(ctx, schema, (body, aiHeaders) => send(ctx, schema, body, { ...extra, ...aiHeaders }));
  },
});

function send(ctx: ChaosContext, schema: SemanticSchema, body: Buffer, extra: Readonly<Record<string, string>>): void {
  sendComplete(ctx, 200, SCHEMA_CONTENT_TYPES[schema], body, extra, CORS_ANY);
}
