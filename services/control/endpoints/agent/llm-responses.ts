import {
  MAX_LLM_BODY, RESPONSES_EXAMPLE, RESPONSES_MODE_PARAM, RESPONSES_PATH, echoResponse, eventText, openAiError, responseEvents, responseObject,
  parseResponsesRequest,
} from '../../../../shared/content/agent/index.js';
import { defineControlEndpoint, type HttpContext } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { readBody } from './json-rpc.js';

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
  const body = await readBody(ctx.req, MAX_LLM_BODY);
  if (body === undefined) {
    ctx.send(413, 'application/json', openAiError(`The request body is larger than ${MAX_LLM_BODY} bytes.`, 'invalid_request_error'));
    return;
  }
  const parsed = parseResponsesRequest(body);
  if (!parsed.ok) {
    ctx.send(400, 'application/json', openAiError(parsed.message, 'invalid_request_error', parsed.param));
    return;
  }
  const response = echoResponse(parsed.request, body);
  if (!parsed.request.stream) {
    ctx.send(200, 'application/json', jsonBody(responseObject(response, true)));
    return;
  }
  ctx.res.writeHead(200, [...ctx.headers, ['Content-Type', 'text/event-stream; charset=utf-8'], ['Cache-Control', 'no-cache']].flat());
  for (const event of responseEvents(response)) ctx.res.write(eventText(event));
  ctx.res.end();
}
