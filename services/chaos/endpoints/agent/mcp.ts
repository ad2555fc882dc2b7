import { LINKED_PATHS, MCP_PROTOCOL_VERSIONS } from '../../../../shared/content/discovery.js';
import {
  parseRpc, RPC_INVALID_REQUEST, RPC_METHOD_NOT_FOUND, type RpcId, callEchoTool, ECHO_TOOL, LYING_ECHO_TOOL, MCP_EXAMPLE, MCP_JSON_MODES, MCP_MODES,
  MCP_STALE_VERSION, mcpExchange, type McpJsonMode, type McpMode, type McpSessionMode,
} from '../../../../shared/content/agent/index.js';
import { jsonBody } from '../../../../shared/primitives/json.js';
import { int, oneOf } from '../../../../shared/primitives/params.js';
import { chaosHead, defineChaosEndpoint, sendComplete, sendRealError, type ChaosContext } from '../../endpoint.js';
import { liesFor } from './mcp-lies.js';
import { renderPlan } from './mcp-stream.js';
import { NO_H2, noH2 } from '../../http2/declarations.js';

const MAX_MCP_BODY = 64 * 1024;
const JSON_MODES: ReadonlySet<string> = new Set(MCP_JSON_MODES);
const LATEST = MCP_PROTOCOL_VERSIONS[MCP_PROTOCOL_VERSIONS.length - 1] as string;
const SUPPORTED: ReadonlySet<string> = new Set(MCP_PROTOCOL_VERSIONS);

type Envelope = { readonly result: unknown } | { readonly error: { readonly code: number; readonly message: string } };

export default defineChaosEndpoint({
  id: 'mcp',
  path: LINKED_PATHS.mcp,
  methods: ['POST', 'GET', 'DELETE'],
  category: 'agent',
  transports: noH2(NO_H2.body),
  summary: 'An MCP server that lies: in one JSON answer (a version nobody asked for, ids not echoed, result and error, a lying tool schema) or in its Streamable HTTP sessions and SSE streams (expired, changing or missing sessions, cut or unresumable streams, floods, cursor loops, structuredContent against its schema, unknown progress tokens, unasked elicitation)',
  params: {
    mode: oneOf(MCP_MODES, { default: 'version-mismatch', description: 'which JSON-RPC, MCP or transport rule the server breaks' }),
    after: int({ min: 1, max: 100, default: 3, description: 'session-expired: requests carrying the session before it answers 404' }),
  },
  headers: ['X-Chaos-Mcp-Mode', 'Mcp-Session-Id'],
  holding: {
    // The session modes' GET stream is held until MAX_RESPONSE_MS.
    longestMs: (config) => config.maxResponseMs,
    when: ({ mode }) => !JSON_MODES.has(mode),
  },
  wire: {
    capture: { body: { max: MAX_MCP_BODY } },
  },
  docs: {
    example: MCP_EXAMPLE,
  },
  handle(ctx, { mode, after }) {
    if (!JSON_MODES.has(mode)) return session(ctx, mode as McpSessionMode, after);
    if (ctx.req.method !== 'POST') {
      // Today's modes answer one POST each: no stream to open, no session to end.
      sendRealError(ctx, 405, { error: 'method_not_allowed', reason: `mode=${mode} answers POST only; the session modes serve GET and DELETE` }, [['Allow', 'POST']]);
      return;
    }
    if (ctx.req.bodyTruncated) {
      sendRealError(ctx, 413, { jsonrpc: '2.0', id: null, error: { code: RPC_INVALID_REQUEST, message: 'Invalid Request: body larger than 64 KiB' } });
      return;
    }
    const parsed = parseRpc(ctx.req.body ?? Buffer.alloc(0));
    if (!parsed.ok) {
      sendRealError(ctx, 400, { jsonrpc: '2.0', id: null, error: { code: parsed.code, message: parsed.message } });
      return;
    }
    const { id, method, params } = parsed.request;
    // Notifications are accepted without a body, as the control server does.
    if (id === undefined) {
      const headers = chaosHead(ctx, undefined, 0, { 'Mcp-Mode': mode });
      ctx.wire.head(202, headers);
      ctx.wire.end();
      return;
    }
    send(ctx, 200, lie(mode as McpJsonMode, id, honest(mode as McpJsonMode, method, params)), mode);
    return undefined;
  },
});

/** The session modes: the honest Streamable HTTP flow, bent by the mode (mcp-lies.ts), written by mcp-stream.ts. */
async function session(ctx: ChaosContext, mode: McpSessionMode, after: number): Promise<void> {
  const request = {
    method: ctx.req.method,
    header: (name: string) => ctx.req.headers.get(name),
    body: ctx.req.bodyTruncated ? undefined : (ctx.req.body ?? Buffer.alloc(0)),
    clientAddress: ctx.clientAddress,
    serverName: 'chaos-mcp',
  };
  renderPlan(ctx, await mcpExchange(request, ctx.store, liesFor(mode, after, ctx.store)), mode);
}

/** What the control server would answer, except where the mode lies in the content itself. */
function honest(mode: McpJsonMode, method: string, params: unknown): Envelope {
  switch (method) {
    case 'initialize': {
      const requested = (params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      const negotiated = typeof requested === 'string' && SUPPORTED.has(requested) ? requested : LATEST;
      // version-mismatch: an older revision than any the client can have asked for, never the one it sent.
      const protocolVersion = mode === 'version-mismatch' ? (requested === MCP_STALE_VERSION ? '2024-10-07' : MCP_STALE_VERSION) : negotiated;
      return {
        result: {
          protocolVersion,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'chaos-mcp', version: '1.0.0' },
          instructions: 'A chaos MCP server: see X-Chaos-Mcp-Mode for its lie.',
        },
      };
    }
    case 'ping':
      return { result: {} };
    case 'tools/list':
      return { result: { tools: [mode === 'lying-tool-schema' ? LYING_ECHO_TOOL : ECHO_TOOL] } };
    case 'tools/call':
      return callEchoTool(params);
    default:
      return { error: { code: RPC_METHOD_NOT_FOUND, message: `Method not found: ${method}` } };
  }
}

/** The envelope lies that apply to every answer: another id, or result and error both. */
function lie(mode: McpJsonMode, id: RpcId, envelope: Envelope): string {
  if (mode === 'id-not-echoed') return rpcText(otherId(id), envelope);
  if (mode === 'result-and-error') {
    const result = 'result' in envelope ? envelope.result : {};
    const error = 'error' in envelope ? envelope.error : { code: -32603, message: 'Internal error' };
    return jsonBody({ jsonrpc: '2.0', id, result, error }).toString('utf8');
  }
  return rpcText(id, envelope);
}

/** An id the client did not send: the next number, or the string with a suffix; null becomes 0. */
function otherId(id: RpcId): RpcId {
  if (typeof id === 'number') return id + 1;
  if (typeof id === 'string') return `${id}-other`;
  return 0;
}

function rpcText(id: RpcId, envelope: Envelope): string {
  return jsonBody({ jsonrpc: '2.0', id, ...envelope }).toString('utf8');
}

function send(ctx: ChaosContext, status: number, text: string, mode: McpMode): void {
  sendComplete(ctx, status, 'application/json', Buffer.from(text), { 'Mcp-Mode': mode });
}
