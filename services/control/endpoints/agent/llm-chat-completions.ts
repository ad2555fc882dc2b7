import {
  LLM_EXAMPLE, LLM_MODE_PARAM, LLM_PATH, MAX_LLM_BODY, SSE_DONE, completionChunks, completionObject, echoCompletion, openAiError,
  parseChatRequest, sseEvent,
} from '../../../../shared/content/agent/index.js';
import { defineControlEndpoint, type HttpContext } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { readBody } from './json-rpc.js';

export default defineControlEndpoint({
  id: 'llm-chat-completions',
  path: LLM_PATH,
  methods: ['POST'],
  category: 'agent',
  summary: 'Twin of the chaos chat completion: an OpenAI-compatible echo, streamed (SSE ending in data: [DONE]) or not, with true finish_reason and usage',
  params: { mode: LLM_MODE_PARAM },
  headers: ['Cache-Control'],
  docs: {
    example: LLM_EXAMPLE,
  },
  handle(ctx) {
    return answer(ctx);
  },
});

async function answer(ctx: HttpContext): Promise<void> {
  const read = await readOpenAiRequest(ctx, parseChatRequest);
  if (read === undefined) return;
  const { request, body } = read;
  const completion = echoCompletion(request, body);
  if (!request.stream) {
    ctx.send(200, 'application/json', jsonBody(completionObject(completion)));
    return;
  }
  // node:http frames the stream as chunks; the events are written as they would be generated.
  ctx.res.writeHead(200, [...ctx.headers, ['Content-Type', 'text/event-stream; charset=utf-8'], ['Cache-Control', 'no-cache']].flat());
  for (const chunk of completionChunks(completion, request.includeUsage)) ctx.res.write(sseEvent(chunk));
  ctx.res.end(SSE_DONE);
}

/**
 * The OpenAI shapes' request: the body, bounded (413 past MAX_LLM_BODY), parsed (400 naming the parameter);
 * undefined once that error is sent.
 */
export async function readOpenAiRequest<R>(
  ctx: HttpContext,
  parse: (body: Buffer) => { readonly ok: true; readonly request: R } | { readonly ok: false; readonly message: string; readonly param: string | null },
): Promise<{ readonly request: R; readonly body: Buffer } | undefined> {
  const body = await readBody(ctx.req, MAX_LLM_BODY);
  if (body === undefined) {
    ctx.send(413, 'application/json', openAiError(`The request body is larger than ${MAX_LLM_BODY} bytes.`, 'invalid_request_error'));
    return undefined;
  }
  const parsed = parse(body);
  if (!parsed.ok) {
    ctx.send(400, 'application/json', openAiError(parsed.message, 'invalid_request_error', parsed.param));
    return undefined;
  }
  return { request: parsed.request, body };
}
