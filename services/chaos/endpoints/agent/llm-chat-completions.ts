import {
  LLM_EXAMPLE, LLM_MODE_PARAM, LLM_MODES, LLM_PATH, MAX_LLM_BODY, SSE_DONE, completionChunks, completionObject, echoCompletion,
  openAiError, openAiErrorObject, parseChatRequest, sseEvent, type ChatRequest, type Completion, type LlmMode,
} from '../../../../shared/content/agent/index.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { splitQuery } from '../../../../shared/primitives/params.js';
import { rngFromSeed, type Rng } from '../../../../shared/primitives/seed.js';
import { chaosHead, defineChaosEndpoint, sendComplete, sendRealError, type ChaosContext } from '../../endpoint.js';
import { streamEvents, streamCut } from './llm-wire.js';
import { NO_H2, noH2 } from '../../http2/declarations.js';

/** What the 429 and the 529 promise: a wait that the next call disproves (every call gets the same refusal). */
export const RATE_LIMITED_RETRY_AFTER = '0';
export const OVERLOADED_RETRY_AFTER = '1';
export const OVERLOADED_RETRY_AFTER_MS = '3600000';

export default defineChaosEndpoint({
  id: 'llm-chat-completions',
  path: LLM_PATH,
  methods: ['POST'],
  category: 'agent',
  transports: noH2(NO_H2.body),
  summary: 'An OpenAI-compatible chat completion that lies: a stream cut mid-event, truncated tool-call JSON, 429/529 with a lying Retry-After, a false finish_reason, false usage',
  params: { mode: LLM_MODE_PARAM },
  headers: ['Retry-After', 'retry-after-ms', 'x-ratelimit-reset-requests', 'Transfer-Encoding', 'Cache-Control', 'X-Chaos-Llm-Mode'],
  wire: {
    capture: { body: { max: MAX_LLM_BODY } },
  },
  docs: {
    example: LLM_EXAMPLE,
  },
  handle(ctx, params) {
    const mode = modeOf(ctx, params.mode);
    if (mode === undefined) {
      sendRealError(ctx, 400, openAiErrorObject(`X-Chaos-Mode must be one of ${LLM_MODES.join(', ')}`, 'invalid_request_error', 'X-Chaos-Mode'));
      return;
    }
    const body = ctx.req.body ?? Buffer.alloc(0);
    if (ctx.req.bodyTruncated) {
      sendRealError(ctx, 413, openAiErrorObject(`The request body is larger than ${MAX_LLM_BODY} bytes.`, 'invalid_request_error'));
      return;
    }
    const parsed = parseChatRequest(body);
    if (!parsed.ok) {
      sendRealError(ctx, 400, openAiErrorObject(parsed.message, 'invalid_request_error', parsed.param));
      return;
    }
    // Every choice below is drawn from the mode and the request: the same call gets the same bytes.
    const rng = rngFromSeed(`llm:${mode}:${body.toString('latin1')}`);
    lie(ctx, mode, parsed.request, echoCompletion(parsed.request, body), rng);
  },
});

/** The query's mode when given, else X-Chaos-Mode's, else the default; undefined for a header naming no mode. */
function modeOf(ctx: ChaosContext, fromQuery: LlmMode): LlmMode | undefined {
  const header = ctx.req.headers.get('x-chaos-mode');
  if (header === undefined || splitQuery(ctx.req.query).has('mode')) return fromQuery;
  const outcome = LLM_MODE_PARAM.parse(header.trim());
  return outcome.ok ? outcome.value : undefined;
}

function lie(ctx: ChaosContext, mode: LlmMode, request: ChatRequest, honest: Completion, rng: Rng): void {
  const extra = { 'Llm-Mode': mode };
  switch (mode) {
    case 'rate-limited':
      sendOpenAiRateLimited(ctx, extra);
      return;
    case 'overloaded':
      sendOpenAiOverloaded(ctx, extra);
      return;
    case 'stream-cut': {
      // Always a stream, whatever `stream` asked: the events up to a drawn one, half of it, then a close with no last chunk.
      const events = completionChunks(honest, true).map(sseEvent);
      const cut = rng.intBetween(1, events.length - 1);
      streamCut(ctx, extra, events, cut);
      return;
    }
    case 'truncated-tool-args': {
      const name = request.tools[0]?.name ?? 'echo';
      const full = honest.toolCall?.function.arguments ?? JSON.stringify({ text: honest.content ?? '' });
      const cutAt = rng.intBetween(1, full.length - 2);
      const toolCall = { id: `call_${honest.id.slice(9, 25)}`, type: 'function' as const, function: { name, arguments: full.slice(0, cutAt) } };
      answer(ctx, request, { ...honest, content: null, toolCall, finishReason: 'tool_calls' }, extra);
      return;
    }
    case 'finish-reason-lie':
      // A complete answer that says it was cut (length); a tool call that says it is plain text (stop).
      answer(ctx, request, { ...honest, finishReason: honest.toolCall ? 'stop' : 'length' }, extra);
      return;
    case 'usage-lie': {
      // No prompt, a huge completion, and a total smaller than either.
      const usage = { prompt_tokens: 0, completion_tokens: rng.intBetween(100_000, 999_999), total_tokens: rng.intBetween(1, 9) };
      answer(ctx, { ...request, includeUsage: true }, { ...honest, usage }, extra);
      return;
    }
  }
}

/** A well-framed answer carrying the lie: a chat.completion, or an SSE stream ending in data: [DONE]. */
function answer(ctx: ChaosContext, request: ChatRequest, completion: Completion, extra: Readonly<Record<string, string>>): void {
  if (!request.stream) {
    sendComplete(ctx, 200, 'application/json', jsonBody(completionObject(completion)), extra);
    return;
  }
  streamEvents(ctx, extra, [...completionChunks(completion, request.includeUsage).map(sseEvent), SSE_DONE]);
}

/** The OpenAI shapes' 429: Retry-After says now; the body and the reset header say 20 s; every retry is refused anyway. */
export function sendOpenAiRateLimited(ctx: ChaosContext, extra: Readonly<Record<string, string>>): void {
  sendComplete(ctx, 429, 'application/json', openAiError('Rate limit reached for requests. Please try again in 20s.', 'requests', null, 'rate_limit_exceeded'), extra, [
    ['Retry-After', RATE_LIMITED_RETRY_AFTER], ['x-ratelimit-reset-requests', '20s'],
  ]);
}

/** The OpenAI shapes' 529: Retry-After says 1 s, retry-after-ms (which OpenAI's SDKs read first) an hour; every retry is 529 again. */
export function sendOpenAiOverloaded(ctx: ChaosContext, extra: Readonly<Record<string, string>>): void {
  const payload = openAiError('The server is overloaded. Please retry after 1 second.', 'overloaded_error', null, 'overloaded');
  const headers = chaosHead(ctx, 'application/json', payload.length, extra);
  headers.push(['Retry-After', OVERLOADED_RETRY_AFTER], ['retry-after-ms', OVERLOADED_RETRY_AFTER_MS]);
  ctx.wire.head(529, headers, 'Site Overloaded');
  ctx.wire.write(payload);
  ctx.wire.end();
}
