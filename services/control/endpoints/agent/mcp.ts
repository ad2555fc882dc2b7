import { LINKED_PATHS, MCP_PROTOCOL_VERSIONS, mcpServerName } from '../../../../shared/content/discovery.js';
import { callEchoTool, ECHO_TOOL, MCP_EXAMPLE, MCP_MODES } from '../../../../shared/content/agent/index.js';
import { oneOf } from '../../../../shared/primitives/params.js';
import { defineControlEndpoint, type HttpContext } from '../../../../shared/http/http-service.js';
import { readRpcRequest, rpcError, rpcResult, RPC_INVALID_REQUEST, RPC_METHOD_NOT_FOUND } from './json-rpc.js';

const LATEST = MCP_PROTOCOL_VERSIONS[MCP_PROTOCOL_VERSIONS.length - 1] as string;
const SUPPORTED: ReadonlySet<string> = new Set(MCP_PROTOCOL_VERSIONS);

// The remote the server card names: streamable HTTP, stateless (no session id),
// JSON answers only. GET (no SSE stream is offered) and DELETE get 405.
export default defineControlEndpoint({
  id: 'mcp',
  path: LINKED_PATHS.mcp,
  methods: ['POST'],
  category: 'agent',
  summary: 'The MCP server the server card names: initialize (version negotiation), ping, and one echo tool (tools/list, tools/call)',
  params: {
    mode: oneOf(MCP_MODES, { default: 'version-mismatch', description: 'accepted for parity with the chaos /mcp; always correct' }),
  },
  docs: {
    example: MCP_EXAMPLE,
  },
  handle(ctx) {
    return answer(ctx);
  },
});

async function answer(ctx: HttpContext): Promise<void> {
  const request = await readRpcRequest(ctx, 400);
  if (!request) return;
  const { id, method, params } = request;
  // Notifications (no id) such as notifications/initialized are accepted without a body.
  if (id === undefined) {
    ctx.send(202, 'application/json', '');
    return;
  }
  switch (method) {
    case 'initialize': {
      const requested = (params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      // Negotiation: echo a version we speak, else offer our latest.
      const protocolVersion = typeof requested === 'string' && SUPPORTED.has(requested) ? requested : LATEST;
      ctx.send(
        200,
        'application/json',
        rpcResult(id, {
          protocolVersion,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: mcpServerName(ctx.config.urls.control), version: '1.0.0' },
          instructions: 'This server answers initialize, ping and the echo tool: no resources or prompts.',
        }),
      );
      return;
    }
    case 'ping':
      ctx.send(200, 'application/json', rpcResult(id, {}));
      return;
    case 'tools/list':
      ctx.send(200, 'application/json', rpcResult(id, { tools: [ECHO_TOOL] }));
      return;
    case 'tools/call': {
      const outcome = callEchoTool(params);
      ctx.send(200, 'application/json', 'result' in outcome ? rpcResult(id, outcome.result) : rpcError(id, outcome.error.code, outcome.error.message));
      return;
    }
    default:
      ctx.send(200, 'application/json', rpcError(id, RPC_METHOD_NOT_FOUND, `Method not found: ${method}`));
  }
}
