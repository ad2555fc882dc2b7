// Just enough JSON-RPC 2.0 over HTTP for the control host's two protocol
// endpoints (the A2A echo agent and the MCP server): a bounded body read and
// the envelope shapes. Requests bigger than the cap are refused, never buffered.
import type { IncomingMessage } from 'node:http';
import { parseRpc, rpcError, RPC_INVALID_REQUEST, type RpcRequest } from '../../../../shared/content/agent/index.js';

// The envelope lives in shared/content/agent/json-rpc.ts, which the chaos /mcp uses too.
export * from '../../../../shared/content/agent/json-rpc.js';

export const MAX_RPC_BODY = 64 * 1024;

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
