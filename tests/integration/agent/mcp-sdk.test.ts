// /mcp driven by the official TypeScript SDK (@modelcontextprotocol/sdk) as a
// real client over loopback: the control twin passes a whole session, and each
// chaos mode gives the client-side outcome docs/agent.md publishes (its table
// "What the official SDK does" is checked against what this file measures).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { MCP_MODES, MCP_PROMPTS, MCP_RESOURCES, MCP_TOOLS } from '../../../shared/content/agent/index.js';
import { closeQuietly, MCP_SDK_SCENARIOS, open } from '../../../scripts/scorecard/sdk-mcp.js';
import { mcpServerName } from '../../../shared/content/discovery.js';
import { publishedSdkOutcomes } from '../../../scripts/scorecard/sdk-table.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

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
  const published = publishedSdkOutcomes('mcp');
  for (const mode of MCP_MODES) {
    const observed = await MCP_SDK_SCENARIOS[mode](`http://127.0.0.1:${port}/mcp?mode=${mode}`);
    t.equal(observed, documented.get(mode), `${mode}: ${observed}`);
    t.equal(observed, published.get(mode), `${mode}: docs/clients.md, generated from this scenario, says the same`);
  }
});
