import {
  GEMINI_EXAMPLE, GEMINI_PARAMS, GEMINI_PATH, MAX_LLM_BODY, contentChunks, contentObject, dataLine, echoContent, googleError, parseGeminiRequest,
} from '../../../../shared/content/agent/index.js';
import { defineControlEndpoint, type HttpContext } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { readBody } from './json-rpc.js';

export default defineControlEndpoint({
  id: 'llm-gemini',
  path: GEMINI_PATH,
  methods: ['POST'],
  category: 'agent',
  summary: 'Twin of the chaos Gemini API: a generateContent echo, or streamGenerateContent chunks (alt=sse), with a true finishReason and usage',
  params: GEMINI_PARAMS,
  headers: ['Cache-Control'],
  docs: {
    example: GEMINI_EXAMPLE,
  },
  handle(ctx, { call }) {
    return answer(ctx, call);
  },
});

async function answer(ctx: HttpContext, call: string): Promise<void> {
  const body = await readBody(ctx.req, MAX_LLM_BODY);
  if (body === undefined) {
    ctx.send(413, 'application/json', googleError(413, 'INVALID_ARGUMENT', `The request body is larger than ${MAX_LLM_BODY} bytes.`));
    return;
  }
  const parsed = parseGeminiRequest(call, body);
  if (!parsed.ok) {
    ctx.send(parsed.status, 'application/json', googleError(parsed.status, parsed.status === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT', parsed.message));
    return;
  }
  const content = echoContent(parsed.request, body);
  if (!parsed.request.stream) {
    ctx.send(200, 'application/json', jsonBody(contentObject(content)));
    return;
  }
  ctx.res.writeHead(200, [...ctx.headers, ['Content-Type', 'text/event-stream'], ['Cache-Control', 'no-cache']].flat());
  for (const chunk of contentChunks(content)) ctx.res.write(dataLine(chunk));
  ctx.res.end();
}
