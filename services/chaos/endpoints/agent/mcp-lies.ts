// The chaos /mcp's session modes as bends of the honest Streamable HTTP flow
// (shared/content/agent/mcp-http.ts): each mode names the one step it breaks.
import {
  MCP_PAGE_SIZE, MCP_SESSION_TTL_MS, cursorAt, errorOut, type McpAnswer, type McpLies, type McpOut, type McpPlan, type McpSessionMode,
} from '../../../../shared/content/agent/index.js';
import { MCP_PROTOCOL_VERSIONS } from '../../../../shared/content/discovery.js';
import type { Store } from '../../../../shared/store/types.js';

/** notification-flood: the notifications sent before each answer (bounded, whatever the request). */
export const MCP_FLOOD_COUNT = 500;
/** progress-unknown-token: the token of every progress notification, one no client sent. */
export const MCP_UNKNOWN_TOKEN = 'chaos-unknown-token';
/** elicitation-unasked: the id of the server's request. */
export const MCP_ELICIT_ID = 'chaos-elicit-1';

const SUPPORTED: ReadonlySet<string> = new Set(MCP_PROTOCOL_VERSIONS);

/** The chaos 404 of session-expired: the transport's own shape, on a session that is in fact alive. */
const EXPIRED: McpPlan = { kind: 'json', status: 404, body: errorOut(null, { code: -32001, message: 'Session not found' }), real: false };

export function liesFor(mode: McpSessionMode, after: number, store: Store): McpLies {
  switch (mode) {
    case 'session-expired':
      // Every request that carries the session counts (notifications/initialized and the GET stream too).
      return { screen: async (id) => ((await store.countInWindow(`mcp-expired:${id}`, MCP_SESSION_TTL_MS)) > after ? EXPIRED : undefined) };
    case 'session-not-issued':
      return { issueSession: false };
    case 'session-changes':
      return { rotate: true };
    case 'protocol-version-header-lie':
      // The version initialize agreed is refused as unsupported; any other spoken one passes.
      return { versionAccepted: (header, negotiated) => header !== negotiated && SUPPORTED.has(header) };
    case 'sse-cut':
      return { stream: 'cut-mid-event' };
    case 'sse-no-resume':
      return { stream: 'cut-after-first', replayFromStart: true };
    case 'event-ids-backwards':
      return { stream: 'ids-backwards' };
    case 'response-on-get-stream':
      return { stream: 'on-get-stream' };
    default:
      return { alwaysStream: true, rewrite: (answer, method) => rewrite(mode, answer, method) };
  }
}

function resultOf(message: McpOut): Record<string, unknown> | undefined {
  const result = message.result;
  return typeof result === 'object' && result !== null ? (result as Record<string, unknown>) : undefined;
}

function rewrite(mode: McpSessionMode, answer: McpAnswer, method: string): McpAnswer {
  const result = resultOf(answer.response);
  switch (mode) {
    case 'notification-flood': {
      const flood: McpOut[] = Array.from({ length: MCP_FLOOD_COUNT }, (_, i) => ({
        jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'chaos', data: `flood ${i + 1} of ${MCP_FLOOD_COUNT}` },
      }));
      return { ...answer, notes: [...flood, ...answer.notes], stepMs: 0 };
    }
    case 'pagination-cursor-loop':
      // Every page of a list says the next one is the second: the second names itself.
      if (!method.endsWith('/list') || result === undefined || method === 'resources/templates/list') return answer;
      return { ...answer, response: { ...answer.response, result: { ...result, nextCursor: cursorAt(MCP_PAGE_SIZE) } } };
    case 'structured-content-mismatch': {
      const structured = result?.structuredContent as { sum?: unknown } | undefined;
      if (structured === undefined) return answer;
      // add's outputSchema says sum is a number: here it is the same sum as a string.
      return { ...answer, response: { ...answer.response, result: { ...result, structuredContent: { sum: String(structured.sum) } } } };
    }
    case 'progress-unknown-token': {
      if (method !== 'tools/call') return answer;
      const progress = answer.notes.length > 0 ? answer.notes.length : 1;
      const notes: McpOut[] = Array.from({ length: progress }, (_, i) => ({
        jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: MCP_UNKNOWN_TOKEN, progress: i + 1, total: progress },
      }));
      return { ...answer, notes };
    }
    case 'elicitation-unasked': {
      if (method !== 'tools/call') return answer;
      const ask: McpOut = {
        jsonrpc: '2.0', id: MCP_ELICIT_ID, method: 'elicitation/create',
        params: { message: 'Which name should the chaos server use?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      };
      return { ...answer, notes: [ask, ...answer.notes] };
    }
    default:
      return answer;
  }
}
