// /mcp driven by the official TypeScript SDK (@modelcontextprotocol/sdk) as a
// real client over loopback: the control twin passes a whole session, and each
// chaos mode gives the client-side outcome docs/agent.md publishes (its table
// "What the official SDK does" is checked against what this file measures).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import t from 'tap';
import { MCP_MODES, MCP_PROMPTS, MCP_RESOURCES, MCP_TOOLS, type McpMode } from '../../../shared/content/agent/index.js';
import { MCP_FLOOD_COUNT } from '../../../services/chaos/endpoints/agent/mcp-lies.js';
import { mcpServerName } from '../../../shared/content/discovery.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

interface Opened {
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

async function open(url: string, options: { cut?: (body: string) => boolean; connect?: boolean } = {}): Promise<Opened> {
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

async function closeQuietly(opened: Opened): Promise<void> {
  await opened.client.close().catch(() => undefined);
}

/** An error's code and message as one line. */
function failure(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  return `${String(e.code)} ${String(e.message)}`;
}

t.test('control /mcp with the official SDK: initialize, list, call, progress, resume after a forced disconnect, delete', async (t) => {
  const { port } = await startHttp(t, 'control');
  const url = `http://127.0.0.1:${port}/mcp`;
  const cutCountdown = (body: string): boolean => body.includes('"countdown"');
  const s = await open(url, { cut: cutCountdown });
  t.teardown(() => closeQuietly(s));
  t.equal(s.client.getServerVersion()?.name, mcpServerName(testConfig().urls.control), 'the server card\'s name');
  t.match(s.transport.sessionId, /^[A-Za-z0-9_-]{11}\.[0-9a-f]{32}$/, 'a session id was issued');
  t.equal(s.transport.protocolVersion, '2025-11-25', 'the latest revision negotiated');

  // Every list, page by page, with the cursor the server gives.
  const all = async (list: (cursor?: string) => Promise<{ nextCursor?: string }>, key: string): Promise<unknown[]> => {
    const items: unknown[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = (await list(cursor)) as Record<string, unknown> & { nextCursor?: string };
      items.push(...(page[key] as unknown[]));
      cursor = page.nextCursor;
      if (cursor === undefined) break;
    }
    return items;
  };
  t.same((await all((cursor) => s.client.listTools(cursor ? { cursor } : {}), 'tools')).map((x) => (x as { name: string }).name), MCP_TOOLS.map((x) => x.name));
  t.same((await all((cursor) => s.client.listResources(cursor ? { cursor } : {}), 'resources')).length, MCP_RESOURCES.length, 'resources over three pages');
  t.same((await all((cursor) => s.client.listPrompts(cursor ? { cursor } : {}), 'prompts')).length, MCP_PROMPTS.length);
  t.match(await s.client.readResource({ uri: 'chaos://notes/3' }), { contents: [{ uri: 'chaos://notes/3', text: /Note 3/ }] });
  t.match(await s.client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }), { messages: [{ content: { text: 'Say hello to Ada.' } }] });

  t.same(await s.client.callTool({ name: 'echo', arguments: { text: 'hi' } }), { content: [{ type: 'text', text: 'hi' }], isError: false });
  // add is on the first page, so the SDK holds its outputSchema and checks structuredContent against it.
  await s.client.listTools();
  t.match(await s.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }), { structuredContent: { sum: 5 } });

  // countdown's stream is cut by the client's fetch after the first progress: the SDK resumes with Last-Event-ID.
  const progress: number[] = [];
  const started = performance.now();
  const counted = await s.client.callTool({ name: 'countdown', arguments: { steps: 4 } }, undefined, { onprogress: (p) => progress.push(p.progress), timeout: 15_000 });
  t.match(counted, { content: [{ text: 'Counted down from 4.' }] }, 'the result arrives on the resumed stream');
  t.same(progress, [1, 2, 3, 4], 'each progress once: replayed from the one after Last-Event-ID');
  t.ok(s.errors.some((e) => e.includes('forced disconnect')), 'the SDK saw the disconnect');
  t.ok(performance.now() - started >= 900, 'it waited the retry the stream advertised (1000 ms)');

  const id = s.transport.sessionId as string;
  await s.transport.terminateSession();
  t.equal(s.transport.sessionId, undefined, 'DELETE ended the session');
  const after = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  t.equal(after.status, 404, 'the ended session is unknown');
  t.same(await after.json(), { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
  t.notOk([...after.headers.keys()].some((name) => name.startsWith('x-chaos-')), 'a real error: no X-Chaos-* line');
});

t.test('control /mcp: each revision the SDK may ask for is spoken', async (t) => {
  const { port } = await startHttp(t, 'control');
  for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
    const answer = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    t.equal(answer.headers.get('content-type'), 'application/json', `${version}: JSON when only JSON is accepted`);
    t.equal(((await answer.json()) as { result: { protocolVersion: string } }).result.protocolVersion, version);
  }
});

/** What the SDK does against one chaos mode, in the words of docs/agent.md's table. */
type Scenario = (url: string) => Promise<string>;

const SHORT = { timeout: 2500 };

const SCENARIOS: Readonly<Record<McpMode, Scenario>> = {
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

/** docs/agent.md's table of SDK outcomes: mode → outcome (the last column). */
function documentedOutcomes(): Map<string, string> {
  const page = readFileSync(join(ROOT, 'docs', 'agent.md'), 'utf8');
  const section = page.slice(page.indexOf('### What the official SDK does'));
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = /^\| `([a-z-]+)` \| (.+) \|$/.exec(line);
    if (cells) rows.set(cells[1] as string, (cells[2] as string).split(' | ').pop() as string);
  }
  return rows;
}

t.test('chaos /mcp with the official SDK: each mode gives the outcome docs/agent.md publishes', async (t) => {
  const { port } = await startChaos(t);
  const documented = documentedOutcomes();
  for (const mode of MCP_MODES) {
    const observed = await SCENARIOS[mode](`http://127.0.0.1:${port}/mcp?mode=${mode}`);
    t.equal(observed, documented.get(mode), `${mode}: ${observed}`);
  }
});
