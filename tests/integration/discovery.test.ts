// Discovery documents with conflicting claims (SPEC §4.1) and their control
// twins. Chaos bytes are read on a raw socket; every URL a control document
// holds is requested on the running control server and must answer. Last,
// /.well-known/chaos (issue 13): the /semantic-drift document by default, the
// control document with its required members removed or retyped, the AI path
// with its budget and fallback, and the control twin.
import { execFile } from 'node:child_process';
import { createHash, createPublicKey } from 'node:crypto';
import t from 'tap';
import { loadConfig, type Config } from '../../shared/config/config.js';
import { controlDocuments, SCHEMA_CONTENT_TYPES, SEMANTIC_SCHEMAS, WELL_KNOWN_CHAOS_MODES } from '../../shared/content/discovery.js';
import { HttpService } from '../../shared/http/http-service.js';
import { createLogger } from '../../shared/config/log.js';
import { MemoryStore } from '../../shared/store/memory.js';
import { checkShape, driftBodies, REQUIRED } from '../../services/chaos/drift.js';
import { checkStructure, discoveryClients, discoveryConfig, isStringArray, localPath, type Doc, type TapTest } from '../helpers/discovery-documents.js';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from '../helpers/raw.js';
import { freePorts, startChaos, startHttp, stopAtTeardown, testConfig } from '../helpers/servers.js';
import { serviceRegistries } from '../../services/registries.js';

const config = discoveryConfig();
const BASE = config.urls.base;
const CONTROL = config.urls.control;

const chaos = await startChaos(t, { config });
const control = await startHttp(t, 'control', config);
const { chaosGet, controlFetch, expectResolving } = discoveryClients(chaos.port, control.port, CONTROL);

/** Each JSON-RPC call to the control host. */
/** One JSON-RPC POST answered as JSON; `session` is sent as Mcp-Session-Id, the one the answer issues is returned. */
async function rpc(path: string, message: unknown, session?: string): Promise<{ status: number; json: Doc; text: string; session: string | null }> {
  const res = await controlFetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(session !== undefined ? { 'mcp-session-id': session } : {}) },
    body: typeof message === 'string' ? message : JSON.stringify(message),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Doc) : {}, text, session: res.headers.get('mcp-session-id') };
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
  let session = '';
  for (const version of remote.supportedProtocolVersions as string[]) {
    const init = await rpc(mcpPath, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    t.equal(init.json.result.protocolVersion, version, `negotiates ${version}`);
    t.equal(init.json.result.serverInfo.name, card.name, 'serverInfo agrees with the card');
    session = init.session ?? '';
  }
  const initialized = await rpc(mcpPath, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  t.equal(initialized.status, 202, 'a notification is accepted');
  t.equal(initialized.text, '');
  t.same((await rpc(mcpPath, { jsonrpc: '2.0', id: 9, method: 'ping' }, session)).json, { jsonrpc: '2.0', id: 9, result: {} });
  t.equal((await rpc(mcpPath, { jsonrpc: '2.0', id: 10, method: 'completion/complete', params: {} }, session)).json.error.code, -32601);
  const batch = await rpc(mcpPath, [{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
  t.equal(batch.status, 400);
  t.equal(batch.json.error.code, -32600);
  t.equal((await rpc(mcpPath, 'nope')).json.error.code, -32700);
  // Streamable HTTP: the session's own stream opens on GET (docs/agent.md#mcp).
  const getMcp = await controlFetch(mcpPath, { headers: { accept: 'text/event-stream', 'mcp-session-id': session } });
  t.equal(getMcp.status, 200, 'GET opens the session stream');
  t.equal(getMcp.headers.get('content-type'), 'text/event-stream');
  await getMcp.body?.cancel();
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

// --- /.well-known/chaos -------------------------------------------------------

async function call(port: number, path: string): Promise<{ res: ParsedResponse; body: Buffer }> {
  const result = await rawExchange(port, get(path), { until: completeByLength });
  if (result.end !== 'stopped') throw new Error(`${path}: no complete response (${result.end})`);
  const res = parseHead(result.data);
  return { res, body: res.rest.subarray(0, Number(res.header('content-length') ?? 0)) };
}

t.test('chaos /.well-known/chaos: semantic is the drift document; the shape modes break every required member', async (t) => {
  const config = testConfig();
  const { port } = await startChaos(t, { config });
  for (const schema of SEMANTIC_SCHEMAS) {
    const semantic = await call(port, `/.well-known/chaos?schema=${schema}`);
    t.equal(semantic.res.status, 200);
    t.equal(semantic.res.header('content-type'), SCHEMA_CONTENT_TYPES[schema]);
    t.equal(semantic.res.header('x-chaos-discovery-mode'), 'semantic', 'semantic by default');
    t.equal(semantic.res.header('access-control-allow-origin'), '*');
    t.same(semantic.body, driftBodies(config)[schema], `${schema}: the /semantic-drift bytes`);
    t.same(semantic.body, (await call(port, `/semantic-drift?schema=${schema}`)).body);
    t.equal(checkShape(schema, JSON.parse(semantic.body.toString())), undefined, 'right in shape');

    const required = Object.keys(REQUIRED[schema]);
    const missing = await call(port, `/.well-known/chaos?schema=${schema}&mode=missing-fields`);
    const missingDoc = JSON.parse(missing.body.toString()) as Record<string, unknown>;
    t.same(required.filter((name) => name in missingDoc), [], `${schema}: no required member left`);
    t.equal(missing.res.header('x-chaos-broken-fields'), required.join(', '));
    t.ok(Object.keys(missingDoc).length > 0 || schema === 'jwks' || schema === 'webfinger' || schema === 'host-meta', 'optional members stay');

    const wrong = await call(port, `/.well-known/chaos?schema=${schema}&mode=wrong-types`);
    const wrongDoc = JSON.parse(wrong.body.toString()) as Record<string, unknown>;
    t.same(required.filter((name) => !(name in wrongDoc)), [], `${schema}: every required member present`);
    for (const name of required) t.not(checkShape(schema, { ...JSON.parse(controlDocuments(config).schemas[schema].toString()), [name]: wrongDoc[name] }), undefined, `${schema}.${name} has the wrong type`);
  }
  for (const bad of ['schema=nope', 'mode=nope', 'ai=maybe']) t.equal((await call(port, `/.well-known/chaos?${bad}`)).res.status, 400, bad);
});

t.test('chaos /.well-known/chaos?ai=true: the AI path of /semantic-drift, with its fallback', async (t) => {
  const { port } = await startChaos(t);
  const off = await call(port, '/.well-known/chaos?ai=true');
  t.equal(off.res.header('x-chaos-ai-source'), 'fallback');
  t.equal(off.res.header('x-chaos-ai-fallback-reason'), 'ai-disabled');
  t.same(off.body, driftBodies(testConfig())['openid-configuration']);
  t.equal((await call(port, '/.well-known/chaos?ai=true&mode=wrong-types')).res.header('x-chaos-ai-source'), undefined, 'ai is for mode=semantic only');

  const budgeted = testConfig({ AI_BASE_URL: 'http://127.0.0.1:9/v1', AI_MODEL: 'm', AI_DAILY_BUDGET: '0' });
  const { port: spent } = await startChaos(t, { config: budgeted });
  const none = await call(spent, '/.well-known/chaos?ai=true&schema=jwks');
  t.equal(none.res.header('x-chaos-ai-fallback-reason'), 'budget-exhausted', 'the same daily budget');
  t.same(none.body, driftBodies(budgeted).jwks);
});

t.test('control /.well-known/chaos: the well-formed document of the schema, whatever the mode', async (t) => {
  const config = testConfig();
  const { port } = await startHttp(t, 'control', config);
  for (const schema of SEMANTIC_SCHEMAS) {
    for (const mode of WELL_KNOWN_CHAOS_MODES) {
      const reply = await call(port, `/.well-known/chaos?schema=${schema}&mode=${mode}`);
      t.equal(reply.res.status, 200);
      t.same(reply.body, controlDocuments(config).schemas[schema], `${schema} ${mode}`);
      t.equal(checkShape(schema, JSON.parse(reply.body.toString())), undefined, 'right in shape');
    }
  }
  t.equal((await call(port, '/.well-known/chaos?mode=nope')).res.status, 400);
});
