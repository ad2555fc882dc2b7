// Agent chaos (SPEC §4.1 "Agent chaos"): /semantic-drift, deterministic and
// with ai=true against a local chat-completions server, and its control twin.
// Chaos bytes are read on a raw socket; every URL a drifted document holds is
// requested on the running chaos server and must answer 404. Then the agent
// family of issue 13: the chat completion at /llm/v1/chat/completions and
// /mcp, chaos and control. Raw sockets, `Connection: close`, so each answer ends
// with the server's FIN and its exact bytes (and framing) can be checked.
import http, { type IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import t from 'tap';
import { LLM_MODES, LLM_PATH, MAX_LLM_BODY, LYING_ECHO_TOOL, MCP_STALE_VERSION } from '../../../shared/content/agent/index.js';
import { chaosEndpoints } from '../../../services/chaos/endpoints/index.js';
import { OVERLOADED_RETRY_AFTER, OVERLOADED_RETRY_AFTER_MS, RATE_LIMITED_RETRY_AFTER } from '../../../services/chaos/endpoints/agent/llm-chat-completions.js';
import { checkStructure, discoveryClients, discoveryConfig, localPath, SCHEMAS, urlsIn, type ChaosReply, type Doc, type Schema, type TapTest } from '../../helpers/discovery-documents.js';
import { get, parseHead, rawExchange, type ParsedResponse } from '../../helpers/raw.js';
import { startChaos, startHttp, testConfig } from '../../helpers/servers.js';

const config = discoveryConfig();
const BASE = config.urls.base;
const CONTROL = config.urls.control;

const chaos = await startChaos(t, { config });
const control = await startHttp(t, 'control', config);
const { chaosGet, controlFetch, expectResolving } = discoveryClients(chaos.port, control.port, CONTROL);

/** Capability claims: booleans, and the arrays that list what is supported. */
function capabilityClaims(doc: unknown): { booleans: boolean[]; lists: unknown[][] } {
  const booleans: boolean[] = [];
  const lists: unknown[][] = [];
  const LISTS = new Set(['defaultInputModes', 'defaultOutputModes', 'key_ops', 'skills']);
  const walk = (value: unknown, key: string): void => {
    if (typeof value === 'boolean') booleans.push(value);
    else if (Array.isArray(value)) {
      if (key.endsWith('_supported') || LISTS.has(key)) lists.push(value);
      for (const item of value) walk(item, key);
    } else if (value && typeof value === 'object') for (const [name, item] of Object.entries(value)) walk(item, name);
  };
  walk(doc, '');
  return { booleans, lists };
}

// --- /semantic-drift, deterministic ----------------------------------------

const CONTENT_TYPES: Record<Schema, string> = {
  'openid-configuration': 'application/json',
  'oauth-authorization-server': 'application/json',
  webfinger: 'application/jrd+json',
  jwks: 'application/jwk-set+json',
  'host-meta': 'application/json',
  'agent-card': 'application/json',
};

t.test('/semantic-drift: right shape, every URL dead, every capability false', async (t) => {
  for (const schema of SCHEMAS) {
    await t.test(schema, async (t) => {
      const { head, body, json } = await chaosGet(`/semantic-drift?schema=${schema}`);
      t.equal(head.status, 200);
      t.equal(head.header('content-type'), CONTENT_TYPES[schema]);
      t.equal(head.header('x-chaos-category'), 'agent');
      t.equal(head.header('x-chaos-endpoint'), '/semantic-drift');
      t.equal(head.header('x-chaos-drift'), 'semantic');
      t.equal(head.header('x-chaos-drift-schema'), schema);
      t.equal(head.header('x-chaos-ai-source'), undefined, 'no AI header without ai=true');
      t.equal(head.header('x-chaos-ai-fallback-reason'), undefined);
      checkStructure(t, schema, json);

      const urls = urlsIn(json);
      // A JWK Set links only through x5u; every other schema links a lot.
      t.ok(urls.length >= (schema === 'jwks' ? 1 : 3), `${schema} holds links (${urls.length})`);
      for (const url of urls) {
        const dead = await chaosGet(localPath(t, url, BASE));
        t.equal(dead.head.status, 404, `${url} answers 404 on the chaos host`);
      }

      const { booleans, lists } = capabilityClaims(json);
      t.ok(booleans.every((b) => b === false), 'every boolean is false');
      for (const list of lists) t.same(list, [], 'every supported-list is empty');
      if (schema !== 'webfinger' && schema !== 'host-meta') {
        t.ok(booleans.length + lists.length > 0, `${schema} makes capability claims`);
      }

      const again = await chaosGet(`/semantic-drift?schema=${schema}`);
      t.ok(again.body.equals(body), 'deterministic: the same bytes every call');
    });
  }
});

t.test('/semantic-drift: defaults, HEAD, the drifted JWK and the definitions', async (t) => {
  const byDefault = await chaosGet('/semantic-drift');
  t.equal(byDefault.head.header('x-chaos-drift-schema'), 'openid-configuration', 'default schema');
  t.ok(byDefault.body.equals((await chaosGet('/semantic-drift?schema=openid-configuration&ai=false')).body));

  const head = await chaosGet('/semantic-drift?schema=webfinger', chaos.port, 'HEAD');
  t.equal(head.head.status, 200);
  t.equal(head.head.rest.length, 0, 'HEAD: no body bytes');

  const jwks = (await chaosGet('/semantic-drift?schema=jwks')).json;
  const key = jwks.keys[0] as Doc;
  t.equal(Buffer.from(key.n as string, 'base64url').length, 256, 'a 2048-bit modulus in shape');
  t.same(key.key_ops, [], 'the key may be used for nothing');

  const seeded = chaosEndpoints.filter((e) => e.random === 'seeded').map((e) => e.id);
  for (const id of ['semantic-drift', 'openid-configuration', 'oauth-authorization-server', 'agent-card', 'oauth-protected-resource', 'agent-skills-index', 'mcp-server-card']) {
    t.ok(seeded.includes(id), `${id} is in the seeded /random pool`);
  }
});

t.test('/semantic-drift: bad input is a plain 400 without X-Chaos headers', async (t) => {
  for (const query of ['schema=nope', 'schema=', 'ai=maybe', 'schema=JWKS']) {
    const { head, json } = await chaosGet(`/semantic-drift?${query}`);
    t.equal(head.status, 400, query);
    t.notOk(head.headerLines.some(([name]) => /^x-chaos-/i.test(name)), `${query}: no X-Chaos-*`);
    t.equal(json.endpoint, '/semantic-drift');
    t.equal(json.error, 'invalid_parameter');
  }
});

// --- /semantic-drift?ai=true against a local chat-completions server -------

interface FakeModel {
  readonly baseUrl: string;
  readonly requests: { path: string; headers: IncomingHttpHeaders; body: Doc }[];
  /** Resolves when a request's socket closes before it was answered. */
  readonly aborted: Promise<void>;
}

type Behaviour = (res: http.ServerResponse, request: Doc) => void;

function chatAnswer(content: string): string {
  return JSON.stringify({
    id: 'chatcmpl-test',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  });
}

function answerWith(content: string): Behaviour {
  return (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(chatAnswer(content));
  };
}

async function fakeModel(t: TapTest, behaviour: Behaviour): Promise<FakeModel> {
  const requests: FakeModel['requests'] = [];
  let markAborted: () => void = () => undefined;
  const aborted = new Promise<void>((resolve) => (markAborted = resolve));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Doc;
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      res.on('close', () => {
        if (!res.writableFinished) markAborted();
      });
      behaviour(res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests, aborted };
}

async function chaosWithModel(t: TapTest, baseUrl: string, env: Record<string, string> = {}): Promise<number> {
  const modelConfig = testConfig({ AI_BASE_URL: baseUrl, AI_MODEL: 'test-model', AI_API_KEY: 'test-key', ...env });
  return (await startChaos(t, { config: modelConfig })).port;
}

/** The deterministic drift on a chaos server with this module's public URLs. */
async function deterministic(schema: Schema): Promise<Doc> {
  return (await chaosGet(`/semantic-drift?schema=${schema}`)).json;
}

/** A fresh, valid drift: the deterministic one with new names and paths. */
async function freshDrift(schema: Schema): Promise<Doc> {
  const prefix = `${BASE}/semantic-drift/void/${schema}`;
  const text = JSON.stringify(await deterministic(schema)).split(`${prefix}/`).join(`${prefix}/fresh-`);
  return { ...(JSON.parse(text) as Doc), ...(schema === 'agent-card' ? { name: 'Drifting Agent' } : {}) };
}

function expectFallback(t: TapTest, reply: ChaosReply, reason: string, expected: Doc): void {
  t.equal(reply.head.status, 200, 'never a 5xx');
  t.equal(reply.head.header('x-chaos-drift'), 'semantic');
  t.equal(reply.head.header('x-chaos-ai-source'), 'fallback');
  t.equal(reply.head.header('x-chaos-ai-fallback-reason'), reason);
  t.same(reply.json, expected, 'the deterministic drift is served');
}

t.test('ai=true: a valid model answer is served as it came, with X-Chaos-Ai-Source: ai', async (t) => {
  for (const schema of ['openid-configuration', 'agent-card'] as const) {
    const doc = await freshDrift(schema);
    const model = await fakeModel(t, answerWith(JSON.stringify(doc)));
    const port = await chaosWithModel(t, model.baseUrl);
    const reply = await chaosGet(`/semantic-drift?schema=${schema}&ai=true`, port);
    t.equal(reply.head.status, 200);
    t.equal(reply.head.header('x-chaos-ai-source'), 'ai');
    t.equal(reply.head.header('x-chaos-ai-fallback-reason'), undefined);
    t.equal(reply.head.header('x-chaos-drift'), 'semantic');
    t.equal(reply.head.header('content-type'), CONTENT_TYPES[schema]);
    t.same(reply.json, doc);
    t.notSame(reply.json, await deterministic(schema), 'not the deterministic drift');

    t.equal(model.requests.length, 1);
    const request = model.requests[0] as FakeModel['requests'][number];
    t.equal(request.path, '/v1/chat/completions');
    t.equal(request.headers.authorization, 'Bearer test-key');
    t.equal(request.body.model, 'test-model');
    t.same(
      (request.body.messages as Doc[]).map((m) => m.role),
      ['system', 'user'],
    );
    t.match((request.body.messages as Doc[])[1]?.content, `${BASE}/semantic-drift/void/${schema}/`, 'the prompt names the dead prefix');
  }
});

t.test('ai=true: an answer wrapped in a code fence is accepted', async (t) => {
  const doc = await freshDrift('jwks');
  const model = await fakeModel(t, answerWith(`\`\`\`json\n${JSON.stringify(doc, null, 2)}\n\`\`\``));
  const reply = await chaosGet('/semantic-drift?schema=jwks&ai=true', await chaosWithModel(t, model.baseUrl));
  t.equal(reply.head.header('x-chaos-ai-source'), 'ai');
  t.same(reply.json, doc);
});

t.test('ai=true: answers that are not a drifted document fall back with invalid-json', async (t) => {
  const good = await freshDrift('openid-configuration');
  const expected = await deterministic('openid-configuration');
  const cases: Record<string, string> = {
    'not JSON': 'Sure! Here is the document: {"issuer":',
    'not an object': '["issuer"]',
    'a required member missing': JSON.stringify({ ...good, jwks_uri: undefined }),
    'a member of the wrong type': JSON.stringify({ ...good, response_types_supported: 'code' }),
    'a live URL': JSON.stringify({ ...good, token_endpoint: 'https://accounts.example.com/token' }),
    'a true capability': JSON.stringify({ ...good, claims_parameter_supported: true }),
    'a non-empty supported list': JSON.stringify({ ...good, grant_types_supported: ['authorization_code'] }),
    // Valid JSON nested 5000 levels deep: refused by depth, never a stack overflow and a 5xx.
    'nested 5000 levels deep': JSON.stringify(good).replace(/}$/, `,"extra":${'['.repeat(5000)}${']'.repeat(5000)}}`),
    'nested 5000 objects deep': JSON.stringify(good).replace(/}$/, `,"extra":${'{"a":'.repeat(5000)}false${'}'.repeat(5000)}}`),
    // Links a client could follow to a live third party, and a truthy string.
    'a scheme-relative URL': JSON.stringify({ ...good, authorization_endpoint: '//evil.example/authorize' }),
    'a URL after a space': JSON.stringify({ ...good, service_documentation: ' https://evil.example/docs' }),
    'a URL without slashes': JSON.stringify({ ...good, registration_endpoint: 'https:evil.example/register' }),
    'a javascript: URL': JSON.stringify({ ...good, op_policy_uri: 'javascript:alert(1)' }),
    'a URL inside text': JSON.stringify({ ...good, op_tos_uri: 'see https://evil.example/tos' }),
    'the string "true"': JSON.stringify({ ...good, claims_parameter_supported: 'true' }),
  };
  for (const [name, content] of Object.entries(cases)) {
    const model = await fakeModel(t, answerWith(content));
    const reply = await chaosGet('/semantic-drift?ai=true', await chaosWithModel(t, model.baseUrl));
    t.test(name, async (t) => expectFallback(t, reply, 'invalid-json', expected));
  }
});

t.test('ai=true: model errors fall back with ai-error', async (t) => {
  const expected = await deterministic('host-meta');
  const behaviours: Record<string, Behaviour> = {
    'HTTP 500': (res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"boom"}}');
    },
    'HTTP 429': (res) => {
      res.writeHead(429, { 'retry-after': '1' });
      res.end();
    },
    'not a chat-completions body': (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"result":"ok"}');
    },
    'an answer too large': (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(chatAnswer('x'.repeat(300 * 1024)));
    },
    'a reset mid-answer': (res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"choices":');
      setTimeout(() => res.socket?.destroy(), 20);
    },
  };
  for (const [name, behaviour] of Object.entries(behaviours)) {
    const model = await fakeModel(t, behaviour);
    const reply = await chaosGet('/semantic-drift?schema=host-meta&ai=true', await chaosWithModel(t, model.baseUrl));
    t.test(name, async (t) => expectFallback(t, reply, 'ai-error', expected));
  }

  // Nothing listens on the port any more.
  const gone = await fakeModel(t, answerWith('{}'));
  const refusedBase = gone.baseUrl.replace(/:\d+\//, ':1/');
  const reply = await chaosGet('/semantic-drift?schema=host-meta&ai=true', await chaosWithModel(t, refusedBase));
  expectFallback(t, reply, 'ai-error', expected);
});

t.test('ai=true: a slow model is cut at AI_TIMEOUT_MS and the drift served with timeout', async (t) => {
  const doc = await freshDrift('webfinger');
  const model = await fakeModel(t, (res) => {
    const timer = setTimeout(() => answerWith(JSON.stringify(doc))(res, {}), 3000);
    res.on('close', () => clearTimeout(timer));
  });
  const port = await chaosWithModel(t, model.baseUrl, { AI_TIMEOUT_MS: '200' });
  const started = performance.now();
  const reply = await chaosGet('/semantic-drift?schema=webfinger&ai=true', port);
  const elapsed = performance.now() - started;
  expectFallback(t, reply, 'timeout', await deterministic('webfinger'));
  t.ok(elapsed >= 150 && elapsed < 2500, `answered after the bound, long before the model (${Math.round(elapsed)} ms)`);
  await model.aborted;
  t.pass('the model call was cancelled');
});

t.test('ai=true: the daily budget is shared and spent one call at a time', async (t) => {
  const doc = await freshDrift('openid-configuration');
  const model = await fakeModel(t, answerWith(JSON.stringify(doc)));
  const port = await chaosWithModel(t, model.baseUrl, { AI_DAILY_BUDGET: '1' });
  const first = await chaosGet('/semantic-drift?ai=true', port);
  t.equal(first.head.header('x-chaos-ai-source'), 'ai', 'the first call spends the budget');
  const second = await chaosGet('/semantic-drift?ai=true', port);
  expectFallback(t, second, 'budget-exhausted', await deterministic('openid-configuration'));
  t.equal(model.requests.length, 1, 'the model is not asked once the budget is spent');

  const none = await fakeModel(t, answerWith(JSON.stringify(doc)));
  const zero = await chaosGet('/semantic-drift?ai=true', await chaosWithModel(t, none.baseUrl, { AI_DAILY_BUDGET: '0' }));
  expectFallback(t, zero, 'budget-exhausted', await deterministic('openid-configuration'));
  t.equal(none.requests.length, 0);
});

t.test('ai=true without a configured model: ai-disabled', async (t) => {
  const expected = await deterministic('agent-card');
  expectFallback(t, await chaosGet('/semantic-drift?schema=agent-card&ai=true'), 'ai-disabled', expected);
  const model = await fakeModel(t, answerWith('{}'));
  const noModel = (await startChaos(t, { config: testConfig({ AI_BASE_URL: model.baseUrl }) })).port;
  expectFallback(t, await chaosGet('/semantic-drift?schema=agent-card&ai=true', noModel), 'ai-disabled', expected);
  t.equal(model.requests.length, 0);
});

// A reset is a client that gave up. (A half-close is not: the chaos host keeps
// serving a request whose sender only shut its write side, and answers it.)
t.test('ai=true: a client that resets cancels the model call; the server carries on', async (t) => {
  const model = await fakeModel(t, () => {
    /* never answers */
  });
  const port = await chaosWithModel(t, model.baseUrl);
  const socket = net.connect(port, '127.0.0.1');
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.on('error', () => undefined);
  socket.write(get('/semantic-drift?ai=true'));
  for (let i = 0; i < 300 && model.requests.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  t.equal(model.requests.length, 1, 'the model was asked');
  t.equal(Buffer.concat(received).length, 0, 'nothing was written while the model was thinking');
  const started = performance.now();
  socket.resetAndDestroy();
  await model.aborted;
  t.ok(performance.now() - started < 5000, 'cancelled by the reset, not by the 10 s bound');
  t.pass('the model request was aborted');
  const after = await chaosGet('/semantic-drift?schema=jwks', port);
  t.equal(after.head.status, 200, 'the server still answers');
});

// --- Control twin ----------------------------------------------------------

t.test('control /semantic-drift: the consistent document of each schema', async (t) => {
  const wellKnown: Partial<Record<Schema, string>> = {
    'openid-configuration': '/.well-known/openid-configuration',
    'oauth-authorization-server': '/.well-known/oauth-authorization-server',
    jwks: '/.well-known/jwks.json',
    'agent-card': '/.well-known/agent-card.json',
  };
  for (const schema of SCHEMAS) {
    await t.test(schema, async (t) => {
      const res = await controlFetch(`/semantic-drift?schema=${schema}&ai=true`);
      t.equal(res.status, 200);
      t.equal(res.headers.get('content-type'), CONTENT_TYPES[schema]);
      t.equal(res.headers.get('x-chaos-origin'), 'control');
      t.equal(res.headers.get('x-chaos-counterpart'), `${BASE}/semantic-drift?schema=${schema}&ai=true`);
      t.equal(res.headers.get('x-chaos-ai-source'), null, 'the control host never calls a model');
      const text = await res.text();
      const doc = JSON.parse(text) as Doc;
      checkStructure(t, schema, doc);
      // The control JWK Set has no x5u: its key is inline.
      await expectResolving(t, doc, schema !== 'jwks');
      if (doc.issuer !== undefined) t.equal(doc.issuer, CONTROL, 'one issuer: this host');
      const path = wellKnown[schema];
      if (path) t.equal(text, await (await controlFetch(path)).text(), `same bytes as ${path}`);
      const drift = (await chaosGet(`/semantic-drift?schema=${schema}`)).json;
      t.same(Object.keys(drift).filter((k) => k in doc), Object.keys(doc).filter((k) => k in drift), 'shared members in the same order');
    });
  }
  const bad = await controlFetch('/semantic-drift?schema=nope');
  t.equal(bad.status, 400, 'bad input: 400 on the control host too');
  await bad.arrayBuffer();
});

// ---------------------------------------------------------------- the chat completion and /mcp

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

// The control /mcp (a session server now) is tested in mcp-transport.test.ts and mcp-sdk.test.ts.

t.test('chaos /mcp: each JSON mode breaks its rule', async (t) => {
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
