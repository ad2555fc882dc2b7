// The official MCP TypeScript SDK (@modelcontextprotocol/sdk) as a real client of /mcp:
// a session opened over Streamable HTTP, and what the SDK does against each chaos
// mode, in a sentence. tests/integration/agent/mcp-sdk.test.ts checks the sentences
// against docs/agent.md; the client scorecard (scripts/scorecard/sdk-table.ts)
// publishes them in docs/clients.md from the same runs.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { MCP_FLOOD_COUNT } from '../../services/chaos/endpoints/agent/mcp-lies.js';
import type { McpMode } from '../../shared/content/agent/index.js';

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface Opened {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  /** What the client reported through onerror, as text. */
  readonly errors: string[];
  /** Every POST body the client sent, parsed. */
  readonly posted: Record<string, unknown>[];
}

/** A fetch that records POST bodies and, when `cut` says so, ends a POST's SSE body after its first message. */
function recordingFetch(posted: Record<string, unknown>[], cut?: (body: string) => boolean): FetchLike {
  return async (url, init) => {
    const body = typeof init?.body === 'string' ? init.body : undefined;
    if (body !== undefined) posted.push(JSON.parse(body) as Record<string, unknown>);
    const response = await fetch(url, init);
    if (body === undefined || !cut?.(body) || !response.headers.get('content-type')?.startsWith('text/event-stream') || !response.body) return response;
    // The forced disconnect: the stream errors once the first event that carries data has gone through.
    const reader = response.body.getReader();
    let seen = '';
    const cutStream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { value, done } = await reader.read();
        if (done) return controller.close();
        const before = seen.length;
        seen += Buffer.from(value).toString('latin1');
        const first = /data: \{[^\n]*\n\n/.exec(seen);
        if (first) {
          controller.enqueue(value.subarray(0, first.index + first[0].length - before));
          await reader.cancel();
          controller.error(new Error('forced disconnect'));
          return;
        }
        controller.enqueue(value);
      },
    });
    return new Response(cutStream, { status: response.status, headers: response.headers });
  };
}

export async function open(url: string, options: { cut?: (body: string) => boolean; connect?: boolean } = {}): Promise<Opened> {
  const posted: Record<string, unknown>[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: recordingFetch(posted, options.cut),
    reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1.5, maxRetries: 2 },
  });
  const client = new Client({ name: 'chaos-test', version: '1.0.0' }, { capabilities: {} });
  const errors: string[] = [];
  client.onerror = (error) => errors.push(error.message);
  if (options.connect !== false) await client.connect(transport);
  return { client, transport, errors, posted };
}

export async function closeQuietly(opened: Opened): Promise<void> {
  await opened.client.close().catch(() => undefined);
}

/** An error's code and message as one line. */
export function failure(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  return `${String(e.code)} ${String(e.message)}`;
}
/** What the SDK does against one chaos mode, in the words of docs/agent.md's table and docs/clients.md's. */
export type Scenario = (url: string) => Promise<string>;

export const SHORT = { timeout: 2500 };

export const MCP_SDK_SCENARIOS: Readonly<Record<McpMode, Scenario>> = {
  'version-mismatch': async (url) => {
    const s = await open(url);
    const version = s.transport.protocolVersion;
    await closeQuietly(s);
    return `connects with ${String(version)}`;
  },
  'id-not-echoed': async (url) => {
    const s = await open(url, { connect: false });
    const outcome = await s.client.connect(s.transport, SHORT).then(() => 'connects', failure);
    await closeQuietly(s);
    const timedOut = outcome.startsWith('-32001') ? 'connect times out (-32001)' : outcome;
    return `${timedOut}; onerror: ${s.errors.some((e) => e.includes('unknown message ID')) ? 'a response for an unknown message ID' : s.errors.join(' | ')}`;
  },
  'result-and-error': async (url) => {
    const s = await open(url, { connect: false });
    const outcome = await s.client.connect(s.transport, SHORT).then(() => 'connects', (error: unknown) => `connect rejects with a ${(error as Error).name}`);
    await closeQuietly(s);
    return `${outcome} (the SDK's JSON-RPC schema refuses the answer)`;
  },
  'lying-tool-schema': async (url) => {
    const s = await open(url);
    await s.client.listTools();
    const outcome = await s.client.callTool({ name: 'echo', arguments: { text: 'x' } }).then(() => 'a call by the true schema resolves', failure);
    await closeQuietly(s);
    return outcome;
  },
  'session-expired': async (url) => {
    const s = await open(url);
    let first = '';
    let ping = 0;
    while (ping < 6 && first === '') {
      ping++;
      first = await s.client.ping().then(() => '', failure);
    }
    const again = await s.client.ping().then(() => 'resolves', failure);
    await closeQuietly(s);
    return `ping ${ping} rejects with HTTP ${first.slice(0, 3)}; the next is ${again.startsWith('404') ? '404 again: the SDK does not re-initialize' : again}`;
  },
  'session-not-issued': async (url) => {
    const s = await open(url, { connect: false });
    const outcome = await s.client.connect(s.transport, SHORT).then(() => 'connects', failure);
    await closeQuietly(s);
    return `connect ${outcome.startsWith('400') ? 'rejects with HTTP 400' : outcome}`;
  },
  'session-changes': async (url) => {
    const s = await open(url);
    const ids = [s.transport.sessionId];
    await s.client.listTools();
    ids.push(s.transport.sessionId);
    await s.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    ids.push(s.transport.sessionId);
    await closeQuietly(s);
    return new Set(ids).size === 3 ? 'follows each new id; calls resolve' : `ids: ${ids.join(', ')}`;
  },
  'protocol-version-header-lie': async (url) => {
    const s = await open(url, { connect: false });
    const outcome = await s.client.connect(s.transport, SHORT).then(() => 'connects', failure);
    await closeQuietly(s);
    return `connect ${outcome.startsWith('400') ? 'rejects with HTTP 400' : outcome}`;
  },
  'sse-cut': async (url) => {
    const s = await open(url);
    const outcome = await s.client.callTool({ name: 'echo', arguments: { text: 'x' } }, undefined, SHORT).then(() => 'resolves', failure);
    await closeQuietly(s);
    const disconnected = s.errors.some((e) => e.startsWith('SSE stream disconnected'));
    return `${outcome.startsWith('-32001') ? 'request times out (-32001)' : outcome}; onerror: ${disconnected ? 'SSE stream disconnected' : s.errors.join(' | ')}`;
  },
  'sse-no-resume': async (url) => {
    const s = await open(url);
    const progress: number[] = [];
    const outcome = await s.client.callTool({ name: 'countdown', arguments: { steps: 3 } }, undefined, { onprogress: (p) => progress.push(p.progress), timeout: 10_000 }).then(() => 'resolves', failure);
    await closeQuietly(s);
    return `${outcome}; progress seen ${progress.join(',')}`;
  },
  'event-ids-backwards': async (url) => {
    const s = await open(url);
    const tokens: string[] = [];
    const outcome = await s.client
      .callTool({ name: 'countdown', arguments: { steps: 3 } }, undefined, { onprogress: () => undefined, onresumptiontoken: (token) => tokens.push(token) })
      .then(() => 'resolves', failure);
    await closeQuietly(s);
    const seqs = tokens.map((token) => Number(token.split('.')[1])).filter((n) => n > 0);
    const descending = seqs.length > 1 && seqs.every((n, i) => i === 0 || n < (seqs[i - 1] as number));
    return `${outcome}; ids ${descending ? 'descending' : tokens.join(',')}, no error`;
  },
  'response-on-get-stream': async (url) => {
    const s = await open(url);
    const outcome = await s.client.callTool({ name: 'echo', arguments: { text: 'x' } }, undefined, { timeout: 10_000 }).then((r) => (r.content as { text: string }[])[0]?.text === 'x' ? 'resolves' : 'wrong answer', failure);
    await closeQuietly(s);
    return `${outcome} from the GET stream`;
  },
  'notification-flood': async (url) => {
    const s = await open(url);
    let count = 0;
    s.client.setNotificationHandler(LoggingMessageNotificationSchema, () => {
      count++;
    });
    const outcome = await s.client.callTool({ name: 'echo', arguments: { text: 'x' } }, undefined, { timeout: 10_000 }).then(() => 'resolves', failure);
    await closeQuietly(s);
    return `${outcome}; ${count === MCP_FLOOD_COUNT ? 'every notification delivered' : `${count} delivered`}`;
  },
  'pagination-cursor-loop': async (url) => {
    const s = await open(url);
    const cursors: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await s.client.listTools(cursor ? { cursor } : {});
      if (page.nextCursor === undefined) break;
      cursors.push(page.nextCursor);
      cursor = page.nextCursor;
    }
    await closeQuietly(s);
    return cursors.length === 5 && new Set(cursors).size === 1 ? 'each page resolves; the same nextCursor for ever' : `cursors ${cursors.join(',')}`;
  },
  'structured-content-mismatch': async (url) => {
    const s = await open(url);
    await s.client.listTools();
    const outcome = await s.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }).then(() => 'resolves', failure);
    await closeQuietly(s);
    return outcome.includes("does not match the tool's output schema") ? `rejects: ${outcome.split(' ')[0]} structuredContent does not match the outputSchema` : outcome;
  },
  'progress-unknown-token': async (url) => {
    const s = await open(url);
    let progressed = 0;
    const outcome = await s.client.callTool({ name: 'echo', arguments: { text: 'x' } }, undefined, { onprogress: () => progressed++ }).then(() => 'resolves', failure);
    await closeQuietly(s);
    const unknown = s.errors.some((e) => e.includes('progress notification for an unknown token'));
    return `${outcome}; onprogress ${progressed === 0 ? 'not called' : 'called'}; onerror: ${unknown ? 'unknown token' : s.errors.join(' | ')}`;
  },
  'elicitation-unasked': async (url) => {
    const s = await open(url);
    const outcome = await s.client.callTool({ name: 'echo', arguments: { text: 'x' } }).then(() => 'resolves', failure);
    await closeQuietly(s);
    const reply = s.posted.find((m) => m.id === 'chaos-elicit-1') as { error?: { code?: number } } | undefined;
    return `${outcome}; answers elicitation/create with ${reply?.error?.code ?? 'nothing'}`;
  },
};
