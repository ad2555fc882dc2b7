// Twin content, discovery, auth and agent families: the .well-known
// documents, JWKS, agent card, skills and MCP server card.
// Well-formed discovery documents, built from the public URLs. The control
// host serves them as they are (one issuer: the control URL; every link
// answers there). The chaos host serves the same builders with one claim
// changed, so the lie is the only difference. Shapes follow OpenID Connect
// Discovery 1.0, RFC 8414, RFC 9728, RFC 7517, RFC 7033 (JRD), RFC 6415,
// A2A 0.3 (agent card), the Agent Skills discovery draft 0.2.0 and the MCP
// Server Card draft (SEP-2127); the last two are pre-1.0 (SPEC §9.4).
import { createHash, createPublicKey } from 'node:crypto';
import type { Config } from '../config/config.js';
import type { HeaderList } from '../primitives/headers.js';
import { jsonBody } from '../primitives/json.js';
import { oneOf } from '../primitives/params.js';
import { seededBytes } from '../primitives/seed.js';
import { idKey } from '../store/types.js';
import { TEST_RSA_PUBLIC_KEY_PEM } from './auth/test-key.js';

/** Paths on the control host that the documents link to (each is served there). */
export const LINKED_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  jwks: '/.well-known/jwks.json',
  agentCard: '/.well-known/agent-card.json',
  echo: '/echo',
  mcp: '/mcp',
  skill: '/.well-known/agent-skills/echo-agent/SKILL.md',
} as const;

export const SKILL_NAME = 'echo-agent';
export const SKILLS_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';
/** The 0.1 draft listed `files`/`path`; 0.2.0 replaced them with `type`/`url`/`digest`. */
export const SKILLS_SCHEMA_STALE = 'https://schemas.agentskills.io/discovery/0.1.0/schema.json';
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json';
/** MCP protocol revisions the control host's /mcp speaks, oldest first. */
export const MCP_PROTOCOL_VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;
export const A2A_PROTOCOL_VERSION = '0.3.0';
export const OIDC_ISSUER_REL = 'http://openid.net/specs/connect/1.0/issuer';

type Json = Record<string, unknown>;

/** Memoises a per-config value: documents name the public URLs, which are fixed per process. */
export function perConfig<T>(build: (config: Config) => T): (config: Config) => T {
  const cache = new WeakMap<Config, T>();
  return (config) => {
    let value = cache.get(config);
    if (value === undefined) {
      value = build(config);
      cache.set(config, value);
    }
    return value;
  };
}

/** A JSON document encoded once. */
export function documentBody(doc: unknown): Buffer {
  return jsonBody(doc);
}

export function sha256Digest(bytes: Buffer | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

// --- OAuth 2.0 / OpenID Connect -------------------------------------------

/** The fields RFC 8414 and OpenID Connect Discovery share, in the order both documents list them. */
function oauthCore(issuer: string): Json {
  return {
    issuer,
    authorization_endpoint: issuer + LINKED_PATHS.authorize,
    token_endpoint: issuer + LINKED_PATHS.token,
    jwks_uri: issuer + LINKED_PATHS.jwks,
    scopes_supported: ['openid'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code'],
  };
}

/** OpenID Provider metadata for `issuer`, every endpoint under it. */
export function openidConfiguration(issuer: string): Json {
  return {
    ...oauthCore(issuer),
    subject_types_supported: ['public'],
    // OpenID Connect Discovery §3: RS256 MUST be listed.
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic'],
    code_challenge_methods_supported: ['S256'],
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat'],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    // Defaults to true when omitted: stated, since no request_uri is accepted.
    request_uri_parameter_supported: false,
  };
}

/** RFC 8414 authorization server metadata for `issuer`. */
export function authorizationServerMetadata(issuer: string): Json {
  return {
    ...oauthCore(issuer),
    token_endpoint_auth_methods_supported: ['client_secret_basic'],
    code_challenge_methods_supported: ['S256'],
  };
}

/** RFC 9728 protected resource metadata. */
export function protectedResourceMetadata(resource: string, authorizationServers: readonly string[]): Json {
  return {
    resource,
    authorization_servers: [...authorizationServers],
    scopes_supported: ['openid'],
    bearer_methods_supported: ['header'],
    resource_name: 'Chaos Endpoint Service',
  };
}

/**
 * The control host's one signing key, public half: the published test key
 * (shared/content/auth/test-key.ts) that signs the tokens of the control
 * host's /jwt. A fixed key keeps every replica's JWKS byte-identical.
 */
const TEST_JWK = createPublicKey(TEST_RSA_PUBLIC_KEY_PEM).export({ format: 'jwk' });
const RSA_N = TEST_JWK.n as string;
const RSA_E = TEST_JWK.e as string;
/** RFC 7638 thumbprint: SHA-256 over the required members in lexicographic order. */
export const JWK_KID = createHash('sha256').update(JSON.stringify({ e: RSA_E, kty: 'RSA', n: RSA_N })).digest('base64url');

export function jwkSet(): Json {
  return { keys: [{ kty: 'RSA', use: 'sig', alg: 'RS256', kid: JWK_KID, n: RSA_N, e: RSA_E }] };
}

// --- chaos /.well-known/jwks.json -----------------------------------------

export const JWKS_MODES = ['kid-mismatch', 'rotating', 'wrong-use'] as const;
export type JwksMode = (typeof JWKS_MODES)[number];
export const JWKS_PARAMS = {
  mode: oneOf(JWKS_MODES, { default: 'kid-mismatch', description: 'which lie (the twin publishes the signing key as it is)' }),
};
export const JWKS_MISMATCHED_KID = 'chaos-signing-key-1';
export const JWKS_ROTATION_WINDOW_MS = 10 * 60_000;
export const jwksRotationKey = (client: string): string => idKey('jwks-rotation', client);

function thumbprint(n: string, e: string): string {
  return createHash('sha256').update(JSON.stringify({ e, kty: 'RSA', n })).digest('base64url');
}

/**
 * The n-th rotated key: a 2048-bit modulus seeded by the rotation count, so
 * the same count gives the same key (no private half exists, and none is needed:
 * no token is ever signed with it). Its kid is its RFC 7638 thumbprint.
 */
export function rotatedJwk(rotation: number): Json {
  const n = seededBytes(`jwks-rotation-${rotation}`, 256);
  n[0] = (n[0] as number) | 0x80;
  n[255] = (n[255] as number) | 0x01;
  const nText = n.toString('base64url');
  return { kty: 'RSA', use: 'sig', alg: 'RS256', kid: thumbprint(nText, 'AQAB'), n: nText, e: 'AQAB' };
}

/** The chaos JWK Set of a mode (`rotation` counts the client's calls; used by rotating only). */
export function chaosJwkSet(mode: JwksMode, rotation: number): Json {
  const [key] = jwkSet().keys as Json[];
  switch (mode) {
    case 'kid-mismatch':
      return { keys: [{ ...key, kid: JWKS_MISMATCHED_KID }] };
    case 'rotating':
      return { keys: [rotatedJwk(rotation)] };
    case 'wrong-use':
      // RFC 7517 §4.2: "enc" keys are for encryption; a validator must not verify signatures with it.
      return { keys: [{ ...key, use: 'enc' }] };
  }
}

// --- WebFinger and host-meta (JRD) ----------------------------------------

/** A JRD about the echo agent: described by its agent card; its OpenID issuer is the control host. */
export function webfingerJrd(control: string): Json {
  return {
    subject: control + LINKED_PATHS.echo,
    links: [
      { rel: 'describedby', type: 'application/json', href: control + LINKED_PATHS.agentCard },
      { rel: OIDC_ISSUER_REL, href: control },
    ],
  };
}

/** host-meta in its JSON form (RFC 6415 Appendix A): host-wide links. */
export function hostMetaJrd(control: string): Json {
  return {
    links: [
      { rel: 'describedby', type: 'application/json', href: control + LINKED_PATHS.agentCard },
      { rel: OIDC_ISSUER_REL, href: control },
    ],
  };
}

// --- A2A agent card --------------------------------------------------------

/** An A2A 0.3 agent card for the echo agent reachable at `agentUrl` (JSON-RPC binding). */
export function agentCard(agentUrl: string): Json {
  return {
    protocolVersion: A2A_PROTOCOL_VERSION,
    name: 'Echo Agent',
    description: 'Answers every A2A message/send with a message carrying the same text parts.',
    url: agentUrl,
    preferredTransport: 'JSONRPC',
    version: '1.0.0',
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Returns the text parts of the message it is sent.',
        tags: ['echo', 'test'],
        examples: ['hello'],
      },
    ],
    supportsAuthenticatedExtendedCard: false,
  };
}

// --- Agent Skills discovery (draft 0.2.0) ---------------------------------

/** The one published skill, naming the control host's agent. */
export function skillMarkdown(control: string): Buffer {
  return Buffer.from(
    `---
name: ${SKILL_NAME}
description: Talk to the Echo Agent of the Chaos Endpoint Service over A2A JSON-RPC. Use to check that an A2A client can discover an agent and send it a message.
---

# Echo Agent

The Echo Agent answers every A2A \`message/send\` with a message carrying the same text parts.

1. Read its agent card: ${control}${LINKED_PATHS.agentCard}
2. POST a JSON-RPC 2.0 request to ${control}${LINKED_PATHS.echo}:

   \`\`\`json
   {"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m-1","parts":[{"kind":"text","text":"hello"}]}}}
   \`\`\`

3. The result is a message with role \`agent\` and the same text.
`,
  );
}

export interface SkillsIndexOptions {
  /** `$schema`; undefined leaves it out. */
  readonly schema: string | undefined;
  readonly url: string;
  readonly digest: string;
}

export function skillsIndex(o: SkillsIndexOptions): Json {
  return {
    ...(o.schema !== undefined ? { $schema: o.schema } : {}),
    skills: [
      {
        name: SKILL_NAME,
        type: 'skill-md',
        description: 'Talk to the Echo Agent of the Chaos Endpoint Service over A2A JSON-RPC.',
        url: o.url,
        digest: o.digest,
      },
    ],
  };
}

// --- MCP Server Card (draft, SEP-2127) ------------------------------------

/** Reverse-DNS server name from the control host name (the card's `name` wants namespace/name). */
export function mcpServerName(control: string): string {
  const host = new URL(control).hostname;
  // An address is not a domain to reverse (the embedded default is 127.0.0.1).
  const namespace = /^[\d.]+$|:/.test(host) ? 'localhost' : host.split('.').reverse().join('.');
  return `${namespace}/chaos-control`;
}

export interface McpRemote {
  readonly type: string;
  readonly url: string;
  readonly supportedProtocolVersions: readonly string[];
}

export function serverCard(control: string, remotes: readonly McpRemote[] | undefined, overrides: Json = {}): Json {
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: mcpServerName(control),
    version: '1.0.0',
    description: 'An MCP server over Streamable HTTP: sessions, resumable streams, three tools, paged resources and prompts.',
    title: 'Chaos control MCP server',
    websiteUrl: `${control}/`,
    ...(remotes !== undefined ? { remotes: remotes.map((r) => ({ ...r, supportedProtocolVersions: [...r.supportedProtocolVersions] })) } : {}),
    ...overrides,
  };
}

/** The control host's own remote: streamable HTTP at /mcp. */
export function controlRemote(control: string): McpRemote {
  return { type: 'streamable-http', url: control + LINKED_PATHS.mcp, supportedProtocolVersions: MCP_PROTOCOL_VERSIONS };
}

// --- The control host's documents, encoded once per config -----------------

export const SEMANTIC_SCHEMAS = [
  'openid-configuration',
  'oauth-authorization-server',
  'webfinger',
  'jwks',
  'host-meta',
  'agent-card',
] as const;
export type SemanticSchema = (typeof SEMANTIC_SCHEMAS)[number];

/** Modes of /.well-known/chaos: wrong in meaning (the /semantic-drift document), or in shape. */
export const WELL_KNOWN_CHAOS_MODES = ['semantic', 'missing-fields', 'wrong-types'] as const;

/** Media type of each schema's documents. */
export const SCHEMA_CONTENT_TYPES: Readonly<Record<SemanticSchema, string>> = {
  'openid-configuration': 'application/json',
  'oauth-authorization-server': 'application/json',
  webfinger: 'application/jrd+json',
  jwks: 'application/jwk-set+json',
  // RFC 6415 Appendix A: the JSON form of host-meta is served as application/json.
  'host-meta': 'application/json',
  'agent-card': 'application/json',
};

export interface ControlDocuments {
  readonly schemas: Readonly<Record<SemanticSchema, Buffer>>;
  readonly protectedResource: Buffer;
  readonly skill: Buffer;
  readonly skillDigest: string;
  readonly skillsIndex: Buffer;
  readonly serverCard: Buffer;
}

export const controlDocuments = perConfig((config): ControlDocuments => {
  const control = config.urls.control;
  const skill = skillMarkdown(control);
  const skillDigest = sha256Digest(skill);
  return {
    schemas: {
      'openid-configuration': documentBody(openidConfiguration(control)),
      'oauth-authorization-server': documentBody(authorizationServerMetadata(control)),
      webfinger: documentBody(webfingerJrd(control)),
      jwks: documentBody(jwkSet()),
      'host-meta': documentBody(hostMetaJrd(control)),
      'agent-card': documentBody(agentCard(control + LINKED_PATHS.echo)),
    },
    protectedResource: documentBody(protectedResourceMetadata(control, [control])),
    skill,
    skillDigest,
    skillsIndex: documentBody(skillsIndex({ schema: SKILLS_SCHEMA, url: control + LINKED_PATHS.skill, digest: skillDigest })),
    serverCard: documentBody(serverCard(control, [controlRemote(control)])),
  };
});

/** Discovery documents are public metadata that browser-based agents fetch (MCP discovery requires CORS). */
export const CORS_ANY: HeaderList = [['Access-Control-Allow-Origin', '*']];

/** X-Chaos-Conflict-Group of every chaos discovery document. */
export const CONFLICT_GROUP = 'conflicting-discovery';
