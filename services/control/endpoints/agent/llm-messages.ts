import {
  MAX_LLM_BODY, MESSAGES_EXAMPLE, MESSAGES_MODE_PARAM, MESSAGES_PATH, anthropicError, echoMessage, eventText, messageEvents, messageObject,
  parseMessagesRequest,
} from '../../../../shared/content/agent/index.js';
import { defineControlEndpoint, type HttpContext } from '../../../../shared/http/http-service.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { readBody } from './json-rpc.js';

export default defineControlEndpoint({
  id: 'llm-messages',
  path: MESSAGES_PATH,
  methods: ['POST'],
  category: 'agent',
  summary: 'Twin of the chaos Messages API: an Anthropic-compatible echo, streamed (message_start … message_stop) or not, with a true stop_reason and usage',
  params: { mode: MESSAGES_MODE_PARAM },
  headers: ['Cache-Control'],
  docs: {
    example: MESSAGES_EXAMPLE,
  },
  handle(ctx) {
    return answer(ctx);
  },
});

async function answer(ctx: HttpContext): Promise<void> {
  const body = await readBody(ctx.req, MAX_LLM_BODY);
  if (body === undefined) {
    ctx.send(413, 'application/json', anthropicError('request_too_large', `The request body is larger than ${MAX_LLM_BODY} bytes.`));
    return;
  }
  const parsed = parseMessagesRequest(body);
  if (!parsed.ok) {
    ctx.send(400, 'application/json', anthropicError('invalid_request_error', parsed.message));
    return;
  }
  const message = echoMessage(parsed.request, body);
  if (!parsed.request.stream) {
    ctx.send(200, 'application/json', jsonBody(messageObject(message)));
    return;
  }
  ctx.res.writeHead(200, [...ctx.headers, ['Content-Type', 'text/event-stream; charset=utf-8'], ['Cache-Control', 'no-cache']].flat());
  for (const event of messageEvents(message)) ctx.res.write(eventText(event));
  ctx.res.end();
}
