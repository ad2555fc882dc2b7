// JSON-RPC 2.0 envelopes, shared by the control host's protocol endpoints
// (echo agent, MCP) and the chaos /mcp: parsing one message and the result
// and error shapes. Pure: reading the body is each host's own business.

export type RpcId = string | number | null;

export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;

export interface RpcRequest {
  readonly id: RpcId | undefined;
  readonly method: string;
  readonly params: unknown;
}

export type Parsed =
  | { readonly ok: true; readonly request: RpcRequest }
  | { readonly ok: false; readonly code: number; readonly message: string };

/** One JSON-RPC 2.0 message; batches are not accepted (MCP dropped them in 2025-06-18). */
export function parseRpc(body: Buffer): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, code: RPC_PARSE_ERROR, message: 'Parse error: the body is not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, code: RPC_INVALID_REQUEST, message: 'Invalid Request: one JSON-RPC 2.0 object expected (no batches)' };
  }
  const message = value as Record<string, unknown>;
  const id = message.id;
  const validId = id === undefined || id === null || typeof id === 'string' || typeof id === 'number';
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string' || !validId) {
    return { ok: false, code: RPC_INVALID_REQUEST, message: 'Invalid Request: jsonrpc "2.0", a string method and a string or number id are required' };
  }
  return { ok: true, request: { id: id as RpcId | undefined, method: message.method, params: message.params } };
}

export function rpcResult(id: RpcId, result: unknown): string {
  return `${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`;
}

export function rpcError(id: RpcId, code: number, message: string): string {
  return `${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`;
}

