// /semantic-drift with ai=true: the prompt that asks a language model for a
// fresh drift, the reading of its answer (checked by the same rules as the
// fixed drift, drift.ts), and the fallback to the fixed drift when there is
// no model, no budget or no valid answer.
import { publishAi } from '../../shared/pipeline/observe.js';
import type { Config } from '../../shared/config/config.js';
import type { SemanticSchema } from '../../shared/content/discovery.js';
import { jsonBody } from '../../shared/primitives/json.js';
import { askModel, type ChatMessage } from './ai.js';
import { checkDrift, checkShape, deadPrefix, driftBodies, driftDocument } from './drift.js';
import type { ChaosContext } from './endpoint.js';

type Json = Record<string, unknown>;

/**
 * Reads a model's answer: one JSON object (a surrounding code fence is
 * tolerated) that passes both checks. Never throws: anything unexpected while
 * checking is a refusal.
 */
export function parseDriftAnswer(schema: SemanticSchema, content: string, prefix: string): Json | undefined {
  const fenced = /^\s*```[a-z]*\s*\n([\s\S]*?)\n?```\s*$/i.exec(content);
  try {
    const doc: unknown = JSON.parse(fenced ? (fenced[1] as string) : content);
    if (checkShape(schema, doc) !== undefined || checkDrift(doc, prefix) !== undefined) return undefined;
    return doc as Json;
  } catch {
    return undefined;
  }
}

const SPEC_NAMES: Readonly<Record<SemanticSchema, string>> = {
  'openid-configuration': 'OpenID Connect Discovery 1.0 provider metadata',
  'oauth-authorization-server': 'RFC 8414 OAuth 2.0 authorization server metadata',
  webfinger: 'RFC 7033 WebFinger JRD',
  jwks: 'RFC 7517 JSON Web Key Set',
  'host-meta': 'RFC 6415 host-meta (JSON form)',
  'agent-card': 'A2A agent card',
};

/** The chat messages asking for a fresh drift; the deterministic drift is the example. */
export function driftPrompt(schema: SemanticSchema, config: Config): ChatMessage[] {
  const prefix = deadPrefix(config, schema);
  const example = JSON.stringify(driftDocument(schema, prefix), null, 2);
  return [
    {
      role: 'system',
      content: 'You write JSON documents for a public chaos-testing service. Answer with exactly one JSON object and nothing else: no prose, no code fences.',
    },
    {
      role: 'user',
      content: [
        `Write a fresh variant of this ${SPEC_NAMES[schema]} document.`,
        'Rules:',
        '- Keep every field of the example, with the same name and the same JSON type.',
        `- Every URL must start with ${prefix}/ followed by path segments you invent (letters, digits, '-', '_' and '.').`,
        '- Every boolean must be false. Every array whose name ends in _supported, and defaultInputModes, defaultOutputModes, key_ops and skills, must be empty.',
        '- Every other string is plain text: no links, host names, e-mail addresses or schemes, and never "true", "yes", "1" or "enabled".',
        '- Keep each "rel" value as it is; change names, descriptions, identifiers and URL paths so the document differs from the example.',
        'Example:',
        example,
      ].join('\n'),
    },
  ];
}

// --- The AI path (ai=true), shared by /semantic-drift and /.well-known/chaos --

export type FallbackReason = 'ai-disabled' | 'budget-exhausted' | 'invalid-json' | 'ai-error' | 'timeout';
export type Generated = { readonly body: Buffer } | { readonly reason: FallbackReason };

const DAY_MS = 24 * 60 * 60 * 1000;

/** A model-written drift, the reason there is none, or undefined when the client left. */
export async function generateDrift(ctx: ChaosContext, schema: SemanticSchema): Promise<Generated | undefined> {
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

/**
 * The ai=true answer: a model-written drift, or the fixed one with the reason
 * it fell back; nothing when the client left meanwhile. `send` writes either.
 */
export async function serveGeneratedDrift(
  ctx: ChaosContext,
  schema: SemanticSchema,
  send: (body: Buffer, aiHeaders: Readonly<Record<string, string>>) => void,
): Promise<void> {
  // Whatever goes wrong on the way to a model-written body is a fallback, never a 5xx.
  const outcome = await generateDrift(ctx, schema).catch((): Generated => ({ reason: 'ai-error' }));
  // The client left while the model was writing: nothing may be written now.
  if (outcome === undefined || ctx.wire.closed) return;
  if ('body' in outcome) {
    publishAi('ai', 'none');
    send(outcome.body, { 'Ai-Source': 'ai' });
  } else {
    publishAi('fallback', outcome.reason);
    send(driftBodies(ctx.config)[schema], { 'Ai-Source': 'fallback', 'Ai-Fallback-Reason': outcome.reason });
  }
}
