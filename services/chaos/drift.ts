// /semantic-drift documents: the right fields with the right JSON types, but
// every URL is dead and every capability claim is false. URLs are dead on our
// own chaos host, under a path that nothing is served at, so they look like
// ordinary links of the host the document came from and really answer 404.
// The same rules validate what a language model writes in ai=true mode
// (drift-ai.ts).
import type { Config } from '../../shared/config/config.js';
import {
  A2A_PROTOCOL_VERSION,
  documentBody,
  OIDC_ISSUER_REL,
  perConfig,
  SEMANTIC_SCHEMAS,
  type SemanticSchema,
} from '../../shared/content/discovery.js';
import { rngFromSeed } from '../../shared/primitives/seed.js';

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

export type Kind = 'string' | 'string[]' | 'object' | 'object[]';

/** Required members per schema and their JSON types (from each specification). */
export const REQUIRED: Readonly<Record<SemanticSchema, Readonly<Record<string, Kind>>>> = {
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

/** Deeper answers are refused: no drift has more than 5 levels, and the walk stays bounded. */
export const MAX_DEPTH = 32;

/** Relation types that are URIs and keep their registered values (RFC 7033, OpenID Connect Discovery). */
const REL_URIS: ReadonlySet<string> = new Set([OIDC_ISSUER_REL, 'http://webfinger.net/rel/profile-page']);
/** A registered relation name (RFC 8288 reg-rel-type). */
const REL_TOKEN = /^[a-z][a-z0-9.-]*$/;

// What may follow a dead prefix or a .invalid authority: non-empty path
// segments of unreserved characters (no `%`, so no encoded dot segments), and
// a query of the same plus `=`, `&` and the `{uri}` template braces.
const PATH_TAIL = String.raw`(?:/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*(?:\?[A-Za-z0-9._~=&{}+-]*)?`;
const INVALID_URL = new RegExp(String.raw`^https?://(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+invalid(?::\d{1,5})?` + PATH_TAIL + '$');
const INVALID_ADDRESS = /^(?:acct|mailto):[a-z0-9._+-]+@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+invalid$/;
const DEAD_TAIL = new RegExp(`^${PATH_TAIL}$`);

/** Strings that read as a yes (and numbers other than 0): a true claim, whatever the JSON type. */
const TRUTHY = new Set(['true', 'yes', 'y', 'on', '1', 'enabled', 'supported']);

/**
 * Anything a client, a browser or a reader could take for a link or a
 * reference: `//`, a backslash, `http`/`www.` anywhere, a scheme-like prefix
 * (`javascript:`, `https:host`), a leading `/`, `./` or `../`, a host name
 * followed by a path or port, an e-mail address, surrounding whitespace, and
 * control or invisible format characters.
 */
const URLISH: readonly RegExp[] = [
  /\/\/|\\/,
  /https?|www\./i,
  /(?:^|[^A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*:(?!\s|$)/,
  /^\.{0,2}\//,
  /[A-Za-z0-9-]\.[A-Za-z][A-Za-z0-9-]*\.?(?::\d|\/)/,
  /@[A-Za-z0-9-]+\./,
  /^\s|\s$/,
  /[\p{Cc}\p{Cf}]/u,
];

/** One of our own dead URLs, written exactly (no case change, padding or escapes). */
function isDeadUrl(text: string, prefix: string): boolean {
  return text.startsWith(prefix) && DEAD_TAIL.test(text.slice(prefix.length));
}

/** Why a string breaks the drift, or undefined when it is a dead URL, a .invalid address or plain text. */
function stringProblem(value: string, key: string, prefix: string): string | undefined {
  if (key === 'rel') return REL_URIS.has(value) || REL_TOKEN.test(value) ? undefined : 'is not a registered relation type';
  if (isDeadUrl(value, prefix) || INVALID_URL.test(value) || INVALID_ADDRESS.test(value)) return undefined;
  if (TRUTHY.has(value.normalize('NFKC').trim().toLowerCase())) return 'claims true';
  if (isUrlish(value)) return 'is not a dead URL';
  return undefined;
}

function isUrlish(value: string): boolean {
  // NFKC first, so fullwidth letters and slashes are judged as what they display.
  const text = value.normalize('NFKC');
  return URLISH.some((pattern) => pattern.test(text));
}

/**
 * The drift rules, as an allow-list: every string is one of our dead URLs
 * (under `prefix`, exactly), an address on the `.invalid` TLD, or plain text
 * with nothing that reads as a link; nothing is true (`true`, a truthy string,
 * a number other than 0); every capability list is empty; member names are
 * plain text too; nesting stops at MAX_DEPTH. Relation types (`rel`) are
 * identifiers and keep their registered values. Iterative, so no answer can
 * exhaust the stack.
 */
export function checkDrift(doc: unknown, prefix: string): string | undefined {
  const stack: { value: unknown; key: string; path: string; depth: number }[] = [{ value: doc, key: '', path: '', depth: 0 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value, key, path, depth } = next;
    const where = path || 'the document';
    if (depth > MAX_DEPTH) return `${where} is nested deeper than ${MAX_DEPTH} levels`;
    if (value === true) return `${where} is true`;
    if (typeof value === 'number' && value !== 0) return `${where} is a number other than 0`;
    if (typeof value === 'string') {
      const problem = stringProblem(value, key, prefix);
      if (problem) return `${where} ${problem}`;
    } else if (Array.isArray(value)) {
      if ((key.endsWith('_supported') || CAPABILITY_LISTS.has(key)) && value.length > 0) return `${where} is not empty`;
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key, path: `${path}[${i}]`, depth: depth + 1 });
    } else if (isObject(value)) {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [name, item] = entries[i] as [string, unknown];
        const member = path ? `${path}.${name}` : name;
        if (isUrlish(name)) return `the member name ${JSON.stringify(member)} is not plain text`;
        stack.push({ value: item, key: name, path: member, depth: depth + 1 });
      }
    }
  }
  return undefined;
}

// --- /.well-known/chaos: the consistent document, broken in its shape ------

/** The modes of /.well-known/chaos that break the shape rather than the meaning. */
export type ShapeMode = 'missing-fields' | 'wrong-types';

/** A value of another JSON type than `kind`, close enough to the right one to be tempting. */
function wrongKind(value: unknown, kind: Kind): unknown {
  switch (kind) {
    case 'string':
      // A URL or name as a one-element list.
      return [value];
    case 'string[]':
      // A list as one space-separated string (what a form field would hold).
      return Array.isArray(value) ? value.join(' ') : String(value);
    case 'object':
      return JSON.stringify(value);
    case 'object[]':
      // A list of objects as its first object alone.
      return Array.isArray(value) && value.length > 0 ? value[0] : {};
  }
}

/**
 * The control host's well-formed document of `schema` with every member its
 * specification requires removed (missing-fields) or of another JSON type
 * (wrong-types), and the names of those members, in order.
 */
export function brokenShape(consistent: Buffer, schema: SemanticSchema, mode: ShapeMode): { readonly body: Buffer; readonly fields: readonly string[] } {
  const doc = JSON.parse(consistent.toString('utf8')) as Json;
  const fields = Object.keys(REQUIRED[schema]);
  for (const [name, kind] of Object.entries(REQUIRED[schema])) {
    if (mode === 'missing-fields') delete doc[name];
    else doc[name] = wrongKind(doc[name], kind);
  }
  return { body: documentBody(doc), fields };
}
