import {
  GEMINI_EXAMPLE, GEMINI_PARAMS, GEMINI_PATH, MAX_LLM_BODY, contentChunks, contentObject, dataLine, echoContent, googleError, parseGeminiRequest,
  type EchoContent, type GeminiRequest, type MessagesMode,
} from '../../../../shared/content/agent/index.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { splitQuery } from '../../../../shared/primitives/params.js';
import { rngFromSeed, type Rng } from '../../../../shared/primitives/seed.js';
import { defineChaosEndpoint, sendComplete, sendRealError, type ChaosContext } from '../../endpoint.js';
import { streamEvents, streamCut } from './llm-wire.js';
import { NO_H2, noH2 } from '../../http2/declarations.js';

/** An SSE event type no Gemini SDK knows (Gemini's streams carry data lines only). */
export const GEMINI_UNKNOWN_EVENT = 'chaos_unknown';

export default defineChaosEndpoint({
  id: 'llm-gemini',
  path: GEMINI_PATH,
  methods: ['POST'],
  category: 'agent',
  transports: noH2(NO_H2.body),
  summary: 'A Gemini generateContent / streamGenerateContent that lies: a stream cut mid-chunk, malformed JSON in a chunk, a function call with its argument cut short, a false finishReason, false usage, 429/503 with a lying Retry-After, an unknown event type, the final chunk twice',
  params: GEMINI_PARAMS,
  headers: ['Retry-After', 'Transfer-Encoding', 'Cache-Control', 'X-Chaos-Llm-Mode'],
  wire: {
    capture: { body: { max: MAX_LLM_BODY } },
  },
  docs: {
    example: GEMINI_EXAMPLE,
  },
  handle(ctx, { call, mode: fromQuery }) {
    const header = ctx.req.headers.get('x-chaos-mode');
    const picked = header === undefined || splitQuery(ctx.req.query).has('mode') ? { ok: true as const, value: fromQuery } : GEMINI_PARAMS.mode.parse(header.trim());
    if (!picked.ok) {
      sendRealError(ctx, 400, { error: { code: 400, message: 'X-Chaos-Mode names no mode', status: 'INVALID_ARGUMENT' } });
      return;
    }
    const body = ctx.req.body ?? Buffer.alloc(0);
    if (ctx.req.bodyTruncated) {
      sendRealError(ctx, 413, { error: { code: 413, message: `The request body is larger than ${MAX_LLM_BODY} bytes.`, status: 'INVALID_ARGUMENT' } });
      return;
    }
    const parsed = parseGeminiRequest(call, body);
    if (!parsed.ok) {
      sendRealError(ctx, parsed.status, { error: { code: parsed.status, message: parsed.message, status: parsed.status === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT' } });
      return;
    }
    const mode = picked.value;
    lie(ctx, mode, parsed.request, echoContent(parsed.request, body), rngFromSeed(`gemini:${mode}:${body.toString('latin1')}`));
  },
});

function lie(ctx: ChaosContext, mode: MessagesMode, request: GeminiRequest, honest: EchoContent, rng: Rng): void {
  const extra = { 'Llm-Mode': mode };
  switch (mode) {
    case 'rate-limited': {
      // Retry-After says now; the RetryInfo detail and the message say 20 s.
      const details = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '20s' }];
      sendComplete(ctx, 429, 'application/json', googleError(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted. Please retry in 20s.', details), extra, [['Retry-After', '0']]);
      return;
    }
    case 'overloaded':
      // Gemini's overload is 503 UNAVAILABLE; Retry-After says 1 s and every retry is 503 again.
      sendComplete(ctx, 503, 'application/json', googleError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.'), extra, [['Retry-After', '1']]);
      return;
    case 'stream-cut': {
      const lines = contentChunks(honest).map(dataLine);
      const cut = rng.intBetween(0, lines.length - 1);
      streamCut(ctx, extra, lines, cut);
      return;
    }
    case 'malformed-delta': {
      const lines = contentChunks(honest).map(dataLine);
      const broken = rng.intBetween(0, lines.length - 1);
      streamEvents(ctx, extra, lines.map((line, i) => (i === broken ? line.replace(/}\r\n\r\n$/, '\r\n\r\n') : line)));
      return;
    }
    case 'truncated-tool-args': {
      // A function call (the first declared, or echo) whose argument is cut short and whose args are incomplete JSON text.
      const text = honest.text.slice(0, rng.intBetween(1, Math.max(1, honest.text.length - 1)));
      answer(ctx, request, { ...honest, tool: request.tool ?? 'echo', text }, extra);
      return;
    }
    case 'stop-reason-lie':
      answer(ctx, request, { ...honest, finishReason: 'MAX_TOKENS' }, extra);
      return;
    case 'usage-lie': {
      const usage = { promptTokenCount: 0, candidatesTokenCount: rng.intBetween(100_000, 999_999), totalTokenCount: rng.intBetween(1, 9) };
      answer(ctx, request, { ...honest, usage }, extra);
      return;
    }
    case 'unknown-event': {
      const lines = contentChunks(honest).map(dataLine);
      lines.splice(rng.intBetween(0, lines.length - 1), 0, `event: ${GEMINI_UNKNOWN_EVENT}\r\ndata: {"note":"an event type no SDK knows"}\r\n\r\n`);
      streamEvents(ctx, extra, lines);
      return;
    }
    case 'duplicate-final-event': {
      const lines = contentChunks(honest).map(dataLine);
      streamEvents(ctx, extra, [...lines, lines.at(-1) as string]);
      return;
    }
  }
}

/** A well-framed answer carrying the lie, streamed when the method streams. */
function answer(ctx: ChaosContext, request: GeminiRequest, c: EchoContent, extra: Readonly<Record<string, string>>): void {
  if (!request.stream) {
    sendComplete(ctx, 200, 'application/json', jsonBody(contentObject(c)), extra);
    return;
  }
  streamEvents(ctx, extra, contentChunks(c).map(dataLine));
}



