import { SCHEMA_CONTENT_TYPES, SEMANTIC_SCHEMAS, type SemanticSchema } from '../../../../shared/content/discovery.js';
import { bool, oneOf } from '../../../../shared/primitives/params.js';
import { serveGeneratedDrift } from '../../drift-ai.js';
import { driftBodies } from '../../drift.js';
import { defineChaosEndpoint, sendComplete, type ChaosContext } from '../../endpoint.js';
import { HTTP1_AND_H2 } from '../../http2/declarations.js';

export default defineChaosEndpoint({
  id: 'semantic-drift',
  path: '/semantic-drift',
  category: 'agent',
  transports: HTTP1_AND_H2,
  summary: 'A discovery document of the chosen schema, right in shape, with every URL dead and every capability false',
  params: {
    schema: oneOf(SEMANTIC_SCHEMAS, { default: 'openid-configuration', description: 'discovery schema the document follows' }),
    ai: bool({ default: false, description: 'a language model writes a fresh drift per call (non-deterministic)' }),
  },
  headers: ['X-Chaos-Drift', 'X-Chaos-Drift-Schema', 'X-Chaos-Ai-Source', 'X-Chaos-Ai-Fallback-Reason'],
  docs: {
    modeParam: 'schema',
    // Deterministic with the defaults (ai=false), which is what /random uses.
    random: 'seeded',
  },
  handle(ctx, { schema, ai }) {
    if (!ai) {
      send(ctx, schema, driftBodies(ctx.config)[schema], {});
      return undefined;
    }
    return serveGenerated(ctx, schema);
  },
});

function send(ctx: ChaosContext, schema: SemanticSchema, body: Buffer, aiHeaders: Readonly<Record<string, string>>): void {
  sendComplete(ctx, 200, SCHEMA_CONTENT_TYPES[schema], body, { Drift: 'semantic', 'Drift-Schema': schema, ...aiHeaders });
}

function serveGenerated(ctx: ChaosContext, schema: SemanticSchema): Promise<void> {
  return serveGeneratedDrift(ctx, schema, (body, aiHeaders) => send(ctx, schema, body, aiHeaders));
}
