// Agent family (issue 13): the chat completion at /llm/v1/chat/completions and
// /mcp, chaos and control. Raw sockets, `Connection: close`, so each answer ends
// with the server's FIN and its exact bytes (and framing) can be checked.
import t from 'tap';
import { LLM_MODES, LLM_PATH, MAX_LLM_BODY, ECHO_TOOL, LYING_ECHO_TOOL, MCP_STALE_VERSION } from '../../shared/content/agent/index.js';
import { OVERLOADED_RETRY_AFTER, OVERLOADED_RETRY_AFTER_MS, RATE_LIMITED_RETRY_AFTER } from '../../services/chaos/endpoints/agent/llm-chat-completions.js';
import { parseHead, rawExchange, type ParsedResponse } from '../helpers/raw.js';
import { startChaos, startHttp } from '../helpers/servers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Reply {
  readonly res: ParsedResponse;
  /** The body, de-chunked when chunked. */
  readonly body: string;
  /** Chunked: whether the last chunk arrived; else whether Content-Length bytes arrived. */
  readonly complete: boolean;
}

async function post(port: number, path: string, body: string | Buffer, headers: Readonly<Record<string, string>> = {}): Promise<Reply> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const lines = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', 'Content-Type: application/json', `Content-Length: ${bytes.length}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  const result = await rawExchange(port, Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), bytes]), { timeoutMs: 5000 });
  t.not(result.end, 'timeout', `${path}: the server ends the exchange`);
  const res = parseHead(result.data);
  if (/chunked/i.test(res.header('transfer-encoding') ?? '')) return { res, ...dechunk(res.rest) };
  const length = Number(res.header('content-length') ?? 0);
  return { res, body: res.rest.subarray(0, length).toString('utf8'), complete: res.rest.length >= length };
}

function dechunk(data: Buffer): { body: string; complete: boolean } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol === -1) return { body: Buffer.concat(parts).toString('utf8'), complete: false };
    const size = parseInt(data.toString('latin1', at, eol), 16);
    if (size === 0) return { body: Buffer.concat(parts).toString('utf8'), complete: true };
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
    if (at > data.length) return { body: Buffer.concat(parts).toString('utf8'), complete: false };
  }
}

/** The data lines of an SSE body; a trailing event without its blank line is returned as `partial`. */
function events(body: string): { data: string[]; partial: string | undefined } {
  const blocks = body.split('\n\n');
  const partial = blocks.pop();
  return { data: blocks.map((b) => b.replace(/^data: /, '')), partial: partial === '' ? undefined : partial };
}

const chat = (extra: Json = {}): string => JSON.stringify({ model: 'echo-1', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hello there chaos' }], ...extra });
const TOOLS = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { text: { type: 'string' } } } } }];

t.test('control chat completion: a deterministic echo with true usage, streamed or not', async (t) => {
  const { port } = await startHttp(t, 'control');
  const plain = await post(port, LLM_PATH, chat());
  t.equal(plain.res.status, 200);
  const doc = JSON.parse(plain.body) as Json;
  t.equal(doc.object, 'chat.completion');
  t.match(doc.id, /^chatcmpl-[0-9a-f]{24}$/);
  t.equal(doc.choices[0].message.content, 'Echo: hello there chaos');
  t.equal(doc.choices[0].finish_reason, 'stop');
  t.same(doc.usage, { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 });
  t.equal(JSON.parse((await post(port, LLM_PATH, chat())).body).id, doc.id, 'the same request gets the same id');

  const streamed = await post(port, LLM_PATH, chat({ stream: true, stream_options: { include_usage: true } }));
  t.match(streamed.res.header('content-type'), /^text\/event-stream/);
  t.ok(streamed.complete, 'the chunked body ends with its last chunk');
  const { data, partial } = events(streamed.body);
  t.equal(partial, undefined, 'every event is complete');
  t.equal(data.at(-1), '[DONE]');
  const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Json);
  t.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'Echo: hello there chaos');
  t.equal(chunks.at(-2)?.choices[0].finish_reason, 'stop');
  t.same(chunks.at(-1)?.usage, doc.usage, 'the usage chunk agrees');

  const tool = JSON.parse((await post(port, LLM_PATH, chat({ tools: TOOLS }))).body) as Json;
  t.equal(tool.choices[0].finish_reason, 'tool_calls');
  t.same(JSON.parse(tool.choices[0].message.tool_calls[0].function.arguments), { text: 'Echo: hello there chaos' }, 'complete JSON arguments');
});

t.test('chat completion: bad bodies get 400/413 with an OpenAI error, on both hosts', async (t) => {
  const { port: chaos } = await startChaos(t);
  const { port: control } = await startHttp(t, 'control');
  for (const port of [chaos, control]) {
    for (const [body, param] of [['{not json', null], ['[]', null], ['{"messages":[{"role":"user","content":"x"}]}', 'model'], ['{"model":"m","messages":[]}', 'messages'], ['{"model":"m","messages":[{"role":"robot","content":"x"}]}', 'messages.[0].role']] as const) {
      const reply = await post(port, LLM_PATH, body);
      t.equal(reply.res.status, 400, body);
      const error = (JSON.parse(reply.body) as Json).error;
      t.equal(error.type, 'invalid_request_error');
      t.equal(error.param, param);
      t.notOk(reply.res.headerLines.some(([n]) => /^x-chaos-(?!origin|counterpart)/i.test(n)), 'a real error: no chaos line');
    }
    const big = await post(port, LLM_PATH, Buffer.alloc(MAX_LLM_BODY + 10, 0x20));
    t.equal(big.res.status, 413);
  }
  t.equal((await post(chaos, `${LLM_PATH}?mode=nope`, chat())).res.status, 400, 'unknown mode in the query');
  t.equal((await post(chaos, LLM_PATH, chat(), { 'X-Chaos-Mode': 'nope' })).res.status, 400, 'unknown mode in X-Chaos-Mode');
});

t.test('chaos chat completion: each mode lies as documented, deterministically', async (t) => {
  const { port } = await startChaos(t);
  const cut = await post(port, `${LLM_PATH}?mode=stream-cut`, chat());
  t.equal(cut.res.status, 200);
  t.match(cut.res.header('content-type'), /^text\/event-stream/, 'a stream even though stream was not asked');
  t.notOk(cut.complete, 'no last chunk: the stream is cut');
  const cutEvents = events(cut.body);
  t.ok(cutEvents.partial !== undefined && cutEvents.partial.startsWith('data: {'), 'the last event is half an event');
  t.throws(() => JSON.parse((cutEvents.partial as string).slice(6)), 'whose JSON does not parse');
  t.notOk(cutEvents.data.includes('[DONE]'));
  t.equal((await post(port, `${LLM_PATH}?mode=stream-cut`, chat())).body, cut.body, 'seeded by the request: the same cut');
  t.equal((await post(port, LLM_PATH, chat(), { 'X-Chaos-Mode': 'stream-cut' })).body, cut.body, 'X-Chaos-Mode names the mode too');

  const args = JSON.parse((await post(port, `${LLM_PATH}?mode=truncated-tool-args`, chat({ tools: TOOLS }))).body) as Json;
  const call = args.choices[0].message.tool_calls[0];
  t.equal(call.function.name, 'lookup');
  t.equal(args.choices[0].finish_reason, 'tool_calls');
  t.ok('{"text":"Echo: hello there chaos"}'.startsWith(call.function.arguments) && call.function.arguments.length < 32, 'a strict prefix of the arguments');
  t.throws(() => JSON.parse(call.function.arguments), 'truncated JSON');
  const argStream = await post(port, `${LLM_PATH}?mode=truncated-tool-args`, chat({ stream: true }));
  t.ok(argStream.complete, 'streamed: well framed');
  const argChunks = events(argStream.body).data.slice(0, -1).map((d) => JSON.parse(d) as Json);
  const joined = argChunks.map((c) => c.choices[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? '').join('');
  t.throws(() => JSON.parse(joined), 'the streamed fragments join into truncated JSON');
  t.equal(events(argStream.body).data.at(-1), '[DONE]');

  const limited = await post(port, `${LLM_PATH}?mode=rate-limited`, chat());
  t.equal(limited.res.status, 429);
  t.equal(limited.res.header('retry-after'), RATE_LIMITED_RETRY_AFTER);
  t.equal(limited.res.header('x-ratelimit-reset-requests'), '20s');
  t.equal((JSON.parse(limited.body) as Json).error.code, 'rate_limit_exceeded');
  t.equal((await post(port, `${LLM_PATH}?mode=rate-limited`, chat())).res.status, 429, 'retrying at once, as Retry-After: 0 says, is refused again');

  const overloaded = await post(port, `${LLM_PATH}?mode=overloaded`, chat());
  t.equal(overloaded.res.statusLine, 'HTTP/1.1 529 Site Overloaded');
  t.equal(overloaded.res.header('retry-after'), OVERLOADED_RETRY_AFTER);
  t.equal(overloaded.res.header('retry-after-ms'), OVERLOADED_RETRY_AFTER_MS, 'the two retry hints disagree');
  t.equal((JSON.parse(overloaded.body) as Json).error.type, 'overloaded_error');

  const finish = JSON.parse((await post(port, `${LLM_PATH}?mode=finish-reason-lie`, chat({ max_tokens: 1000 }))).body) as Json;
  t.equal(finish.choices[0].message.content, 'Echo: hello there chaos', 'the whole answer');
  t.equal(finish.choices[0].finish_reason, 'length', 'claimed cut at the length limit');
  const finishTool = JSON.parse((await post(port, `${LLM_PATH}?mode=finish-reason-lie`, chat({ tools: TOOLS }))).body) as Json;
  t.equal(finishTool.choices[0].finish_reason, 'stop', 'a tool call that says stop');
  t.ok(finishTool.choices[0].message.tool_calls);

  const usage = JSON.parse((await post(port, `${LLM_PATH}?mode=usage-lie`, chat())).body) as Json;
  t.equal(usage.usage.prompt_tokens, 0);
  t.ok(usage.usage.completion_tokens >= 100_000, 'a huge completion for four words');
  t.ok(usage.usage.total_tokens < usage.usage.completion_tokens, 'total below its part');
  const usageStream = events((await post(port, `${LLM_PATH}?mode=usage-lie`, chat({ stream: true }))).body).data;
  const streamedUsage = (JSON.parse(usageStream.at(-2) as string) as Json).usage;
  t.ok(streamedUsage.prompt_tokens === 0 && streamedUsage.total_tokens < streamedUsage.completion_tokens, 'streamed: the usage chunk is sent unasked and lies the same way');

  for (const mode of LLM_MODES) {
    const reply = await post(port, `${LLM_PATH}?mode=${mode}`, chat());
    t.equal(reply.res.header('x-chaos-llm-mode'), mode, `${mode}: named`);
  }
});

const init = (version: string, id: number | string = 1): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } } });
const rpc = (method: string, params: Json | undefined, id: number | string = 7): string => JSON.stringify({ jsonrpc: '2.0', id, method, params });

t.test('control /mcp: the echo tool, listed and called', async (t) => {
  const { port } = await startHttp(t, 'control');
  const initialized = JSON.parse((await post(port, '/mcp', init('2025-06-18'))).body) as Json;
  t.equal(initialized.result.protocolVersion, '2025-06-18');
  t.same(initialized.result.capabilities, { tools: { listChanged: false } });
  t.same(JSON.parse((await post(port, '/mcp', rpc('tools/list', {}))).body), { jsonrpc: '2.0', id: 7, result: { tools: [ECHO_TOOL] } });
  t.same(JSON.parse((await post(port, '/mcp', rpc('tools/call', { name: 'echo', arguments: { text: 'hi' } }))).body), {
    jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'hi' }], isError: false },
  });
  t.equal((JSON.parse((await post(port, '/mcp', rpc('tools/call', { name: 'nope', arguments: {} }))).body) as Json).error.code, -32602);
  t.equal((JSON.parse((await post(port, '/mcp', rpc('tools/call', { name: 'echo', arguments: { text: 1 } }))).body) as Json).error.code, -32602);
});

t.test('chaos /mcp: each mode breaks its rule', async (t) => {
  const { port } = await startChaos(t);
  const version = JSON.parse((await post(port, '/mcp?mode=version-mismatch', init('2025-06-18'))).body) as Json;
  t.equal(version.result.protocolVersion, MCP_STALE_VERSION, 'a version the client did not ask for');
  t.equal((JSON.parse((await post(port, '/mcp?mode=version-mismatch', init(MCP_STALE_VERSION))).body) as Json).result.protocolVersion, '2024-10-07', 'never the one asked');

  t.equal((JSON.parse((await post(port, '/mcp?mode=id-not-echoed', rpc('ping', undefined, 41))).body) as Json).id, 42);
  t.equal((JSON.parse((await post(port, '/mcp?mode=id-not-echoed', rpc('ping', undefined, 'a'))).body) as Json).id, 'a-other');

  const both = JSON.parse((await post(port, '/mcp?mode=result-and-error', rpc('ping', undefined))).body) as Json;
  t.ok('result' in both && 'error' in both, 'result and error in one response');
  t.equal(both.id, 7);

  const listed = JSON.parse((await post(port, '/mcp?mode=lying-tool-schema', rpc('tools/list', {}))).body) as Json;
  t.same(listed.result.tools, [LYING_ECHO_TOOL]);
  const bySchema = JSON.parse((await post(port, '/mcp?mode=lying-tool-schema', rpc('tools/call', { name: 'echo', arguments: { message: 1 } }))).body) as Json;
  t.equal(bySchema.error.code, -32602, 'a call that follows the schema is refused');
  const byTruth = JSON.parse((await post(port, '/mcp?mode=lying-tool-schema', rpc('tools/call', { name: 'echo', arguments: { text: 'x' } }))).body) as Json;
  t.same(byTruth.result.content, [{ type: 'text', text: 'x' }], 'one that breaks it works');

  const note = await post(port, '/mcp', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  t.equal(note.res.status, 202);
  const broken = await post(port, '/mcp', '{');
  t.equal(broken.res.status, 400);
  t.equal((JSON.parse(broken.body) as Json).error.code, -32700);
  t.notOk(broken.res.headerLines.some(([n]) => /^x-chaos-/i.test(n)), 'a real error: no chaos line');
  t.equal((await post(port, '/mcp?mode=nope', rpc('ping', undefined))).res.status, 400);
});
