// /semantic-drift documents: the right fields with the right JSON types, but
// every URL is dead and every capability claim is false. URLs are dead on our
// own chaos host, under a path that nothing is served at, so they look like
// ordinary links of the host the document came from and really answer 404.
// The same rules validate what a language model writes in ai=true mode.
import type { Config } from '../../shared/config.js';
import {
  A2A_PROTOCOL_VERSION,
  documentBody,
  OIDC_ISSUER_REL,
  perConfig,
  SEMANTIC_SCHEMAS,
  type SemanticSchema,
} from '../../shared/discovery.js';
import { rngFromSeed } from '../../shared/seed.js';

type Json = Record<string, unknown>;

/** Every drifted URL lives under this path of the chaos host; no endpoint is ever registered there. */
export const DEAD_ROOT = '/semantic-drift/void';

export function deadPrefix(config: Config, schema: SemanticSchema): string {
  return `${config.urls.base}${DEAD_ROOT}/${schema}`;
}

/** A 2048-bit modulus that is seeded bytes, not a product of primes. */
const DRIFT_MODULUS = (() => {
  const bytes = rngFromSeed('semantic-drift:jwks').fill(Buffer.alloc(256));
  bytes[0] = (bytes[0] as number) | 0x80;
  return bytes.toString('base64url');
})();

export function driftDocument(schema: SemanticSchema, dead: string): Json {
  switch (schema) {
    case 'openid-configuration':
      return {
        issuer: dead,
        authorization_endpoint: `${dead}/authorize`,
        token_endpoint: `${dead}/token`,
        userinfo_endpoint: `${dead}/userinfo`,
        jwks_uri: `${dead}/jwks.json`,
        registration_endpoint: `${dead}/register`,
        scopes_supported: [],
        response_types_supported: [],
        response_modes_supported: [],
        grant_types_supported: [],
        subject_types_supported: [],
        id_token_signing_alg_values_supported: [],
        token_endpoint_auth_methods_supported: [],
        code_challenge_methods_supported: [],
        claims_supported: [],
        claims_parameter_supported: false,
        request_parameter_supported: false,
        request_uri_parameter_supported: false,
        service_documentation: `${dead}/docs`,
        op_policy_uri: `${dead}/policy`,
        op_tos_uri: `${dead}/terms`,
      };
    case 'oauth-authorization-server':
      return {
        issuer: dead,
        authorization_endpoint: `${dead}/authorize`,
        token_endpoint: `${dead}/token`,
        jwks_uri: `${dead}/jwks.json`,
        registration_endpoint: `${dead}/register`,
        revocation_endpoint: `${dead}/revoke`,
        introspection_endpoint: `${dead}/introspect`,
        service_documentation: `${dead}/docs`,
        scopes_supported: [],
        response_types_supported: [],
        response_modes_supported: [],
        grant_types_supported: [],
        token_endpoint_auth_methods_supported: [],
        revocation_endpoint_auth_methods_supported: [],
        introspection_endpoint_auth_methods_supported: [],
        code_challenge_methods_supported: [],
        authorization_response_iss_parameter_supported: false,
      };
    case 'webfinger':
      return {
        subject: `${dead}/echo`,
        aliases: [`${dead}/profile`],
        links: [
          { rel: 'self', type: 'application/activity+json', href: `${dead}/actor` },
          { rel: 'http://webfinger.net/rel/profile-page', type: 'text/html', href: `${dead}/profile` },
          { rel: OIDC_ISSUER_REL, href: `${dead}/issuer` },
        ],
      };
    case 'jwks':
      return {
        keys: [{ kty: 'RSA', alg: 'RS256', kid: 'semantic-drift', key_ops: [], n: DRIFT_MODULUS, e: 'AQAB', x5u: `${dead}/x5u.pem` }],
      };
    case 'host-meta':
      return {
        links: [
          { rel: 'lrdd', type: 'application/jrd+json', template: `${dead}/webfinger?resource={uri}` },
          { rel: 'describedby', type: 'application/json', href: `${dead}/agent-card.json` },
          { rel: OIDC_ISSUER_REL, href: `${dead}/issuer` },
        ],
      };
    case 'agent-card':
      return {
        protocolVersion: A2A_PROTOCOL_VERSION,
        name: 'Echo Agent',
        description: 'Answers every A2A message/send with a message carrying the same text parts.',
        url: `${dead}/echo`,
        preferredTransport: 'JSONRPC',
        version: '1.0.0',
        provider: { organization: 'Chaos Endpoint Service', url: `${dead}/provider` },
        documentationUrl: `${dead}/docs`,
        iconUrl: `${dead}/icon.png`,
        capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
        defaultInputModes: [],
        defaultOutputModes: [],
        skills: [],
        supportsAuthenticatedExtendedCard: false,
      };
  }
}

/** The deterministic drift of each schema, encoded once per config. */
export const driftBodies = perConfig((config): Readonly<Record<SemanticSchema, Buffer>> => {
  const out = {} as Record<SemanticSchema, Buffer>;
  for (const schema of SEMANTIC_SCHEMAS) out[schema] = documentBody(driftDocument(schema, deadPrefix(config, schema)));
  return out;
});

// --- Checking a document written by a model --------------------------------

type Kind = 'string' | 'string[]' | 'object' | 'object[]';

/** Required members per schema and their JSON types (from each specification). */
const REQUIRED: Readonly<Record<SemanticSchema, Readonly<Record<string, Kind>>>> = {
  'openid-configuration': {
    issuer: 'string',
    authorization_endpoint: 'string',
    token_endpoint: 'string',
    jwks_uri: 'string',
    response_types_supported: 'string[]',
    subject_types_supported: 'string[]',
    id_token_signing_alg_values_supported: 'string[]',
  },
  'oauth-authorization-server': {
    issuer: 'string',
    authorization_endpoint: 'string',
    token_endpoint: 'string',
    response_types_supported: 'string[]',
  },
  webfinger: { subject: 'string', links: 'object[]' },
  jwks: { keys: 'object[]' },
  'host-meta': { links: 'object[]' },
  'agent-card': {
    protocolVersion: 'string',
    name: 'string',
    description: 'string',
    url: 'string',
    version: 'string',
    capabilities: 'object',
    defaultInputModes: 'string[]',
    defaultOutputModes: 'string[]',
    skills: 'object[]',
  },
};

/** Members of array items that must be present: JRD links need rel, JWKs need kty, A2A skills need these. */
const ITEM_REQUIRED: Readonly<Partial<Record<SemanticSchema, { readonly list: string; readonly members: Readonly<Record<string, Kind>> }>>> = {
  webfinger: { list: 'links', members: { rel: 'string' } },
  'host-meta': { list: 'links', members: { rel: 'string' } },
  jwks: { list: 'keys', members: { kty: 'string' } },
  'agent-card': { list: 'skills', members: { id: 'string', name: 'string', description: 'string', tags: 'string[]' } },
};

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasKind(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'object':
      return isObject(value);
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'object[]':
      return Array.isArray(value) && value.every(isObject);
  }
}

function checkMembers(doc: Json, members: Readonly<Record<string, Kind>>, where: string): string | undefined {
  for (const [name, kind] of Object.entries(members)) {
    if (!hasKind(doc[name], kind)) return `${where}${name} must be ${kind}`;
  }
  return undefined;
}

/** Required members present with the right types; undefined when the shape is right. */
export function checkShape(schema: SemanticSchema, doc: unknown): string | undefined {
  if (!isObject(doc)) return 'the document must be a JSON object';
  const problem = checkMembers(doc, REQUIRED[schema], '');
  if (problem) return problem;
  const items = ITEM_REQUIRED[schema];
  if (items) {
    for (const [i, item] of (doc[items.list] as Json[]).entries()) {
      const itemProblem = checkMembers(item, items.members, `${items.list}[${i}].`);
      if (itemProblem) return itemProblem;
    }
  }
  return undefined;
}

/** Arrays that advertise support: each must be empty in a drifted document. */
const CAPABILITY_LISTS = new Set(['defaultInputModes', 'defaultOutputModes', 'key_ops', 'skills']);

function isDeadUrl(text: string, origin: string, prefixPath: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.hostname.endsWith('.invalid')) return true;
  // Parsed, so dot segments cannot climb out of the dead root.
  return url.origin === origin && (url.pathname === prefixPath || url.pathname.startsWith(`${prefixPath}/`));
}

/**
 * The drift rules: every URL dead (under `prefix`, or on a `.invalid` host),
 * every boolean false, every capability list empty. Relation types (`rel`)
 * are identifiers, not links, and keep their registered values.
 */
export function checkDrift(doc: unknown, prefix: string): string | undefined {
  const { origin, pathname: prefixPath } = new URL(prefix);
  const visit = (value: unknown, key: string, path: string): string | undefined => {
    if (value === true) return `${path} is true`;
    if (typeof value === 'string') {
      if (key === 'rel') return undefined;
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !isDeadUrl(value, origin, prefixPath)) return `${path} is not a dead URL`;
      if (/^(acct|mailto):/i.test(value) && !/\.invalid$/i.test(value)) return `${path} names a real account`;
      return undefined;
    }
    if (Array.isArray(value)) {
      if ((key.endsWith('_supported') || CAPABILITY_LISTS.has(key)) && value.length > 0) return `${path} is not empty`;
      for (const [i, item] of value.entries()) {
        const problem = visit(item, key, `${path}[${i}]`);
        if (problem) return problem;
      }
      return undefined;
    }
    if (isObject(value)) {
      for (const [name, item] of Object.entries(value)) {
        const problem = visit(item, name, path ? `${path}.${name}` : name);
        if (problem) return problem;
      }
    }
    return undefined;
  };
  return visit(doc, '', '');
}

/** Reads a model's answer: one JSON object (a surrounding code fence is tolerated) that passes both checks. */
export function parseDriftAnswer(schema: SemanticSchema, content: string, prefix: string): Json | undefined {
  const fenced = /^\s*```[a-z]*\s*\n([\s\S]*?)\n?```\s*$/i.exec(content);
  let doc: unknown;
  try {
    doc = JSON.parse(fenced ? (fenced[1] as string) : content);
  } catch {
    return undefined;
  }
  if (checkShape(schema, doc) !== undefined || checkDrift(doc, prefix) !== undefined) return undefined;
  return doc as Json;
}

const SPEC_NAMES: Readonly<Record<SemanticSchema, string>> = {
  'openid-configuration': 'OpenID Connect Discovery 1.0 provider metadata',
  'oauth-authorization-server': 'RFC 8414 OAuth 2.0 authorization server metadata',
  webfinger: 'RFC 7033 WebFinger JRD',
  jwks: 'RFC 7517 JSON Web Key Set',
  'host-meta': 'RFC 6415 host-meta (JSON form)',
  'agent-card': 'A2A agent card',
};

export interface ChatMessage {
  readonly role: 'system' | 'user';
  readonly content: string;
}

/** The chat messages asking for a fresh drift; the deterministic drift is the example. */
export function driftPrompt(schema: SemanticSchema, config: Config): ChatMessage[] {
  const prefix = deadPrefix(config, schema);
  const example = JSON.stringify(driftDocument(schema, prefix), null, 2);
  return [
    {
      role: 'system',
      content: 'You write JSON documents for a public chaos-testing service. Answer with exactly one JSON object and nothing else: no prose, no code fences.',
    },
    {
      role: 'user',
      content: [
        `Write a fresh variant of this ${SPEC_NAMES[schema]} document.`,
        'Rules:',
        '- Keep every field of the example, with the same name and the same JSON type.',
        `- Every URL must start with ${prefix}/ followed by path segments you invent.`,
        '- Every boolean must be false. Every array whose name ends in _supported, and defaultInputModes, defaultOutputModes, key_ops and skills, must be empty.',
        '- Keep each "rel" value as it is; change names, descriptions, identifiers and URL paths so the document differs from the example.',
        'Example:',
        example,
      ].join('\n'),
    },
  ];
}
