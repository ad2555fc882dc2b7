// Twin content, agent family: what the MCP server at /mcp offers and how it
// answers each method, transport apart. Three tools (echo; add, with an
// outputSchema and structuredContent; countdown, which reports progress),
// five text resources and three prompts, each list paged two items at a time
// behind an opaque cursor. Pure: the same request gets the same messages.
import { RPC_INVALID_PARAMS, RPC_METHOD_NOT_FOUND, type RpcId } from './json-rpc.js';
import { ECHO_TOOL, callEchoTool } from './mcp.js';

/** Items per page of tools/list, resources/list and prompts/list. */
export const MCP_PAGE_SIZE = 2;
/** Longest echo or prompt argument kept: events are stored for resumption, so each stays small. */
export const MCP_MAX_TEXT = 4096;
/** Most progress steps countdown takes, and the pause between them when streamed. */
export const MCP_MAX_STEPS = 10;
export const MCP_STEP_MS = 50;
/** MCP's error code for a resource that does not exist. */
export const MCP_RESOURCE_NOT_FOUND = -32002;

export const ADD_TOOL = {
  name: 'add',
  title: 'Add',
  description: 'Adds two numbers; the sum comes as text and as structuredContent.',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false },
  outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'], additionalProperties: false },
} as const;

export const COUNTDOWN_TOOL = {
  name: 'countdown',
  title: 'Countdown',
  description: `Counts down from steps (1 to ${MCP_MAX_STEPS}), one progress notification per step when the call carries a progressToken.`,
  inputSchema: { type: 'object', properties: { steps: { type: 'integer', minimum: 1, maximum: MCP_MAX_STEPS } }, required: ['steps'], additionalProperties: false },
} as const;

export const MCP_TOOLS = [ECHO_TOOL, ADD_TOOL, COUNTDOWN_TOOL] as const;

export const MCP_RESOURCES = [1, 2, 3, 4, 5].map((n) => ({
  uri: `chaos://notes/${n}`,
  name: `note-${n}`,
  title: `Note ${n}`,
  mimeType: 'text/plain',
}));

export const MCP_PROMPTS = [
  { name: 'greet', title: 'Greet', description: 'A greeting for a name.', arguments: [{ name: 'name', required: true }] },
  { name: 'summarize', title: 'Summarize', description: 'Asks for a summary of a text.', arguments: [{ name: 'text', required: true }] },
  { name: 'haiku', title: 'Haiku', description: 'Asks for a haiku about the service.', arguments: [] },
];

export interface RpcErrorBody {
  readonly code: number;
  readonly message: string;
}

/** One JSON-RPC message the server sends: a notification, a request of its own, or the answer. */
export type McpOut = Readonly<Record<string, unknown>>;

/** What a request is answered with: notifications first (progress), then the response. */
export interface McpAnswer {
  readonly notes: readonly McpOut[];
  readonly response: McpOut;
  /** Pause between the notes when streamed (countdown), so a client sees them arrive one by one. */
  readonly stepMs: number;
}

/** Page `cursor` of `items`: cursors are opaque (base64url of an offset); a bad one is -32602. */
export function page<T>(items: readonly T[], cursor: unknown): { readonly items: readonly T[]; readonly nextCursor?: string } | RpcErrorBody {
  let offset = 0;
  if (cursor !== undefined) {
    const decoded = typeof cursor === 'string' ? /^p(\d{1,4})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1')) : null;
    offset = decoded ? Number(decoded[1]) : -1;
    if (offset <= 0 || offset >= items.length) return { code: RPC_INVALID_PARAMS, message: 'Invalid params: unknown cursor' };
  }
  const end = offset + MCP_PAGE_SIZE;
  return end < items.length ? { items: items.slice(offset, end), nextCursor: cursorAt(end) } : { items: items.slice(offset, end) };
}

export function cursorAt(offset: number): string {
  return Buffer.from(`p${offset}`, 'latin1').toString('base64url');
}

function result(id: RpcId, value: unknown): McpOut {
  return { jsonrpc: '2.0', id, result: value };
}

export function errorOut(id: RpcId, error: RpcErrorBody): McpOut {
  return { jsonrpc: '2.0', id, error };
}

function listed(id: RpcId, key: string, paged: ReturnType<typeof page<unknown>>): McpOut {
  if ('code' in paged) return errorOut(id, paged);
  return result(id, { [key]: paged.items, ...(paged.nextCursor !== undefined ? { nextCursor: paged.nextCursor } : {}) });
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The answer to one request (initialize is the transport's: it opens the session). */
export function answerMethod(id: RpcId, method: string, params: unknown): McpAnswer {
  const p = objectOf(params);
  const plain = (response: McpOut): McpAnswer => ({ notes: [], response, stepMs: 0 });
  switch (method) {
    case 'ping':
      return plain(result(id, {}));
    case 'tools/list':
      return plain(listed(id, 'tools', page(MCP_TOOLS, p.cursor)));
    case 'resources/list':
      return plain(listed(id, 'resources', page(MCP_RESOURCES, p.cursor)));
    case 'resources/templates/list':
      return plain(result(id, { resourceTemplates: [] }));
    case 'prompts/list':
      return plain(listed(id, 'prompts', page(MCP_PROMPTS, p.cursor)));
    case 'resources/read': {
      const found = MCP_RESOURCES.find((r) => r.uri === p.uri);
      if (!found) return plain(errorOut(id, { code: MCP_RESOURCE_NOT_FOUND, message: `Resource not found: ${String(p.uri).slice(0, 200)}` }));
      return plain(result(id, { contents: [{ uri: found.uri, mimeType: 'text/plain', text: `${found.title}: a note from the chaos control server.` }] }));
    }
    case 'prompts/get':
      return plain(getPrompt(id, p));
    case 'tools/call':
      return callTool(id, p);
    default:
      return plain(errorOut(id, { code: RPC_METHOD_NOT_FOUND, message: `Method not found: ${method.slice(0, 200)}` }));
  }
}

function getPrompt(id: RpcId, p: Record<string, unknown>): McpOut {
  const prompt = MCP_PROMPTS.find((x) => x.name === p.name);
  if (!prompt) return errorOut(id, { code: RPC_INVALID_PARAMS, message: `Unknown prompt: ${String(p.name).slice(0, 200)}` });
  const args = objectOf(p.arguments);
  for (const arg of prompt.arguments) {
    if (arg.required && typeof args[arg.name] !== 'string') return errorOut(id, { code: RPC_INVALID_PARAMS, message: `Missing required argument: ${arg.name}` });
  }
  const text =
    prompt.name === 'greet' ? `Say hello to ${String(args.name).slice(0, MCP_MAX_TEXT)}.`
    : prompt.name === 'summarize' ? `Summarize: ${String(args.text).slice(0, MCP_MAX_TEXT)}`
    : 'Write a haiku about an endpoint that lies on purpose.';
  return result(id, { description: prompt.description, messages: [{ role: 'user', content: { type: 'text', text } }] });
}

function callTool(id: RpcId, p: Record<string, unknown>): McpAnswer {
  const args = objectOf(p.arguments);
  if (p.name === ADD_TOOL.name) {
    if (typeof args.a !== 'number' || typeof args.b !== 'number') {
      return { notes: [], response: errorOut(id, { code: RPC_INVALID_PARAMS, message: 'Invalid arguments: a and b must be numbers' }), stepMs: 0 };
    }
    const sum = args.a + args.b;
    return { notes: [], response: result(id, { content: [{ type: 'text', text: JSON.stringify({ sum }) }], structuredContent: { sum }, isError: false }), stepMs: 0 };
  }
  if (p.name === COUNTDOWN_TOOL.name) {
    const steps = args.steps;
    if (typeof steps !== 'number' || !Number.isInteger(steps) || steps < 1 || steps > MCP_MAX_STEPS) {
      return { notes: [], response: errorOut(id, { code: RPC_INVALID_PARAMS, message: `Invalid arguments: steps must be an integer from 1 to ${MCP_MAX_STEPS}` }), stepMs: 0 };
    }
    const token = objectOf(p._meta).progressToken;
    const notes: McpOut[] = [];
    if (typeof token === 'string' || typeof token === 'number') {
      for (let done = 1; done <= steps; done++) {
        notes.push({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: done, total: steps, message: `${steps - done} to go` } });
      }
    }
    return { notes, response: result(id, { content: [{ type: 'text', text: `Counted down from ${steps}.` }], isError: false }), stepMs: MCP_STEP_MS };
  }
  if (p.name === ECHO_TOOL.name && typeof args.text === 'string' && args.text.length > MCP_MAX_TEXT) {
    return { notes: [], response: errorOut(id, { code: RPC_INVALID_PARAMS, message: `Invalid arguments: text longer than ${MCP_MAX_TEXT} characters` }), stepMs: 0 };
  }
  const outcome = callEchoTool(p);
  return { notes: [], response: 'result' in outcome ? result(id, outcome.result) : errorOut(id, outcome.error), stepMs: 0 };
}
