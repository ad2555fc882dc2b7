import {
  MAX_LLM_BODY, RESPONSES_EXAMPLE, RESPONSES_MODE_PARAM, RESPONSES_PATH, echoResponse, eventText, parseResponsesRequest, responseEvents,
  responseObject, type EchoResponse, type MessagesMode, type ResponsesRequest, type StreamEvent,
} from '../../../../shared/content/agent/index.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { rngFromSeed, type Rng } from '../../../../shared/primitives/seed.js';
import { defineChaosEndpoint, sendComplete, sendRealError, type ChaosContext } from '../../endpoint.js';
import { streamEvents, streamCut } from './llm-wire.js';
import { sendOpenAiOverloaded, sendOpenAiRateLimited } from './llm-chat-completions.js';
import { NO_H2, noH2 } from '../../http2/declarations.js';

/** An event type no OpenAI SDK knows. */
export const RESPONSES_UNKNOWN_EVENT = 'response.chaos_unknown';

export default defineChaosEndpoint({
  id: 'llm-responses',
  path: RESPONSES_PATH,
  methods: ['POST'],
  category: 'agent',
  transports: noH2(NO_H2.body),
  summary: 'An OpenAI Responses API that lies: a stream cut mid-event, malformed JSON in a delta, truncated function-call arguments, an incomplete status for a complete answer, false usage, 429/529 with a lying Retry-After, an unknown event type, response.completed twice',
  params: { mode: RESPONSES_MODE_PARAM },
  headers: ['Retry-After', 'retry-after-ms', 'x-ratelimit-reset-requests', 'Transfer-Encoding', 'Cache-Control', 'X-Chaos-Llm-Mode'],
  wire: {
    capture: { body: { max: MAX_LLM_BODY } },
  },
  docs: {
    example: RESPONSES_EXAMPLE,
  },
  handle(ctx, { mode }) {
    const body = ctx.req.body ?? Buffer.alloc(0);
    if (ctx.req.bodyTruncated) {
      sendRealError(ctx, 413, { error: { message: `The request body is larger than ${MAX_LLM_BODY} bytes.`, type: 'invalid_request_error', param: null, code: null } });
      return;
    }
    const parsed = parseResponsesRequest(body);
    if (!parsed.ok) {
      sendRealError(ctx, 400, { error: { message: parsed.message, type: 'invalid_request_error', param: parsed.param, code: null } });
      return;
    }
    // Every choice below is drawn from the mode and the request: the same call gets the same bytes.
    lie(ctx, mode, parsed.request, echoResponse(parsed.request, body), rngFromSeed(`responses:${mode}:${body.toString('latin1')}`));
  },
});

function lie(ctx: ChaosContext, mode: MessagesMode, request: ResponsesRequest, honest: EchoResponse, rng: Rng): void {
  const extra = { 'Llm-Mode': mode };
  switch (mode) {
    case 'rate-limited':
      sendOpenAiRateLimited(ctx, extra);
      return;
    case 'overloaded':
      sendOpenAiOverloaded(ctx, extra);
      return;
    case 'stream-cut': {
      const events = responseEvents(honest).map(eventText);
      const cut = rng.intBetween(1, events.length - 1);
      streamCut(ctx, extra, events, cut);
      return;
    }
    case 'malformed-delta': {
      const events = responseEvents(honest);
      const deltas = events.flatMap((e, i) => (e.event.endsWith('.delta') ? [i] : []));
      const broken = deltas[rng.intBetween(0, deltas.length - 1)] as number;
      streamEvents(ctx, extra, events.map((e, i) => (i === broken ? eventText(e).replace(/}\n\n$/, '\n\n') : eventText(e))));
      return;
    }
    case 'truncated-tool-args': {
      // Always a stream: a function_call whose argument deltas join into a strict prefix of the JSON.
      const full = JSON.stringify({ text: `Echo: ${request.lastUserText}`.slice(0, 2000) });
      const r: EchoResponse = { ...honest, tool: request.tool ?? 'echo', itemId: `fc_${honest.itemId.split('_')[1] ?? ''}`, text: full.slice(0, rng.intBetween(1, full.length - 2)) };
      streamEvents(ctx, extra, responseEvents(r).map(eventText));
      return;
    }
    case 'stop-reason-lie':
      // The whole answer, reported as cut short by max_output_tokens.
      answer(ctx, request, { ...honest, incomplete: 'max_output_tokens' }, extra);
      return;
    case 'usage-lie': {
      const usage = { input_tokens: 0, output_tokens: rng.intBetween(100_000, 999_999), total_tokens: rng.intBetween(1, 9) };
      answer(ctx, request, { ...honest, usage }, extra);
      return;
    }
    case 'unknown-event': {
      const events = responseEvents(honest);
      const at = rng.intBetween(1, events.length - 1);
      const unknown: StreamEvent = { event: RESPONSES_UNKNOWN_EVENT, data: { type: RESPONSES_UNKNOWN_EVENT, sequence_number: at, note: 'an event type no SDK knows' } };
      events.splice(at, 0, unknown);
      // Numbered in order with the rest: the type is the only thing wrong.
      streamEvents(ctx, extra, events.map((e, i) => eventText({ event: e.event, data: { ...e.data, sequence_number: i } })));
      return;
    }
    case 'duplicate-final-event': {
      const events = responseEvents(honest).map(eventText);
      streamEvents(ctx, extra, [...events, events.at(-1) as string]);
      return;
    }
  }
}

function answer(ctx: ChaosContext, request: ResponsesRequest, r: EchoResponse, extra: Readonly<Record<string, string>>): void {
  if (!request.stream) {
    sendComplete(ctx, 200, 'application/json', jsonBody(responseObject(r, true)), extra);
    return;
  }
  streamEvents(ctx, extra, responseEvents(r).map(eventText));
}



