import {
  RESPONSES_EXAMPLE, RESPONSES_MODE_PARAM, RESPONSES_PATH, echoResponse, eventText, responseEvents, responseObject,
  parseResponsesRequest,
} from '../../../../shared/content/agent/index.js';
import { defineControlEndpoint, type HttpContext } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { readOpenAiRequest } from './llm-chat-completions.js';

export default defineControlEndpoint({
  id: 'llm-responses',
  path: RESPONSES_PATH,
  methods: ['POST'],
  category: 'agent',
  summary: 'Twin of the chaos Responses API: an OpenAI Responses echo, streamed (response.created … response.completed) or not, with a true status and usage',
  params: { mode: RESPONSES_MODE_PARAM },
  headers: ['Cache-Control'],
  docs: {
    example: RESPONSES_EXAMPLE,
  },
  handle(ctx) {
    return answer(ctx);
  },
});

async function answer(ctx: HttpContext): Promise<void> {
  const read = await readOpenAiRequest(ctx, parseResponsesRequest);
  if (read === undefined) return;
  const response = echoResponse(read.request, read.body);
  if (!read.request.stream) {
    ctx.send(200, 'application/json', jsonBody(responseObject(response, true)));
    return;
  }
  ctx.res.writeHead(200, [...ctx.headers, ['Content-Type', 'text/event-stream; charset=utf-8'], ['Cache-Control', 'no-cache']].flat());
  for (const event of responseEvents(response)) ctx.res.write(eventText(event));
  ctx.res.end();
}
