import {
  MAX_LLM_BODY, MESSAGES_EXAMPLE, MESSAGES_MODE_PARAM, MESSAGES_PATH, anthropicError, echoMessage, eventText, messageEvents, messageObject,
  parseMessagesRequest, type EchoMessage, type MessagesMode, type MessagesRequest, type StreamEvent,
} from '../../../../shared/content/agent/index.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { rngFromSeed, type Rng } from '../../../../shared/primitives/seed.js';
import { chaosHead, defineChaosEndpoint, sendComplete, sendRealError, type ChaosContext } from '../../endpoint.js';
import { streamEvents, streamCut } from './llm-wire.js';
import { NO_H2, noH2 } from '../../http2/declarations.js';

/** What the 429 and the 529 promise: a wait the next call disproves (every call gets the same refusal). */
export const MESSAGES_RATE_LIMITED_RETRY_AFTER = '0';
export const MESSAGES_OVERLOADED_RETRY_AFTER = '1';
/** An event type no Anthropic SDK knows. */
export const MESSAGES_UNKNOWN_EVENT = 'chaos_unknown_event';

export default defineChaosEndpoint({
  id: 'llm-messages',
  path: MESSAGES_PATH,
  methods: ['POST'],
  category: 'agent',
  transports: noH2(NO_H2.body),
  summary: 'An Anthropic-compatible Messages API that lies: a stream cut mid-event, malformed JSON in a delta, truncated tool input, a false stop_reason, false usage, 429/529 with a lying retry-after, an unknown event type, message_stop twice',
  params: { mode: MESSAGES_MODE_PARAM },
  headers: ['Retry-After', 'anthropic-ratelimit-requests-reset', 'Transfer-Encoding', 'Cache-Control', 'X-Chaos-Llm-Mode'],
  wire: {
    capture: { body: { max: MAX_LLM_BODY } },
  },
  docs: {
    example: MESSAGES_EXAMPLE,
  },
  handle(ctx, { mode }) {
    const body = ctx.req.body ?? Buffer.alloc(0);
    if (ctx.req.bodyTruncated) {
      sendRealError(ctx, 413, { type: 'error', error: { type: 'request_too_large', message: `The request body is larger than ${MAX_LLM_BODY} bytes.` } });
      return;
    }
    const parsed = parseMessagesRequest(body);
    if (!parsed.ok) {
      sendRealError(ctx, 400, { type: 'error', error: { type: 'invalid_request_error', message: parsed.message } });
      return;
    }
    // Every choice below is drawn from the mode and the request: the same call gets the same bytes.
    lie(ctx, mode, parsed.request, echoMessage(parsed.request, body), rngFromSeed(`messages:${mode}:${body.toString('latin1')}`));
  },
});

function lie(ctx: ChaosContext, mode: MessagesMode, request: MessagesRequest, honest: EchoMessage, rng: Rng): void {
  const extra = { 'Llm-Mode': mode };
  switch (mode) {
    case 'rate-limited': {
      const reset = new Date(Date.now() + 20_000).toISOString();
      // retry-after says now; the reset header and the message say 20 s; every retry is refused anyway.
      sendComplete(ctx, 429, 'application/json', anthropicError('rate_limit_error', 'Number of requests has exceeded your rate limit. Please try again in 20 seconds.'), extra, [
        ['Retry-After', MESSAGES_RATE_LIMITED_RETRY_AFTER], ['anthropic-ratelimit-requests-reset', reset],
      ]);
      return;
    }
    case 'overloaded': {
      const payload = anthropicError('overloaded_error', 'Overloaded');
      const headers = chaosHead(ctx, 'application/json', payload.length, extra);
      headers.push(['Retry-After', MESSAGES_OVERLOADED_RETRY_AFTER]);
      ctx.wire.head(529, headers, 'Site Overloaded');
      ctx.wire.write(payload);
      ctx.wire.end();
      return;
    }
    case 'stream-cut': {
      // Always a stream: the events up to a drawn one, half of it, then a close with no last chunk.
      const events = messageEvents(honest).map(eventText);
      const cut = rng.intBetween(1, events.length - 1);
      streamCut(ctx, extra, events, cut);
      return;
    }
    case 'malformed-delta': {
      // One drawn delta's data loses its closing brace; the stream otherwise ends properly.
      const events = messageEvents(honest);
      const deltas = events.flatMap((e, i) => (e.event === 'content_block_delta' ? [i] : []));
      const broken = deltas[rng.intBetween(0, deltas.length - 1)] as number;
      const texts = events.map((e, i) => (i === broken ? eventText(e).replace(/}\n\n$/, '\n\n') : eventText(e)));
      streamEvents(ctx, extra, texts);
      return;
    }
    case 'truncated-tool-args': {
      // Always a stream: a tool_use whose input_json_delta pieces join into a strict prefix of the JSON.
      const name = request.tool ?? 'echo';
      const full = JSON.stringify({ text: `Echo: ${request.lastUserText}`.slice(0, 2000) });
      const prefix = full.slice(0, rng.intBetween(1, full.length - 2));
      const m: EchoMessage = { ...honest, text: prefix, toolUse: { id: `toolu_${honest.id.slice(4)}`, name }, stopReason: 'tool_use' };
      streamEvents(ctx, extra, messageEvents(m).map(eventText));
      return;
    }
    case 'stop-reason-lie':
      // A complete answer that says it was cut (max_tokens); a tool call that says it ended its turn.
      answer(ctx, request, { ...honest, stopReason: honest.toolUse ? 'end_turn' : 'max_tokens' }, extra);
      return;
    case 'usage-lie': {
      const usage = { input_tokens: 0, output_tokens: rng.intBetween(100_000, 999_999) };
      answer(ctx, request, { ...honest, usage }, extra);
      return;
    }
    case 'unknown-event': {
      const events = messageEvents(honest);
      const unknown: StreamEvent = { event: MESSAGES_UNKNOWN_EVENT, data: { type: MESSAGES_UNKNOWN_EVENT, note: 'an event type no SDK knows' } };
      events.splice(rng.intBetween(1, events.length - 1), 0, unknown);
      streamEvents(ctx, extra, events.map(eventText));
      return;
    }
    case 'duplicate-final-event': {
      const events = messageEvents(honest).map(eventText);
      streamEvents(ctx, extra, [...events, events.at(-1) as string]);
      return;
    }
  }
}

/** A well-framed answer carrying the lie: a Message, or its stream. */
function answer(ctx: ChaosContext, request: MessagesRequest, m: EchoMessage, extra: Readonly<Record<string, string>>): void {
  if (!request.stream) {
    sendComplete(ctx, 200, 'application/json', jsonBody(messageObject(m)), extra);
    return;
  }
  streamEvents(ctx, extra, messageEvents(m).map(eventText));
}



