// The per-host OpenAPI 3.1 document, generated from the registry as the
// catalog is (never a second hand-kept list). Built once at start-up and
// served as cached bytes at /openapi.json beside the catalog: like `/`, it is
// not a registry endpoint, so it never changes the catalog's counts.
import { counterpartUrl, hostUrl, OPENAPI_PATH } from './catalog.js';
import type { Config, HostName } from '../config/config.js';
import { CHAOS_PREFIX } from '../primitives/headers.js';
import type { Param } from '../primitives/params.js';
import { allowedMethods, METHODS, type AnyEndpoint, type Method, type Registry } from '../registry/registry.js';
import { TLS_MODE_INFO, TLS_MODES, tlsHostOf } from '../tls/modes.js';

export { OPENAPI_PATH };
export const OPENAPI_VERSION = '3.1.0';

/** A JSON Schema (2020-12, OpenAPI 3.1's dialect), as far as parameters need one. */
export interface JsonSchema {
  readonly type: 'integer' | 'number' | 'string' | 'boolean' | 'array';
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly maxItems?: number;
  readonly pattern?: string;
  readonly enum?: readonly string[];
  readonly default?: unknown;
  readonly items?: JsonSchema;
  /** A grammar's two halves: its bare names (an enum), or a value with an argument (a pattern). */
  readonly anyOf?: readonly JsonSchema[];
  readonly description?: string;
}

export interface OpenApiParameter {
  readonly name: string;
  readonly in: 'query' | 'path';
  readonly required: boolean;
  readonly description: string;
  readonly schema: JsonSchema;
  readonly style?: 'form';
  readonly explode?: boolean;
  /** A `{name*}` rest segment: the value may span several path segments, `/` included. */
  readonly 'x-rest'?: true;
}

export interface OpenApiHeader {
  readonly description: string;
  readonly schema: { readonly type: 'string' };
}

export interface OpenApiResponse {
  readonly description: string;
  readonly headers?: Readonly<Record<string, OpenApiHeader>>;
  readonly content?: Readonly<Record<string, { readonly schema: { readonly $ref: string } }>>;
}

export interface OpenApiOperation {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly parameters?: readonly OpenApiParameter[];
  readonly responses: Readonly<Record<string, OpenApiResponse>>;
  /** The twin's URL on the other host (null: none). */
  readonly 'x-counterpart': string | null;
  /** For an endpoint that holds or cuts the connection: its longest response, in ms. */
  readonly 'x-longest-ms'?: number;
  readonly 'x-random'?: string;
}

export type OpenApiPathItem = Partial<Record<Lowercase<Method>, OpenApiOperation>>;

export interface OpenApiServer {
  readonly url: string;
  readonly description: string;
  readonly variables?: Readonly<Record<string, { readonly default: string; readonly enum: readonly string[]; readonly description: string }>>;
}

/** The chaos host's TLS hosts (docs/tls.md): every mode, its host, its defect and what a correct client does. */
export interface OpenApiTls {
  readonly root: string;
  readonly hosts_json: string;
  readonly modes: readonly { readonly mode: string; readonly host: string; readonly url: string; readonly defect: string; readonly expect: string }[];
}

export interface OpenApiDocument {
  readonly openapi: typeof OPENAPI_VERSION;
  readonly info: { readonly title: string; readonly version: string; readonly description: string };
  readonly servers: readonly OpenApiServer[];
  readonly tags: readonly { readonly name: string; readonly description: string }[];
  /** TLS chaos (TLS_DIR set, chaos host): the `tls` category's hosts; they serve this document's every path. */
  readonly 'x-tls'?: OpenApiTls;
  readonly paths: Readonly<Record<string, OpenApiPathItem>>;
  readonly components: { readonly schemas: Readonly<Record<string, object>> };
}

/** The document's own version: it changes with the service, not with the registry's contents. */
const DOCUMENT_VERSION = '0.1.0';

/** `{name*}` (our rest segment) becomes `{name}`: OpenAPI templates have no rest form; the parameter says so. */
function openApiPath(path: string): string {
  return path.replace(/\{([a-z_][a-z0-9_]*)\*\}/g, '{$1}');
}

function isRest(path: string, name: string): boolean {
  return path.includes(`{${name}*}`);
}

/** The JSON Schema a parameter's spec implies: types, ranges, lengths, enums, patterns and its default. */
export function paramSchema(spec: Param<unknown>): JsonSchema {
  const withDefault = (schema: JsonSchema): JsonSchema =>
    spec.default === undefined || typeof spec.default === 'object' ? schema : { ...schema, default: spec.default };
  switch (spec.kind) {
    case 'int':
    case 'number':
      return withDefault({ type: spec.kind === 'int' ? 'integer' : 'number', minimum: spec.min, maximum: spec.max });
    case 'boolean':
      return withDefault({ type: 'boolean' });
    case 'enum':
      // Aliases are accepted values too (the original service's names), so a validator must not refuse them.
      return withDefault({ type: 'string', enum: spec.aliases ? [...(spec.accepted as readonly string[]), ...Object.keys(spec.aliases)] : (spec.accepted as readonly string[]) });
    case 'list':
      return {
        type: 'array',
        ...(spec.maxItems !== undefined ? { maxItems: spec.maxItems } : {}),
        items: { type: 'string', ...(spec.pattern !== undefined ? { pattern: spec.pattern } : {}) },
      };
    case 'string':
      return withDefault({
        type: 'string',
        ...(spec.minLength !== undefined && spec.minLength > 0 ? { minLength: spec.minLength } : {}),
        ...(spec.maxLength !== undefined ? { maxLength: spec.maxLength } : {}),
        ...(spec.pattern !== undefined ? { pattern: spec.pattern } : {}),
        ...(spec.names !== undefined && spec.argumentPattern !== undefined
          ? { anyOf: [{ type: 'string', enum: spec.names }, { type: 'string', pattern: spec.argumentPattern }] }
          : {}),
      });
  }
}

/** What a parameter is for, then what it accepts (a grammar's forms, a list's items) and how bad input is met. */
function paramDescription(spec: Param<unknown>): string {
  const accepted = typeof spec.accepted === 'string' ? spec.accepted : spec.kind === 'enum' ? undefined : `one of the forms ${spec.accepted.join(' | ')}`;
  const clamps = spec.min !== undefined ? `out-of-range values are clamped${spec.silentClamp ? '' : ' and reported in X-Chaos-Clamped'}` : undefined;
  const aliases = spec.aliases ? `also ${Object.entries(spec.aliases).map(([alias, value]) => `${alias} (= ${value})`).join(', ')}` : undefined;
  return [spec.description, accepted, aliases, clamps, 'malformed values are a 400'].filter((part) => part !== undefined).join('; ');
}

function parameter(name: string, spec: Param<unknown>, path: string): OpenApiParameter {
  const rest = spec.in === 'path' && isRest(path, name);
  return {
    name,
    in: spec.in,
    // OpenAPI requires path parameters; a query parameter with a default is optional.
    required: spec.in === 'path' || spec.required,
    description: rest ? `${paramDescription(spec)}; the rest of the path, which may span several segments (/ included)` : paramDescription(spec),
    schema: paramSchema(spec),
    ...(spec.repeatable ? { style: 'form' as const, explode: true } : {}),
    ...(rest ? { 'x-rest': true as const } : {}),
  };
}

function headerDescription(name: string): string {
  return name.toLowerCase().startsWith(CHAOS_PREFIX.toLowerCase())
    ? 'Names the chaos this response applies (absent from real failures).'
    : 'Set by this endpoint (see its documentation).';
}

/** What a WebSocket endpoint answers besides its own: the upgrade, and the real 426 to a plain request (docs/websocket.md). */
function upgradeResponses(): Record<string, OpenApiResponse> {
  const text = { type: 'string' as const };
  return {
    '101': {
      description: 'Switching Protocols: the request was a WebSocket opening handshake (Upgrade: websocket, Connection: Upgrade, Sec-WebSocket-Key, Sec-WebSocket-Version: 13); a WebSocket follows (RFC 6455).',
      headers: {
        Upgrade: { description: 'websocket', schema: text },
        'Sec-WebSocket-Accept': { description: 'The handshake answer to Sec-WebSocket-Key.', schema: text },
      },
    },
    '426': {
      description: 'Upgrade Required: a request that is not a WebSocket handshake (a real error, no X-Chaos-* line; Upgrade: websocket).',
      headers: { Upgrade: { description: 'websocket', schema: text } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    },
  };
}

function responses(endpoint: Pick<AnyEndpoint<never>, 'summary' | 'headers' | 'params' | 'methods' | 'transports'>): Record<string, OpenApiResponse> {
  const declared = endpoint.headers ?? [];
  const headers = Object.fromEntries(declared.map((name) => [name, { description: headerDescription(name), schema: { type: 'string' as const } }]));
  const problem = (description: string, schema: string): OpenApiResponse => ({ description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } });
  return {
    default: {
      description: `${endpoint.summary} (the status and body are whatever this endpoint documents)`,
      ...(declared.length > 0 ? { headers } : {}),
    },
    ...(Object.keys(endpoint.params).length > 0 ? { '400': problem('A parameter is malformed, unknown or missing (a real error, no X-Chaos-* line).', 'ParamError') } : {}),
    ...(endpoint.transports?.protocols?.includes('websocket') === true ? upgradeResponses() : {}),
    // An endpoint that takes every method never meets the router's 405.
    ...(allowedMethods(endpoint).length < METHODS.length ? { '405': problem('The method is not served here; Allow names those that are.', 'Error') } : {}),
  };
}

function operation<Ctx>(
  registry: Registry<Ctx>,
  config: Config,
  endpoint: AnyEndpoint<Ctx>,
  method: Method,
  path: string,
  operationId: string,
): OpenApiOperation {
  // An alias without a template segment (`/anything` beside `/anything/{path*}`) has no path parameter.
  const params = Object.entries(endpoint.params)
    .filter(([name, spec]) => spec.in !== 'path' || path.includes(`{${name}`))
    .map(([name, spec]) => parameter(name, spec, path));
  return {
    operationId,
    summary: endpoint.summary,
    ...(path !== endpoint.path ? { description: `An alias of ${endpoint.path}.` } : method === 'HEAD' ? { description: 'The GET response without its body.' } : {}),
    tags: [endpoint.category],
    ...(params.length > 0 ? { parameters: params } : {}),
    responses: responses(endpoint),
    'x-counterpart': counterpartUrl(registry.host, endpoint, config.urls),
    ...(endpoint.longestMs ? { 'x-longest-ms': endpoint.longestMs(config) } : {}),
    ...(endpoint.random ? { 'x-random': endpoint.random } : {}),
  };
}

/**
 * operationIds are unique in a document: the endpoint's first method takes the
 * endpoint id itself, every other method (HEAD implied by GET included) the id
 * and the method, and an alias's operations add `alias-N`.
 */
export function operationIdOf(id: string, method: Method, methodIndex: number, aliasIndex: number): string {
  const base = aliasIndex === 0 ? id : `${id}-alias-${aliasIndex}`;
  return methodIndex === 0 ? base : `${base}-${method.toLowerCase()}`;
}

/**
 * The TLS hosts as OpenAPI says "the same paths elsewhere": a server whose
 * `mode` variable is each TLS mode, the `tls` tag (a category of hosts, not of
 * operations) and `x-tls` with each mode's defect, as /tls/hosts.json has them.
 */
function tlsParts(config: Config): { server: OpenApiServer; tag: { name: string; description: string }; tls: OpenApiTls } {
  const { base, publicPort } = config.tls;
  const port = publicPort === 443 ? '' : `:${publicPort}`;
  return {
    server: {
      url: `https://{mode}.${base}${port}`,
      description: 'TLS chaos: every path of this host behind one certificate or handshake defect per mode (good is the twin); trust only the published test root (x-tls.root)',
      variables: { mode: { default: 'good', enum: TLS_MODES, description: 'the TLS mode: its defect and what a correct client does are in x-tls.modes' } },
    },
    tag: { name: 'tls', description: `${TLS_MODES.length} TLS hosts, one per certificate or handshake defect beside the good twin (docs/tls.md)` },
    tls: {
      root: `${config.urls.hub}/tls/root.pem`,
      hosts_json: `${config.urls.hub}/tls/hosts.json`,
      modes: TLS_MODES.map((mode) => {
        const host = tlsHostOf(mode, base);
        return { mode, host, url: `https://${host}${port}/`, defect: TLS_MODE_INFO[mode].defect, expect: TLS_MODE_INFO[mode].expect };
      }),
    },
  };
}

export function buildOpenApi<Ctx>(registry: Registry<Ctx>, config: Config): OpenApiDocument {
  const host: HostName = registry.host;
  const paths: Record<string, OpenApiPathItem> = {};
  for (const endpoint of registry.endpoints) {
    const methods = allowedMethods(endpoint);
    [endpoint.path, ...(endpoint.aliases ?? [])].forEach((path, aliasIndex) => {
      const item: OpenApiPathItem = {};
      methods.forEach((method, methodIndex) => {
        item[method.toLowerCase() as Lowercase<Method>] = operation(registry, config, endpoint, method, path, operationIdOf(endpoint.id, method, methodIndex, aliasIndex));
      });
      paths[openApiPath(path)] = item;
    });
  }
  const used = registry.byCategory().filter((g) => g.endpoints.length > 0);
  // The TLS hosts serve the chaos host's endpoints, where TLS_DIR turns them on.
  const tls = host === 'chaos' && config.tls.dir !== undefined ? tlsParts(config) : undefined;
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: `Chaos Endpoint Service — ${host} host`,
      version: DOCUMENT_VERSION,
      description:
        `Every endpoint of the ${host} host, generated from its registry. The catalog at / lists the same endpoints (HTML, or JSON with Accept: application/json). ` +
        'Responses marked with X-Chaos-* headers misbehave on purpose; real failures (400, 405, 429, …) never carry one.',
    },
    servers: [{ url: hostUrl(host, config.urls), description: `the ${host} host` }, ...(tls ? [tls.server] : [])],
    tags: [
      ...used.map((g) => ({ name: g.category, description: `${g.endpoints.length} endpoint${g.endpoints.length === 1 ? '' : 's'} of the ${g.category} category` })),
      ...(tls ? [tls.tag] : []),
    ],
    ...(tls ? { 'x-tls': tls.tls } : {}),
    paths,
    components: {
      schemas: {
        Error: {
          type: 'object',
          required: ['error', 'reason'],
          properties: { error: { type: 'string' }, reason: { type: 'string' } },
        },
        ParamError: {
          type: 'object',
          required: ['endpoint', 'error', 'requested', 'reason', 'param', 'accepted'],
          properties: {
            endpoint: { type: 'string' },
            error: { type: 'string', enum: ['invalid_parameter', 'missing_parameter', 'malformed_query'] },
            requested: { type: ['string', 'null'] },
            reason: { type: 'string' },
            param: { type: 'string' },
            accepted: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
          },
        },
      },
    },
  };
}

/** The document, encoded once for every request. */
export function openApiBody<Ctx>(registry: Registry<Ctx>, config: Config): Buffer {
  return Buffer.from(`${JSON.stringify(buildOpenApi(registry, config), null, 2)}\n`);
}
