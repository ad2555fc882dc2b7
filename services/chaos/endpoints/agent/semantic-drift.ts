import { publishAi } from '../../../../shared/observe.js';
import { SCHEMA_CONTENT_TYPES, SEMANTIC_SCHEMAS, type SemanticSchema } from '../../../../shared/content/discovery.js';
import { jsonBody } from '../../../../shared/json.js';
import { bool, oneOf } from '../../../../shared/params.js';
import { askModel } from '../../ai.js';
import { deadPrefix, driftBodies, driftPrompt, parseDriftAnswer } from '../../drift.js';
import { defineChaosEndpoint, sendComplete, type ChaosContext } from '../../endpoint.js';

type FallbackReason = 'ai-disabled' | 'budget-exhausted' | 'invalid-json' | 'ai-error' | 'timeout';
type Generated = { readonly body: Buffer } | { readonly reason: FallbackReason };

const DAY_MS = 24 * 60 * 60 * 1000;

export default defineChaosEndpoint({
  id: 'semantic-drift',
  path: '/semantic-drift',
  category: 'agent',
  modeParam: 'schema',
  summary: 'A discovery document of the chosen schema, right in shape, with every URL dead and every capability false',
  params: {
    schema: oneOf(SEMANTIC_SCHEMAS, { default: 'openid-configuration', description: 'discovery schema the document follows' }),
    ai: bool({ default: false, description: 'a language model writes a fresh drift per call (non-deterministic)' }),
  },
  headers: ['X-Chaos-Drift', 'X-Chaos-Drift-Schema', 'X-Chaos-Ai-Source', 'X-Chaos-Ai-Fallback-Reason'],
  // Deterministic with the defaults (ai=false), which is what /random uses.
  random: 'seeded',
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

async function serveGenerated(ctx: ChaosContext, schema: SemanticSchema): Promise<void> {
  // Whatever goes wrong on the way to a model-written body is a fallback, never a 5xx.
  const outcome = await generate(ctx, schema).catch((): Generated => ({ reason: 'ai-error' }));
  // The client left while the model was writing: nothing may be written now.
  if (outcome === undefined || ctx.wire.closed) return;
  if ('body' in outcome) {
    publishAi('ai', 'none');
    send(ctx, schema, outcome.body, { 'Ai-Source': 'ai' });
  } else {
    publishAi('fallback', outcome.reason);
    send(ctx, schema, driftBodies(ctx.config)[schema], { 'Ai-Source': 'fallback', 'Ai-Fallback-Reason': outcome.reason });
  }
}

/** A model-written drift, the reason there is none, or undefined when the client left. */
async function generate(ctx: ChaosContext, schema: SemanticSchema): Promise<Generated | undefined> {
  const ai = ctx.config.ai;
  if (ai.baseUrl === undefined || ai.model === undefined) return { reason: 'ai-disabled' };
  let granted: boolean;
  try {
    // One shared budget per UTC day, across replicas when the store is Redis.
    granted = await ctx.store.consumeBudget(`ai-budget:${new Date().toISOString().slice(0, 10)}`, ai.dailyBudget, DAY_MS);
  } catch {
    return { reason: 'ai-error' };
  }
  if (!granted) return { reason: 'budget-exhausted' };
  if (ctx.wire.closed) return undefined;
  const clientGone = new AbortController();
  ctx.wire.onClose(() => clientGone.abort());
  const answer = await askModel(ai, driftPrompt(schema, ctx.config), clientGone.signal);
  switch (answer.kind) {
    case 'aborted':
      return undefined;
    case 'failed':
      return { reason: answer.reason };
    case 'content': {
      // Checked and encoded here, so a document that cannot be serialised is refused like any other.
      try {
        const document = parseDriftAnswer(schema, answer.content, deadPrefix(ctx.config, schema));
        return document === undefined ? { reason: 'invalid-json' } : { body: jsonBody(document) };
      } catch {
        return { reason: 'invalid-json' };
      }
    }
  }
}
