// Just enough JSON-RPC 2.0 over HTTP for the control host's two protocol
// endpoints (the A2A echo agent and the MCP server): a bounded body read and
// the envelope shapes. Requests bigger than the cap are refused, never buffered.
import type { IncomingMessage } from 'node:http';

export const MAX_RPC_BODY = 64 * 1024;

export type RpcId = string | number | null;

export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;

/** The request body, or undefined when it exceeds `max` bytes (the rest is drained unread). */
export function readBody(req: IncomingMessage, max: number = MAX_RPC_BODY): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > max) {
        req.off('data', onData);
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

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

/** What the JSON-RPC endpoints need of their context (HttpContext satisfies it). */
interface RpcContext {
  readonly req: IncomingMessage;
  send(status: number, contentType: string, body: string): void;
}

/**
 * Reads and parses one JSON-RPC request, or answers for it: 413 for a body
 * over 64 KiB, `parseErrorStatus` with the JSON-RPC error for one that does
 * not parse (A2A answers 200, MCP's HTTP transport 400).
 */
export async function readRpcRequest(ctx: RpcContext, parseErrorStatus: number): Promise<RpcRequest | undefined> {
  const body = await readBody(ctx.req);
  if (body === undefined) {
    ctx.send(413, 'application/json', rpcError(null, RPC_INVALID_REQUEST, 'Invalid Request: body larger than 64 KiB'));
    return undefined;
  }
  const parsed = parseRpc(body);
  if (!parsed.ok) {
    ctx.send(parseErrorStatus, 'application/json', rpcError(null, parsed.code, parsed.message));
    return undefined;
  }
  return parsed.request;
}
