// /mcp's Streamable HTTP transport on the wire, both hosts: the real errors
// for bad input, the per-address bound on sessions, answers by Accept, event
// ids and resumption, sessions shared by two replicas over Redis, and the
// chaos streams' bytes (cut, bounded, seeded). The SDK's view: mcp-sdk.test.ts.
import t from 'tap';
import { MCP_SESSIONS_PER_ADDRESS } from '../../../shared/content/agent/index.js';
import { createLogger } from '../../../shared/config/log.js';
import { FallbackStore } from '../../../shared/store/fallback.js';
import { RedisStore } from '../../../shared/store/redis.js';
import { MCP_FLOOD_COUNT } from '../../../services/chaos/endpoints/agent/mcp-lies.js';
import { parseHead, rawExchange } from '../../helpers/raw.js';
import { startRedis } from '../../helpers/redis.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';

const BOTH = 'application/json, text/event-stream';
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

async function call(url: string, method: string, body: string | undefined, headers: Readonly<Record<string, string>> = {}): Promise<Answer> {
  const response = await fetch(url, { method, headers: { 'content-type': 'application/json', accept: BOTH, ...headers }, ...(body !== undefined ? { body } : {}) });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** A fresh session's id (initialize answered as JSON). */
async function session(url: string, headers: Readonly<Record<string, string>> = {}): Promise<string> {
  const answer = await call(url, 'POST', INIT, { accept: 'application/json', ...headers });
  return answer.headers.get('mcp-session-id') as string;
}

/** The events of an SSE body: id and data of each. */
function events(text: string): { id: string | undefined; data: string }[] {
  return text
    .split('\n\n')
    .filter((block) => /^(id|data): /m.test(block))
    .map((block) => ({ id: /^id: (.*)$/m.exec(block)?.[1], data: /^data: ?(.*)$/m.exec(block)?.[1] ?? '' }));
}

function chaosLines(headers: Headers): string[] {
  return [...headers.keys()].filter((name) => name.startsWith('x-chaos-') && name !== 'x-chaos-origin' && name !== 'x-chaos-counterpart');
}

t.test('/mcp bad input: the transport\'s own error shapes, real errors, on the twin and on chaos outside the lie', async (t) => {
  const control = `http://127.0.0.1:${(await startHttp(t, 'control')).port}/mcp`;
  const chaos = `http://127.0.0.1:${(await startChaos(t)).port}/mcp?mode=session-expired`;
  for (const url of [control, chaos]) {
    const host = url === control ? 'control' : 'chaos';
    const id = await session(url);
    t.match(id, /^[A-Za-z0-9_-]{11}\.[0-9a-f]{32}$/, `${host}: a session`);
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
    const cases: [string, Promise<Answer>, number, number][] = [
      ['a body over 64 KiB', call(url, 'POST', `{"x":"${'a'.repeat(64 * 1024)}"}`), 413, -32600],
      ['not JSON', call(url, 'POST', '{'), 400, -32700],
      ['a batch', call(url, 'POST', `[${ping}]`), 400, -32600],
      ['no jsonrpc member', call(url, 'POST', '{"id":1,"method":"ping"}'), 400, -32600],
      ['Content-Type text/plain', call(url, 'POST', ping, { 'content-type': 'text/plain', 'mcp-session-id': id }), 415, -32000],
      ['Accept text/html', call(url, 'POST', ping, { accept: 'text/html', 'mcp-session-id': id }), 406, -32000],
      ['no session', call(url, 'POST', ping), 400, -32000],
      ['an unknown session', call(url, 'POST', ping, { 'mcp-session-id': `${id.slice(0, 12)}${'0'.repeat(32)}` }), 404, -32001],
      ['a malformed session id', call(url, 'POST', ping, { 'mcp-session-id': 'x'.repeat(300) }), 404, -32001],
      ['an unknown protocol version', call(url, 'POST', ping, { 'mcp-session-id': id, 'mcp-protocol-version': '1999-01-01' }), 400, -32000],
      ['a GET that refuses event streams', call(url, 'GET', undefined, { accept: 'application/json', 'mcp-session-id': id }), 406, -32000],
      ['a DELETE without a session', call(url, 'DELETE', undefined), 400, -32000],
    ];
    for (const [name, pending, status, code] of cases) {
      const answer = await pending;
      t.equal(answer.status, status, `${host}, ${name}: ${status}`);
      t.match(JSON.parse(answer.text), { jsonrpc: '2.0', id: null, error: { code } }, `${host}, ${name}: JSON-RPC error ${code}`);
      t.same(chaosLines(answer.headers), [], `${host}, ${name}: no X-Chaos-* line`);
    }
    t.equal((await call(url, 'POST', ping, { 'mcp-session-id': id })).status, 200, `${host}: the session still works`);
  }
  const clamped = await call(`${chaos}&after=0`, 'POST', INIT, { accept: 'application/json' });
  t.equal(clamped.headers.get('x-chaos-clamped'), 'after=1', 'after below its range: clamped and reported');
  const legacy = await call(chaos.replace('session-expired', 'version-mismatch'), 'GET', undefined);
  t.equal(legacy.status, 405, 'a JSON mode answers POST only');
  t.equal(legacy.headers.get('allow'), 'POST');
});

t.test('control /mcp: at most 16 live sessions per address; DELETE frees one', async (t) => {
  const url = `http://127.0.0.1:${(await startHttp(t, 'control')).port}/mcp`;
  const ids: string[] = [];
  for (let i = 0; i < MCP_SESSIONS_PER_ADDRESS; i++) ids.push(await session(url));
  t.equal(new Set(ids).size, MCP_SESSIONS_PER_ADDRESS, 'sixteen distinct sessions');
  const refused = await call(url, 'POST', INIT);
  t.equal(refused.status, 429, 'the 17th is refused');
  t.match(JSON.parse(refused.text), { error: { code: -32000, message: /Too many sessions/ } });
  t.equal(refused.headers.get('mcp-session-id'), null);
  t.equal((await call(url, 'DELETE', undefined, { 'mcp-session-id': ids[0] as string })).status, 200, 'DELETE ends one');
  t.equal((await call(url, 'DELETE', undefined, { 'mcp-session-id': ids[0] as string })).status, 404, 'a second DELETE: unknown');
  t.type(await session(url), 'string', 'and a new one opens');
});

t.test('control /mcp: JSON or SSE by Accept; event ids, priming and resumption from the one after Last-Event-ID', async (t) => {
  const url = `http://127.0.0.1:${(await startHttp(t, 'control')).port}/mcp`;
  const id = await session(url);
  const countdown = JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'countdown', arguments: { steps: 3 }, _meta: { progressToken: 'tok' } } });
  const asJson = await call(url, 'POST', countdown, { accept: 'application/json', 'mcp-session-id': id });
  t.equal(asJson.headers.get('content-type'), 'application/json');
  t.match(JSON.parse(asJson.text), { id: 5, result: { content: [{ text: 'Counted down from 3.' }] } }, 'JSON: the answer alone');
  const preferJson = await call(url, 'POST', countdown, { accept: 'text/event-stream;q=0.5, application/json', 'mcp-session-id': id });
  t.equal(preferJson.headers.get('content-type'), 'application/json', 'JSON ranked higher: JSON');

  const streamed = await call(url, 'POST', countdown, { 'mcp-session-id': id });
  t.equal(streamed.headers.get('content-type'), 'text/event-stream');
  const got = events(streamed.text);
  t.equal(got.length, 5, 'priming, three progress, the answer');
  t.match(got[0], { id: /^p[0-9a-f]{16}\.0$/, data: '' }, 'the priming event: an id, no data');
  t.match(streamed.text, /retry: 1000\n/);
  const stream = (got[0]?.id as string).split('.')[0] as string;
  const seqs = got.slice(1).map((e) => Number((e.id as string).split('.')[1]));
  t.same(seqs, [seqs[0], (seqs[0] as number) + 1, (seqs[0] as number) + 2, (seqs[0] as number) + 3], 'ids rise by one');
  t.same(got.slice(1, 4).map((e) => (JSON.parse(e.data) as { params: { progress: number } }).params.progress), [1, 2, 3]);

  const resumed = await call(url, 'GET', undefined, { accept: 'text/event-stream', 'mcp-session-id': id, 'last-event-id': `${stream}.${seqs[1]}` });
  t.same(events(resumed.text).map((e) => e.id), [`${stream}.${seqs[2]}`, `${stream}.${seqs[3]}`], 'replayed from the one after Last-Event-ID, then the stream ends');
  t.match(JSON.parse(events(resumed.text)[1]?.data as string), { id: 5, result: {} });
  const fresh = await call(url, 'POST', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), { 'mcp-session-id': id });
  t.equal(fresh.status, 202, 'a notification: 202');
  t.equal(fresh.text, '');
});

t.test('control /mcp over Redis: a session opened on one replica is served, resumed and ended on another', async (t) => {
  const redis = await startRedis(t);
  const silent = createLogger('control', 'silent');
  const stores = [0, 1].map(() => new FallbackStore({ shared: new RedisStore({ url: redis.url, prefix: 'mcp-test:' }), logger: silent }));
  await Promise.all(stores.map((s) => s.started));
  const [a, b] = await Promise.all(stores.map((store) => startHttp(t, 'control', testConfig(), store)));
  const urlA = `http://127.0.0.1:${a?.port}/mcp`;
  const urlB = `http://127.0.0.1:${b?.port}/mcp`;
  const id = await session(urlA);
  const echo = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'across' } } });
  const onB = await call(urlB, 'POST', echo, { 'mcp-session-id': id });
  t.equal(onB.status, 200, 'replica b knows the session a opened');
  const streamed = events(onB.text);
  const last = streamed.at(-1)?.id as string;
  const [stream] = last.split('.');
  const replay = await call(urlA, 'GET', undefined, { accept: 'text/event-stream', 'mcp-session-id': id, 'last-event-id': `${stream}.0` });
  t.same(events(replay.text).map((e) => e.id), [last], 'replica a replays what b streamed');
  t.equal((await call(urlA, 'DELETE', undefined, { 'mcp-session-id': id })).status, 200);
  t.equal((await call(urlB, 'POST', echo, { 'mcp-session-id': id })).status, 404, 'ended on a, unknown on b');
});

t.test('chaos /mcp streams: sse-cut ends inside an event with no last chunk, at a seeded point; the flood is bounded', async (t) => {
  const { port } = await startChaos(t);
  const url = `http://127.0.0.1:${port}/mcp?mode=sse-cut`;
  const id = await session(url);
  const echo = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo', arguments: { text: 'cut me' } } });
  const raw = async (): Promise<Buffer> => {
    const head = ['POST /mcp?mode=sse-cut HTTP/1.1', 'Host: 127.0.0.1', 'Content-Type: application/json', `Accept: ${BOTH}`, `Mcp-Session-Id: ${id}`, `Content-Length: ${echo.length}`];
    const result = await rawExchange(port, `${head.join('\r\n')}\r\n\r\n${echo}`, { timeoutMs: 5000 });
    t.equal(result.end, 'fin', 'the server closes the connection');
    return result.data;
  };
  const first = await raw();
  const reply = parseHead(first);
  t.equal(reply.status, 200);
  t.equal(reply.header('x-chaos-mcp-mode'), 'sse-cut');
  const body = reply.rest.toString('latin1');
  t.notMatch(body, /\r\n0\r\n\r\n$/, 'no last chunk');
  t.notMatch(body, /^id: /m, 'no event ids: nothing to resume from');
  t.notMatch(body, /"result"[^\n]*\n\n/, 'the answer\'s event never completes');
  t.equal(parseHead(await raw()).rest.toString('latin1'), body, 'the same request is cut at the same byte');

  const flood = `http://127.0.0.1:${port}/mcp?mode=notification-flood`;
  const floodId = await session(flood);
  const flooded = await call(flood, 'POST', echo, { accept: 'application/json', 'mcp-session-id': floodId });
  t.equal(flooded.headers.get('content-type'), 'text/event-stream', 'streamed even when JSON was asked for: the flood needs a stream');
  const got = events(flooded.text);
  t.equal(got.filter((e) => e.data.includes('notifications/message')).length, MCP_FLOOD_COUNT, `${MCP_FLOOD_COUNT} notifications, no more`);
  t.match(JSON.parse(got.at(-1)?.data as string), { id: 9, result: { content: [{ text: 'cut me' }] } }, 'then the answer');
});
