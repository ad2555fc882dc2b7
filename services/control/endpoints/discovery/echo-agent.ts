import { LINKED_PATHS } from '../../../../shared/content/discovery.js';
import { defineControlEndpoint, type HttpContext } from '../../../../shared/http/http-service.js';
import {
  readRpcRequest,
  rpcError,
  rpcResult,
  RPC_INVALID_PARAMS,
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  type RpcId,
} from '../agent/json-rpc.js';

/** A2A ContentTypeNotSupportedError: the message carried no part the agent accepts. */
const A2A_CONTENT_TYPE_NOT_SUPPORTED = -32005;

// The agent the agent card names: A2A 0.3 over JSON-RPC, message/send only.
// It keeps no state; each answer is a message echoing the text parts.
export default defineControlEndpoint({
  id: 'echo-agent',
  path: LINKED_PATHS.echo,
  methods: ['POST'],
  category: 'agent',
  // Linked from the discovery documents; no chaos endpoint lies about it.
  counterpart: null,
  summary: 'The A2A agent the agent card names: JSON-RPC message/send answers a message with the same text parts',
  params: {},
  docs: {
    example: {
      body: {
        type: 'application/json',
        text: '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m1","parts":[{"kind":"text","text":"Hello"}]}}}',
      },
    },
  },
  handle(ctx) {
    return answer(ctx);
  },
});

async function answer(ctx: HttpContext): Promise<void> {
  const request = await readRpcRequest(ctx, 200);
  if (!request) return;
  const { id, method, params } = request;
  const replyId: RpcId = id ?? null;
  if (id === undefined) {
    ctx.send(200, 'application/json', rpcError(null, RPC_INVALID_REQUEST, 'Invalid Request: A2A requests carry an id'));
    return;
  }
  if (method !== 'message/send') {
    ctx.send(200, 'application/json', rpcError(replyId, RPC_METHOD_NOT_FOUND, `Method not found: ${method} (this agent answers message/send only)`));
    return;
  }
  const message = (params as { message?: unknown } | undefined)?.message as Record<string, unknown> | undefined;
  if (
    typeof message !== 'object' ||
    message === null ||
    message.role !== 'user' ||
    typeof message.messageId !== 'string' ||
    !Array.isArray(message.parts)
  ) {
    ctx.send(200, 'application/json', rpcError(replyId, RPC_INVALID_PARAMS, 'Invalid params: params.message needs role "user", a messageId and parts'));
    return;
  }
  const texts = (message.parts as unknown[]).filter(
    (p): p is { kind: 'text'; text: string } =>
      typeof p === 'object' && p !== null && (p as { kind?: unknown }).kind === 'text' && typeof (p as { text?: unknown }).text === 'string',
  );
  if (texts.length === 0) {
    ctx.send(200, 'application/json', rpcError(replyId, A2A_CONTENT_TYPE_NOT_SUPPORTED, 'Incompatible content types: the echo agent accepts text parts only'));
    return;
  }
  const reply = {
    kind: 'message',
    role: 'agent',
    messageId: `echo-${message.messageId}`,
    parts: texts.map((p) => ({ kind: 'text', text: p.text })),
    ...(typeof message.contextId === 'string' ? { contextId: message.contextId } : {}),
  };
  ctx.send(200, 'application/json', rpcResult(replyId, reply));
}
