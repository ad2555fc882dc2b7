// Twin content, agent family: the MCP server at /mcp. The one tool both hosts
// offer (echo), its honest schema and the schema the chaos host lies with,
// and the chaos modes. The control host answers with these truthfully.
import { RPC_INVALID_PARAMS } from './json-rpc.js';

/** Today's modes: one JSON answer per POST, no session (the first /mcp). */
export const MCP_JSON_MODES = ['version-mismatch', 'id-not-echoed', 'result-and-error', 'lying-tool-schema'] as const;
/** Modes of the Streamable HTTP transport: sessions, SSE streams, resumption (shared/content/agent/mcp-http.ts). */
export const MCP_SESSION_MODES = [
  'session-expired', 'session-not-issued', 'session-changes', 'protocol-version-header-lie', 'sse-cut', 'sse-no-resume', 'event-ids-backwards',
  'response-on-get-stream', 'notification-flood', 'pagination-cursor-loop', 'structured-content-mismatch', 'progress-unknown-token', 'elicitation-unasked',
] as const;
export const MCP_MODES = [...MCP_JSON_MODES, ...MCP_SESSION_MODES] as const;
export type McpMode = (typeof MCP_MODES)[number];
export type McpJsonMode = (typeof MCP_JSON_MODES)[number];
export type McpSessionMode = (typeof MCP_SESSION_MODES)[number];

/** The catalog's ready request on both hosts: initialize, where version-mismatch (the default) lies. */
export const MCP_EXAMPLE = {
  method: 'POST',
  body: {
    type: 'application/json',
    text: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}',
  },
} as const;

/** The version the chaos host's initialize answers, whatever was asked: one no client of 2025 revisions speaks. */
export const MCP_STALE_VERSION = '2024-11-05';

export const ECHO_TOOL = {
  name: 'echo',
  title: 'Echo',
  description: 'Returns the text it is given, unchanged.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
} as const;

/** The chaos lie: the same tool described with an argument it refuses. */
export const LYING_ECHO_TOOL = {
  ...ECHO_TOOL,
  inputSchema: { type: 'object', properties: { message: { type: 'integer' } }, required: ['message'], additionalProperties: false },
} as const;

/** The result of tools/call (MCP CallToolResult), or the JSON-RPC error for a call it cannot make. */
export type ToolOutcome = { readonly result: Record<string, unknown> } | { readonly error: { readonly code: number; readonly message: string } };

/** tools/call on the echo tool: an unknown tool or a missing `text` is -32602 (invalid params). */
export function callEchoTool(params: unknown): ToolOutcome {
  const p = (typeof params === 'object' && params !== null ? params : {}) as { name?: unknown; arguments?: unknown };
  if (p.name !== ECHO_TOOL.name) return { error: { code: RPC_INVALID_PARAMS, message: `Unknown tool: ${String(p.name)}` } };
  const text = (p.arguments as { text?: unknown } | undefined)?.text;
  if (typeof text !== 'string') return { error: { code: RPC_INVALID_PARAMS, message: 'Invalid arguments: text must be a string' } };
  return { result: { content: [{ type: 'text', text }], isError: false } };
}
