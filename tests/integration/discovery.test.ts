// Agent and discovery chaos (SPEC §4.1 "Agent chaos", "Discovery documents
// with conflicting claims") and their control twins. Chaos bytes are read on a
// raw socket; every URL a drifted document holds is requested on the running
// chaos server and must answer 404; every URL a control document holds is
// requested on the running control server and must answer.
import { execFile } from 'node:child_process';
import { createHash, createPublicKey } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import t from 'tap';
import { chaosEndpoints } from '../../services/chaos/endpoints/index.js';
import { loadConfig, type Config } from '../../shared/config/config.js';
import { HttpService } from '../../shared/http/http-service.js';
import { createLogger } from '../../shared/config/log.js';
import { MemoryStore } from '../../shared/store/memory.js';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from '../helpers/raw.js';
import { freePorts, startChaos, startHttp, stopAtTeardown, testConfig } from '../helpers/servers.js';
import { serviceRegistries } from '../../services/registries.js';

/** A subtest's `t` (the last overload of t.test takes just the callback). */
type TapTest = Parameters<Parameters<typeof t.test>[0]>[0];

// Parsed JSON documents: tests walk them freely.
type Doc = Record<string, any>;

const SCHEMAS = ['openid-configuration', 'oauth-authorization-server', 'webfinger', 'jwks', 'host-meta', 'agent-card'] as const;
type Schema = (typeof SCHEMAS)[number];

// Distinct public hosts, so every claim can be told apart.
const config = testConfig({ PUBLIC_IDENTITY_URL: 'http://identity.test:8080', PUBLIC_AGENTS_URL: 'http://agents.test:8080' });
const BASE = config.urls.base;
const CONTROL = config.urls.control;

const chaos = await startChaos(t, { config });
const control = await startHttp(t, 'control', config);

interface ChaosReply {
  readonly head: ParsedResponse;
  readonly body: Buffer;
  readonly json: Doc;
}

async function chaosGet(path: string, port: number = chaos.port, method = 'GET'): Promise<ChaosReply> {
  const headOnly = (data: Buffer): boolean => data.includes('\r\n\r\n');
  const result = await rawExchange(port, get(path, {}, method), { until: method === 'HEAD' ? headOnly : completeByLength, timeoutMs: 8000 });
  const head = parseHead(result.data);
  const length = Number(head.header('content-length'));
  const body = method === 'HEAD' ? Buffer.alloc(0) : head.rest.subarray(0, length);
  let json: Doc = {};
  try {
    json = JSON.parse(body.toString('utf8')) as Doc;
  } catch {
    /* not every answer is JSON (the 404 catalog is HTML) */
  }
  return { head, body, json };
}

async function controlFetch(path: string, init?: RequestInit): Promise<Response> {
  return fetch(`http://127.0.0.1:${control.port}${path}`, init);
}

/** Path and query of `url`, after checking it names `origin`. */
function localPath(t: TapTest, url: string, origin: string): string {
  const u = new URL(url.replace('{uri}', encodeURIComponent('acct:someone@chaos.test')));
  t.equal(u.origin, new URL(origin).origin, `${url} is on ${origin}`);
  return u.pathname + u.search;
}

/** Every http(s) string in a document, except relation types and schema identifiers (names of specifications, not links). */
function urlsIn(doc: unknown): string[] {
  const out: string[] = [];
  const walk = (value: unknown, key: string): void => {
    if (typeof value === 'string') {
      if (key !== 'rel' && key !== '$schema' && /^https?:\/\//.test(value)) out.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, key);
    } else if (value && typeof value === 'object') {
      for (const [name, item] of Object.entries(value)) walk(item, name);
    }
  };
  walk(doc, '');
  return out;
}

/** Each JSON-RPC call to the control host. */
async function rpc(path: string, message: unknown): Promise<{ status: number; json: Doc; text: string }> {
  const res = await controlFetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: typeof message === 'string' ? message : JSON.stringify(message),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Doc) : {}, text };
}

function curl(args: readonly string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    execFile('curl', args, { encoding: 'utf8', timeout: 10_000 }, (error, stdout) => {
      if (error && typeof error.code !== 'number') {
        reject(error);
        return;
      }
      resolve({ code: error ? Number(error.code) : 0, stdout });
    });
  });
}

function sha256(bytes: Buffer | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

// --- Structure of each schema, checked against the specifications ----------

const isStringArray = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');

function checkStructure(t: TapTest, schema: Schema, doc: Doc): void {
  const strings = (names: string[]): void => {
    for (const name of names) t.type(doc[name], 'string', `${schema}: ${name} is a string`);
  };
  const stringArrays = (names: string[]): void => {
    for (const name of names) t.ok(isStringArray(doc[name]), `${schema}: ${name} is an array of strings`);
  };
  switch (schema) {
    case 'openid-configuration':
      // OpenID Connect Discovery 1.0 §3: REQUIRED members.
      strings(['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri']);
      stringArrays(['response_types_supported', 'subject_types_supported', 'id_token_signing_alg_values_supported']);
      break;
    case 'oauth-authorization-server':
      // RFC 8414 §2.
      strings(['issuer', 'authorization_endpoint', 'token_endpoint']);
      stringArrays(['response_types_supported']);
      break;
    case 'webfinger':
      // RFC 7033 §4.4: subject, aliases, links (each with rel).
      strings(['subject']);
      if (doc.aliases !== undefined) stringArrays(['aliases']);
      t.ok(Array.isArray(doc.links) && doc.links.length > 0, 'links');
      for (const link of doc.links as Doc[]) {
        t.type(link.rel, 'string', 'link rel');
        if (link.href !== undefined) t.type(link.href, 'string', 'link href');
      }
      break;
    case 'jwks':
      // RFC 7517 §5: keys, each with kty; RFC 7518 §6.3.1: RSA keys carry n and e.
      t.ok(Array.isArray(doc.keys) && doc.keys.length > 0, 'keys');
      for (const key of doc.keys as Doc[]) {
        t.type(key.kty, 'string', 'kty');
        if (key.kty === 'RSA') {
          t.match(key.n, /^[A-Za-z0-9_-]+$/, 'n is base64url');
          t.match(key.e, /^[A-Za-z0-9_-]+$/, 'e is base64url');
        }
        if (key.key_ops !== undefined) t.ok(isStringArray(key.key_ops), 'key_ops');
      }
      break;
    case 'host-meta':
      // RFC 6415 Appendix A (JRD): links with rel and href or template.
      t.ok(Array.isArray(doc.links) && doc.links.length > 0, 'links');
      for (const link of doc.links as Doc[]) {
        t.type(link.rel, 'string', 'link rel');
        t.ok(typeof link.href === 'string' || typeof link.template === 'string', 'href or template');
      }
      break;
    case 'agent-card':
      // A2A 0.3 AgentCard required members.
      strings(['protocolVersion', 'name', 'description', 'url', 'version']);
      t.ok(doc.capabilities && typeof doc.capabilities === 'object' && !Array.isArray(doc.capabilities), 'capabilities object');
      stringArrays(['defaultInputModes', 'defaultOutputModes']);
      t.ok(Array.isArray(doc.skills), 'skills array');
      for (const skill of doc.skills as Doc[]) {
        for (const name of ['id', 'name', 'description']) t.type(skill[name], 'string', `skill ${name}`);
        t.ok(isStringArray(skill.tags), 'skill tags');
      }
      break;
  }
}

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

// --- Discovery documents with conflicting claims --------------------------

function expectGroup(t: TapTest, head: ParsedResponse, path: string): void {
  t.equal(head.status, 200);
  t.equal(head.header('content-type'), 'application/json');
  t.equal(head.header('x-chaos-category'), 'discovery');
  t.equal(head.header('x-chaos-endpoint'), path);
  t.equal(head.header('x-chaos-conflict-group'), 'conflicting-discovery');
  t.ok(head.headerLines.some(([name]) => /^x-chaos-claims-/i.test(name)), 'an X-Chaos-Claims-* header');
  t.equal(head.header('access-control-allow-origin'), '*');
}

t.test('openid-configuration and oauth-authorization-server name different issuers, neither this host', async (t) => {
  const oidc = await chaosGet('/.well-known/openid-configuration');
  expectGroup(t, oidc.head, '/.well-known/openid-configuration');
  checkStructure(t, 'openid-configuration', oidc.json);
  t.equal(oidc.json.issuer, config.urls.hub);
  t.equal(oidc.head.header('x-chaos-claims-issuer'), config.urls.hub);
  for (const name of ['authorization_endpoint', 'token_endpoint', 'jwks_uri']) {
    t.ok((oidc.json[name] as string).startsWith(`${config.urls.hub}/`), `${name} is under the issuer: individually valid`);
  }
  t.ok((oidc.json.id_token_signing_alg_values_supported as string[]).includes('RS256'), 'RS256 listed, as OIDC requires');

  const as = await chaosGet('/.well-known/oauth-authorization-server');
  expectGroup(t, as.head, '/.well-known/oauth-authorization-server');
  checkStructure(t, 'oauth-authorization-server', as.json);
  t.equal(as.json.issuer, config.urls.identity);
  t.equal(as.head.header('x-chaos-claims-issuer'), config.urls.identity);
  for (const name of ['authorization_endpoint', 'token_endpoint', 'jwks_uri']) {
    t.ok((as.json[name] as string).startsWith(`${config.urls.identity}/`), `${name} is under the issuer`);
  }

  t.not(oidc.json.issuer, as.json.issuer, 'the two documents contradict each other');
  t.not(oidc.json.issuer, BASE, 'OpenID issuer is not the host it was fetched from');
  t.not(as.json.issuer, BASE, 'RFC 8414 §3.3: issuer is not the host it was fetched from');
});

t.test('agent card (and its agent.json alias) names the agents host', async (t) => {
  const card = await chaosGet('/.well-known/agent-card.json');
  expectGroup(t, card.head, '/.well-known/agent-card.json');
  checkStructure(t, 'agent-card', card.json);
  t.equal(card.json.url, `${config.urls.agents}/echo`);
  t.equal(card.head.header('x-chaos-claims-agent-url'), `${config.urls.agents}/echo`);
  t.ok((card.json.skills as Doc[]).length > 0 && (card.json.defaultInputModes as string[]).length > 0, 'a usable card otherwise');
  const alias = await chaosGet('/.well-known/agent.json');
  t.equal(alias.head.status, 200);
  t.ok(alias.body.equals(card.body), 'the alias serves the same bytes');
  t.equal(alias.head.header('x-chaos-claims-agent-url'), `${config.urls.agents}/echo`);
});

t.test('oauth-protected-resource modes', async (t) => {
  const path = '/.well-known/oauth-protected-resource';
  const byDefault = await chaosGet(path);
  expectGroup(t, byDefault.head, path);
  t.equal(byDefault.head.header('x-chaos-protected-resource-mode'), 'issuer-mismatch', 'default mode');
  t.ok(byDefault.head.header('x-chaos-protected-resource-note'), 'a note');
  t.equal(byDefault.json.resource, BASE, 'resource matches the URL it was fetched for');
  t.same(byDefault.json.authorization_servers, [BASE]);
  t.equal(byDefault.head.header('x-chaos-claims-authorization-servers'), BASE);
  // Following RFC 9728 then RFC 8414 from here reaches a document naming another issuer.
  const as = await chaosGet('/.well-known/oauth-authorization-server');
  const oidc = await chaosGet('/.well-known/openid-configuration');
  t.not(as.json.issuer, BASE, 'the named server describes another issuer');
  t.not(oidc.json.issuer, BASE);

  const mismatch = await chaosGet(`${path}?mode=resource-mismatch`);
  expectGroup(t, mismatch.head, path);
  t.equal(mismatch.json.resource, `${BASE}/mcp`);
  t.not(mismatch.json.resource, BASE, 'RFC 9728 §3.3: resource differs from the one the URL was built from');
  t.equal(mismatch.head.header('x-chaos-claims-resource'), `${BASE}/mcp`);

  const dead = await chaosGet(`${path}?mode=dead-authorization-server`);
  expectGroup(t, dead.head, path);
  const issuer = (dead.json.authorization_servers as string[])[0] as string;
  t.equal(dead.head.header('x-chaos-claims-authorization-servers'), issuer);
  const issuerPath = localPath(t, issuer, BASE);
  t.equal((await chaosGet(`/.well-known/oauth-authorization-server${issuerPath}`)).head.status, 404, 'RFC 8414 metadata URL is dead');
  t.equal((await chaosGet(`${issuerPath}/.well-known/openid-configuration`)).head.status, 404, 'OpenID metadata URL is dead');

  for (const mode of ['issuer-mismatch', 'resource-mismatch', 'dead-authorization-server']) {
    const reply = await chaosGet(`${path}?mode=${mode}`);
    t.equal(reply.head.header('x-chaos-protected-resource-mode'), mode);
    t.type(reply.json.resource, 'string');
    t.ok(isStringArray(reply.json.authorization_servers), 'authorization_servers');
  }
});

t.test('agent-skills index modes', async (t) => {
  const path = '/.well-known/agent-skills/index.json';
  const skillOf = (doc: Doc): Doc => (doc.skills as Doc[])[0] as Doc;
  const structure = (t: TapTest, doc: Doc): void => {
    t.ok(Array.isArray(doc.skills) && doc.skills.length === 1, 'one skill');
    const skill = skillOf(doc);
    for (const name of ['name', 'type', 'description', 'url', 'digest']) t.type(skill[name], 'string', name);
    t.match(skill.name, /^[a-z0-9]+(-[a-z0-9]+)*$/, 'an Agent Skills name');
    t.match(skill.digest, /^sha256:[0-9a-f]{64}$/);
  };
  const controlSkill = await controlFetch('/.well-known/agent-skills/echo-agent/SKILL.md');
  const skillBytes = Buffer.from(await controlSkill.arrayBuffer());
  t.equal(controlSkill.status, 200);

  const byDefault = await chaosGet(path);
  expectGroup(t, byDefault.head, path);
  t.equal(byDefault.head.header('x-chaos-skills-mode'), 'bad-digest', 'default mode');

  const bad = await chaosGet(`${path}?mode=bad-digest`);
  structure(t, bad.json);
  t.ok(bad.body.equals(byDefault.body));
  t.equal(bad.json.$schema, 'https://schemas.agentskills.io/discovery/0.2.0/schema.json');
  t.equal(localPath(t, skillOf(bad.json).url, CONTROL), '/.well-known/agent-skills/echo-agent/SKILL.md', 'the url answers (on control)');
  t.not(skillOf(bad.json).digest, sha256(skillBytes), 'the digest does not match the bytes served');
  t.equal(skillOf(bad.json).digest, sha256(Buffer.concat([skillBytes, Buffer.from('\n')])), 'it hashes one extra newline');
  t.equal(bad.head.header('x-chaos-claims-digest'), skillOf(bad.json).digest);

  const missing = await chaosGet(`${path}?mode=missing-schema`);
  expectGroup(t, missing.head, path);
  structure(t, missing.json);
  t.notOk('$schema' in missing.json, 'no $schema');
  t.equal(skillOf(missing.json).digest, sha256(skillBytes), 'only the schema reference is wrong');
  t.equal(missing.head.header('x-chaos-claims-schema'), 'none');

  const dead = await chaosGet(`${path}?mode=skill-404`);
  expectGroup(t, dead.head, path);
  structure(t, dead.json);
  const deadUrl = skillOf(dead.json).url as string;
  t.equal((await chaosGet(localPath(t, deadUrl, BASE))).head.status, 404, 'the skill url answers 404');
  t.equal(dead.head.header('x-chaos-claims-skill-url'), deadUrl);

  const stale = await chaosGet(`${path}?mode=stale-version`);
  expectGroup(t, stale.head, path);
  structure(t, stale.json);
  t.equal(stale.json.$schema, 'https://schemas.agentskills.io/discovery/0.1.0/schema.json', 'declares the 0.1.0 draft');
  t.notOk('files' in skillOf(stale.json) || 'path' in skillOf(stale.json), 'while using the 0.2.0 fields, not 0.1 ones');
  t.equal(stale.head.header('x-chaos-claims-schema'), stale.json.$schema);

  for (const mode of ['bad-digest', 'missing-schema', 'skill-404', 'stale-version']) {
    const reply = await chaosGet(`${path}?mode=${mode}`);
    t.equal(reply.head.header('x-chaos-skills-mode'), mode);
    t.ok((reply.head.header('x-chaos-skills-note') ?? '').length > 10, 'a note');
  }
});

t.test('MCP server card modes', async (t) => {
  const path = '/.well-known/mcp/server-card.json';
  const identity = (t: TapTest, doc: Doc): void => {
    for (const name of ['$schema', 'name', 'version', 'description']) t.type(doc[name], 'string', name);
  };
  const byDefault = await chaosGet(path);
  expectGroup(t, byDefault.head, path);
  t.equal(byDefault.head.header('x-chaos-mcp-mode'), 'missing-transport', 'default mode');
  identity(t, byDefault.json);
  t.notOk('remotes' in byDefault.json, 'no transport at all');
  t.equal(byDefault.head.header('x-chaos-claims-transport'), 'none');

  const mismatch = await chaosGet(`${path}?mode=version-mismatch`);
  expectGroup(t, mismatch.head, path);
  identity(t, mismatch.json);
  const remote = (mismatch.json.remotes as Doc[])[0] as Doc;
  t.equal(remote.type, 'streamable-http');
  t.same(remote.supportedProtocolVersions, ['2024-11-05']);
  t.equal(mismatch.head.header('x-chaos-claims-protocol-version'), '2024-11-05');
  const init = await rpc(localPath(t, remote.url, CONTROL), {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
  });
  t.equal(init.status, 200, 'the endpoint exists');
  t.notOk(
    (remote.supportedProtocolVersions as string[]).includes(init.json.result.protocolVersion),
    `the endpoint negotiates ${String(init.json.result.protocolVersion)}, which the card does not list`,
  );

  const dead = await chaosGet(`${path}?mode=transport-404`);
  expectGroup(t, dead.head, path);
  const deadUrl = ((dead.json.remotes as Doc[])[0] as Doc).url as string;
  t.equal((await chaosGet(localPath(t, deadUrl, BASE))).head.status, 404, 'GET on the transport: 404');
  t.equal((await chaosGet(localPath(t, deadUrl, BASE), chaos.port, 'POST')).head.status, 404, 'POST too');
  t.equal(dead.head.header('x-chaos-claims-transport'), deadUrl);

  const invalid = await chaosGet(`${path}?mode=invalid-schema`);
  expectGroup(t, invalid.head, path);
  t.equal(invalid.head.header('x-chaos-claims-schema'), invalid.json.$schema);
  t.notMatch(invalid.json.name, /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/, 'name breaks the namespace/name pattern');
  t.match(invalid.json.version, /^[\^~]/, 'version is a range, which the schema rejects');
  t.notOk(['streamable-http', 'sse'].includes(((invalid.json.remotes as Doc[])[0] as Doc).type), 'an unknown transport type');

  for (const mode of ['missing-transport', 'version-mismatch', 'transport-404', 'invalid-schema']) {
    const reply = await chaosGet(`${path}?mode=${mode}`);
    t.equal(reply.head.header('x-chaos-mcp-mode'), mode);
    t.ok((reply.head.header('x-chaos-mcp-note') ?? '').length > 10, 'a note');
  }
});

t.test('discovery modes: unknown values are a plain 400', async (t) => {
  for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/agent-skills/index.json', '/.well-known/mcp/server-card.json']) {
    const { head, json } = await chaosGet(`${path}?mode=nope`);
    t.equal(head.status, 400, path);
    t.notOk(head.headerLines.some(([name]) => /^x-chaos-/i.test(name)), 'no X-Chaos-*');
    t.equal(json.param, 'mode');
  }
});

// --- Control twins ---------------------------------------------------------

/** Every link in a control document answers on the control host; documents answer 200. */
async function expectResolving(t: TapTest, doc: Doc, links = true): Promise<void> {
  const urls = urlsIn(doc);
  if (links) t.ok(urls.length > 0, 'the document links somewhere');
  for (const url of urls) {
    const res = await controlFetch(localPath(t, url, CONTROL));
    await res.arrayBuffer();
    t.not(res.status, 404, `${url} answers on the control host (${res.status})`);
  }
}

async function controlJson(t: TapTest, path: string): Promise<{ res: Response; doc: Doc }> {
  const res = await controlFetch(path);
  const doc = (await res.json()) as Doc;
  t.equal(res.status, 200, path);
  t.equal(res.headers.get('x-chaos-origin'), 'control');
  t.equal(res.headers.get('x-chaos-counterpart'), BASE + path.replace(/\?.*$/, '') + (path.includes('?') ? path.slice(path.indexOf('?')) : ''));
  t.equal(res.headers.get('access-control-allow-origin'), '*');
  return { res, doc };
}

t.test('control: one issuer (this host) across OpenID, RFC 8414 and RFC 9728', async (t) => {
  const { doc: oidc } = await controlJson(t, '/.well-known/openid-configuration');
  const { doc: as } = await controlJson(t, '/.well-known/oauth-authorization-server');
  const { doc: pr } = await controlJson(t, '/.well-known/oauth-protected-resource');
  checkStructure(t, 'openid-configuration', oidc);
  checkStructure(t, 'oauth-authorization-server', as);
  t.equal(oidc.issuer, CONTROL);
  t.equal(as.issuer, CONTROL);
  t.equal(pr.resource, CONTROL, 'the resource is the URL the metadata was fetched for');
  t.same(pr.authorization_servers, [CONTROL]);
  for (const name of ['authorization_endpoint', 'token_endpoint', 'jwks_uri']) t.equal(oidc[name], as[name], `${name} agrees`);
  t.ok((oidc.id_token_signing_alg_values_supported as string[]).includes('RS256'));
  for (const doc of [oidc, as, pr]) await expectResolving(t, doc);
  t.same((await controlJson(t, '/.well-known/oauth-protected-resource?mode=resource-mismatch')).doc, pr, 'mode is accepted for parity only');
});

t.test('control: the JWKS key is a real RSA key with an RFC 7638 kid', async (t) => {
  const res = await controlFetch('/.well-known/jwks.json');
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/jwk-set+json');
  const doc = (await res.json()) as Doc;
  checkStructure(t, 'jwks', doc);
  const key = (doc.keys as Doc[])[0] as Doc;
  const imported = createPublicKey({ key: { kty: key.kty, n: key.n, e: key.e }, format: 'jwk' });
  t.equal(imported.asymmetricKeyType, 'rsa');
  t.equal(imported.asymmetricKeyDetails?.modulusLength, 2048);
  const thumbprint = createHash('sha256').update(JSON.stringify({ e: key.e, kty: 'RSA', n: key.n })).digest('base64url');
  t.equal(key.kid, thumbprint);
  t.equal(key.alg, 'RS256');
});

t.test('control: the OAuth endpoints exist and refuse honestly', async (t) => {
  const authorize = await controlFetch('/oauth/authorize?response_type=code&client_id=x');
  t.equal(authorize.status, 400);
  t.equal(((await authorize.json()) as Doc).error, 'invalid_request');
  t.equal(authorize.headers.get('cache-control'), 'no-store');
  const tokenGet = await controlFetch('/oauth/token');
  t.equal(tokenGet.status, 405);
  t.equal(tokenGet.headers.get('allow'), 'POST');
  await tokenGet.arrayBuffer();
  const token = await controlFetch('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=authorization_code&code=x',
  });
  t.equal(token.status, 400);
  t.equal(((await token.json()) as Doc).error, 'invalid_client');
  t.equal(token.headers.get('cache-control'), 'no-store');
});

t.test('control: the agent card names the echo agent, which answers message/send', async (t) => {
  const { doc: card } = await controlJson(t, '/.well-known/agent-card.json');
  checkStructure(t, 'agent-card', card);
  t.equal(card.url, `${CONTROL}/echo`);
  const alias = await controlFetch('/.well-known/agent.json');
  t.same(await alias.json(), card, 'agent.json alias');
  await expectResolving(t, card);

  const echoPath = localPath(t, card.url, CONTROL);
  const sent = await rpc(echoPath, {
    jsonrpc: '2.0',
    id: 'req-1',
    method: 'message/send',
    params: { message: { role: 'user', messageId: 'm-1', contextId: 'c-1', parts: [{ kind: 'text', text: 'hello' }, { kind: 'data', data: {} }] } },
  });
  t.equal(sent.status, 200);
  t.same(sent.json, {
    jsonrpc: '2.0',
    id: 'req-1',
    result: { kind: 'message', role: 'agent', messageId: 'echo-m-1', parts: [{ kind: 'text', text: 'hello' }], contextId: 'c-1' },
  });
  t.equal((await rpc(echoPath, { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: {} })).json.error.code, -32601);
  t.equal((await rpc(echoPath, { jsonrpc: '2.0', id: 3, method: 'message/send', params: {} })).json.error.code, -32602);
  const noText = await rpc(echoPath, {
    jsonrpc: '2.0',
    id: 4,
    method: 'message/send',
    params: { message: { role: 'user', messageId: 'm', parts: [{ kind: 'file', file: { uri: 'x' } }] } },
  });
  t.equal(noText.json.error.code, -32005, 'A2A ContentTypeNotSupportedError');
  t.equal((await rpc(echoPath, '{not json')).json.error.code, -32700);
  t.equal((await rpc(echoPath, [{ jsonrpc: '2.0', id: 1, method: 'message/send' }])).json.error.code, -32600);
  const huge = await rpc(echoPath, `{"jsonrpc":"2.0","id":1,"method":"message/send","params":"${'x'.repeat(70 * 1024)}"}`);
  t.equal(huge.status, 413);
  const getEcho = await controlFetch(echoPath);
  t.equal(getEcho.status, 405);
  await getEcho.arrayBuffer();
});

t.test('control: the skills index lists a skill whose bytes match its digest', async (t) => {
  const { doc: index } = await controlJson(t, '/.well-known/agent-skills/index.json');
  t.equal(index.$schema, 'https://schemas.agentskills.io/discovery/0.2.0/schema.json');
  const skill = (index.skills as Doc[])[0] as Doc;
  t.equal(skill.type, 'skill-md');
  const res = await controlFetch(localPath(t, skill.url, CONTROL));
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'text/markdown; charset=utf-8');
  const bytes = Buffer.from(await res.arrayBuffer());
  t.equal(skill.digest, sha256(bytes), 'digest matches');
  const front = /^---\nname: ([a-z0-9-]+)\ndescription: (.+)\n---\n/.exec(bytes.toString('utf8'));
  t.ok(front, 'YAML front matter with name and description');
  t.equal(front?.[1], skill.name, 'name matches the index');
  await expectResolving(t, index);
  // The links inside the skill file answer too.
  const links = (bytes.toString('utf8').match(/https?:\/\/[^\s`)]+/g) ?? []).map((url) => url.replace(/[:.,]+$/, ''));
  t.equal(links.length, 2, 'the agent card and the agent');
  for (const url of links) {
    const linked = await controlFetch(localPath(t, url, CONTROL));
    await linked.arrayBuffer();
    t.not(linked.status, 404, url);
  }
});

t.test('control: the MCP server card names /mcp, which speaks the versions listed', async (t) => {
  const { doc: card } = await controlJson(t, '/.well-known/mcp/server-card.json');
  t.match(card.name, /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/, 'name is namespace/name');
  t.match(card.version, /^\d+\.\d+\.\d+$/);
  const remote = (card.remotes as Doc[])[0] as Doc;
  t.equal(remote.type, 'streamable-http');
  t.equal(remote.url, `${CONTROL}/mcp`);
  await expectResolving(t, card);
  const mcpPath = localPath(t, remote.url, CONTROL);
  for (const version of remote.supportedProtocolVersions as string[]) {
    const init = await rpc(mcpPath, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    t.equal(init.json.result.protocolVersion, version, `negotiates ${version}`);
    t.equal(init.json.result.serverInfo.name, card.name, 'serverInfo agrees with the card');
  }
  const initialized = await rpc(mcpPath, { jsonrpc: '2.0', method: 'notifications/initialized' });
  t.equal(initialized.status, 202, 'a notification is accepted');
  t.equal(initialized.text, '');
  t.same((await rpc(mcpPath, { jsonrpc: '2.0', id: 9, method: 'ping' })).json, { jsonrpc: '2.0', id: 9, result: {} });
  t.equal((await rpc(mcpPath, { jsonrpc: '2.0', id: 10, method: 'resources/list', params: {} })).json.error.code, -32601);
  const batch = await rpc(mcpPath, [{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
  t.equal(batch.status, 400);
  t.equal(batch.json.error.code, -32600);
  t.equal((await rpc(mcpPath, 'nope')).json.error.code, -32700);
  const getMcp = await controlFetch(mcpPath);
  t.equal(getMcp.status, 405, 'no SSE stream: GET is 405');
  t.equal(getMcp.headers.get('allow'), 'POST');
  await getMcp.arrayBuffer();
});

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

t.test('embedded default: hub, identity and agents are distinct hosts, so the issuers conflict; each name reaches the control process', async (t) => {
  // The defaults, with the control process really on CONTROL_PORT so curl can follow each claim there.
  for (let attempt = 1; ; attempt++) {
    const [controlPort] = (await freePorts(1)) as [number];
    const embedded: Config = loadConfig({ LOG_LEVEL: 'silent', CONTROL_PORT: String(controlPort), RATE_LIMIT_GENERAL: '0' });
    const store = new MemoryStore();
    const service = new HttpService({ host: 'control', config: embedded, logger: createLogger('control', 'silent'), registry: serviceRegistries().control, store });
    try {
      await service.listen(controlPort, '127.0.0.1');
    } catch (error) {
      await store.close();
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < 5) continue;
      throw error;
    }
    stopAtTeardown(t, service, store);
    const port = (await startChaos(t, { config: embedded })).port;
    const oidc = await chaosGet('/.well-known/openid-configuration', port);
    const as = await chaosGet('/.well-known/oauth-authorization-server', port);
    const card = await chaosGet('/.well-known/agent-card.json', port);
    t.equal(oidc.json.issuer, `http://localhost:${controlPort}`, 'OpenID issuer: the hub');
    t.equal(as.json.issuer, `http://identity.localhost:${controlPort}`, 'RFC 8414 issuer: the identity host');
    t.equal(card.json.url, `http://agents.localhost:${controlPort}/echo`, 'agent url: the agents host');
    t.not(oidc.json.issuer, as.json.issuer, 'the two metadata documents name different issuers');
    t.not(oidc.json.issuer, embedded.urls.base, 'neither is the host the documents were fetched from');
    t.not(as.json.issuer, embedded.urls.base);
    t.equal(oidc.head.header('x-chaos-claims-issuer'), oidc.json.issuer);
    t.equal(as.head.header('x-chaos-claims-issuer'), as.json.issuer);

    // curl resolves localhost and *.localhost to the loopback by itself: each claimed host answers there.
    for (const url of [`${oidc.json.issuer}/.well-known/openid-configuration`, `${as.json.issuer}/.well-known/oauth-authorization-server`]) {
      const { stdout } = await curl(['-sS', '--max-time', '5', '-w', '\n%{http_code} %{remote_ip}', url]);
      const [body, status] = [stdout.slice(0, stdout.lastIndexOf('\n')), stdout.slice(stdout.lastIndexOf('\n') + 1)];
      t.equal(status, '200 127.0.0.1', `${url} answers on the loopback`);
      t.equal((JSON.parse(body) as Doc).issuer, embedded.urls.control, 'served by the control process: its own issuer, not the claimed one');
    }
    const echo = await curl([
      '-sS', '--max-time', '5', '-X', 'POST', '-H', 'content-type: application/json',
      '--data', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'hi' }] } } }),
      card.json.url as string,
    ]);
    t.match(JSON.parse(echo.stdout) as Doc, { result: { role: 'agent', parts: [{ kind: 'text', text: 'hi' }] } }, 'the agents host reaches the echo agent');
    return;
  }
});
