// The per-host catalog, generated from the registry (never a second hand-kept
// list): the data the JSON form serves and the pages (catalog-page.ts) show,
// with each endpoint's ready example. Built once at start-up; `/` serves it
// with 200 and every unknown path falls through to it with 404.
import type { Config, HostName, PublicUrls } from '../config/config.js';
import type { Param } from '../primitives/params.js';
import { escapeHtml } from '../primitives/html.js';
import { allowedMethods, counterpartOf, modeParamOf, type AnyEndpoint, type Method, type Registry } from '../registry/registry.js';

export interface CatalogParam {
  readonly name: string;
  readonly in: 'query' | 'path';
  readonly type: string;
  readonly required: boolean;
  readonly default?: unknown;
  readonly min?: number;
  readonly max?: number;
  readonly accepted: string | readonly string[];
  /** Other names accepted for some values (alias → value); absent when none. */
  readonly aliases?: Readonly<Record<string, string>>;
}

export interface CatalogEndpoint {
  readonly id: string;
  readonly path: string;
  readonly aliases: readonly string[];
  readonly methods: readonly string[];
  readonly summary: string;
  readonly params: readonly CatalogParam[];
  readonly headers: readonly string[];
  /** The twin's URL; null when the endpoint has none. */
  readonly counterpart: string | null;
  readonly random?: string;
  /** For an endpoint that holds the connection: the longest one response can last, in ms. */
  readonly longest_ms?: number;
  /** How a response ends its connection on purpose: `close` (a FIN) or `reset` (an RST). */
  readonly cuts?: 'close' | 'reset';
  /** The query parameter that names the endpoint's mode; its values are that parameter's `accepted`. */
  readonly mode_param?: string;
  /** A ready request: required values and path segments filled in, defaults left to apply. */
  readonly example: CatalogExample;
  /** The twin's own ready request, where the endpoint has a twin. */
  readonly counterpart_example?: CatalogExample;
}

/** A request to click (GET) or to send (another method, with its body). */
export interface CatalogExample {
  readonly method: string;
  /** Absolute, on the host that serves it. */
  readonly url: string;
  readonly content_type?: string;
  readonly body?: string;
}

export interface Catalog {
  readonly host: HostName;
  readonly url: string;
  /** The host's OpenAPI 3.1 document, generated from the same registry. */
  readonly openapi: string;
  readonly banner: string;
  readonly endpoint_count: number;
  readonly category_count: number;
  readonly rate_limit: { readonly requests: number; readonly per_seconds: number };
  readonly categories: readonly { readonly name: string; readonly count: number; readonly endpoints: readonly CatalogEndpoint[] }[];
}

const HOST_URL: Record<HostName, keyof PublicUrls> = { chaos: 'base', control: 'control', bots: 'bots' };

/** A host's configured public URL (no trailing slash). */
export function hostUrl(host: HostName, urls: PublicUrls): string {
  return urls[HOST_URL[host]];
}

/** Where each host serves its OpenAPI document (shared/catalog/openapi.ts), beside this catalog. */
export const OPENAPI_PATH = '/openapi.json';

/**
 * Absolute URL of an endpoint's twin on the other host, or null when it has
 * none. A twin at the same template (/status/{code}) is named by the concrete
 * path asked for, when one is given.
 */
export function counterpartUrl(
  host: HostName,
  endpoint: Pick<AnyEndpoint<unknown>, 'path' | 'counterpart'>,
  urls: PublicUrls,
  concretePath?: string,
): string | null {
  const twin = counterpartOf(host, endpoint);
  if (twin === null) return null;
  const path = concretePath !== undefined && twin.path === endpoint.path && endpoint.path.includes('{') ? concretePath : twin.path;
  return urls[HOST_URL[twin.host]] + path;
}

function describeParam(name: string, spec: Param<unknown>): CatalogParam {
  return {
    name,
    in: spec.in,
    type: spec.kind,
    required: spec.required,
    ...(spec.default !== undefined ? { default: spec.default } : {}),
    ...(spec.min !== undefined ? { min: spec.min, max: spec.max } : {}),
    accepted: spec.accepted,
    ...(spec.aliases ? { aliases: spec.aliases } : {}),
  };
}

/** An endpoint's ready request, as path and query on its host (see EndpointDef.example). */
export interface ExampleRequest {
  readonly method: Method;
  readonly target: string;
  readonly body?: { readonly type: string; readonly text: string };
}

/** The parts of a definition its example comes from. */
type ExampleSource = Pick<AnyEndpoint<unknown>, 'path' | 'methods' | 'params' | 'example'>;

/** The endpoint's declared example, with what it leaves out derived from the parameters. */
export function exampleOf(endpoint: ExampleSource, config: Config): ExampleRequest {
  const declared = typeof endpoint.example === 'function' ? endpoint.example(config) : endpoint.example;
  const methods = allowedMethods(endpoint);
  const method = declared?.method ?? (methods.includes('GET') ? 'GET' : (methods[0] as Method));
  const target = declared?.target ?? derivedTarget(endpoint);
  return declared?.body ? { method, target, body: declared.body } : { method, target };
}

/** The path with every `{segment}` filled in, and the required query parameters; the rest keep their defaults. */
function derivedTarget(endpoint: ExampleSource): string {
  const path = endpoint.path.replace(/\{([a-z_][a-z0-9_]*)(\*?)\}/g, (_, name: string, rest: string) => {
    const value = sampleValue(endpoint.params[name] as Param<unknown>);
    return rest ? value.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(value);
  });
  const query = Object.entries(endpoint.params)
    .filter(([, spec]) => spec.in === 'query' && spec.required)
    .map(([name, spec]) => `${encodeURIComponent(name)}=${encodeURIComponent(sampleValue(spec))}`);
  return query.length > 0 ? `${path}?${query.join('&')}` : path;
}

/** A value a parameter accepts: its default, else its first value, else the bottom of its range. */
function sampleValue(spec: Param<unknown>): string {
  if (spec.default !== undefined && String(spec.default) !== '') return String(spec.default);
  if (spec.kind === 'enum' && Array.isArray(spec.accepted)) return spec.accepted[0] as string;
  if (spec.kind === 'boolean') return 'true';
  if (spec.min !== undefined) return String(spec.min);
  return 'example';
}

function catalogExample(example: ExampleRequest, hostBase: string): CatalogExample {
  const url = hostBase + example.target;
  return example.body ? { method: example.method, url, content_type: example.body.type, body: example.body.text } : { method: example.method, url };
}

/** `mode_param`, for a mode named by a query parameter (a path segment is part of the example already). */
function modeParamField(endpoint: Pick<AnyEndpoint<unknown>, 'params' | 'modeParam'>): { mode_param?: string } {
  const name = modeParamOf(endpoint);
  return name !== undefined && endpoint.params[name]?.in === 'query' ? { mode_param: name } : {};
}

/**
 * The endpoint's example and its twin's: the twin's own when its registry is
 * linked (createRegistries), else the same request at the twin's path, as
 * X-Chaos-Counterpart names it.
 */
function examples<Ctx>(registry: Registry<Ctx>, endpoint: AnyEndpoint<Ctx>, config: Config): Pick<CatalogEndpoint, 'example' | 'counterpart_example'> {
  const own = exampleOf(endpoint, config);
  const example = catalogExample(own, hostUrl(registry.host, config.urls));
  const linked = registry.twinOf(endpoint);
  if (linked) return { example, counterpart_example: catalogExample(exampleOf(linked.endpoint, config), hostUrl(linked.host, config.urls)) };
  const twin = counterpartOf(registry.host, endpoint);
  if (twin === null) return { example };
  const q = own.target.indexOf('?');
  const [path, query] = q === -1 ? [own.target, ''] : [own.target.slice(0, q), own.target.slice(q)];
  const twinPath = twin.path === endpoint.path && endpoint.path.includes('{') ? path : twin.path;
  return { example, counterpart_example: catalogExample({ ...own, target: twinPath + query }, hostUrl(twin.host, config.urls)) };
}

export function buildCatalog<Ctx>(registry: Registry<Ctx>, config: Config): Catalog {
  const groups = registry.byCategory().filter((g) => g.endpoints.length > 0);
  const endpointCount = registry.endpoints.length;
  const rate = config.rateLimit.general;
  return {
    host: registry.host,
    url: config.urls[HOST_URL[registry.host]],
    openapi: config.urls[HOST_URL[registry.host]] + OPENAPI_PATH,
    banner:
      `${endpointCount} endpoints in ${groups.length} categories on the ${registry.host} host. ` +
      (rate > 0 ? `Rate limit: ${rate} requests per minute per IP.` : 'Rate limit: off.'),
    endpoint_count: endpointCount,
    category_count: groups.length,
    rate_limit: { requests: rate, per_seconds: 60 },
    categories: groups.map((g) => ({
      name: g.category,
      count: g.endpoints.length,
      endpoints: g.endpoints.map((e) => ({
        id: e.id,
        path: e.path,
        aliases: e.aliases ?? [],
        methods: allowedMethods(e),
        summary: e.summary,
        params: Object.entries(e.params).map(([name, spec]) => describeParam(name, spec)),
        headers: e.headers ?? [],
        counterpart: counterpartUrl(registry.host, e, config.urls),
        ...(e.random ? { random: e.random } : {}),
        ...(e.longestMs ? { longest_ms: e.longestMs(config) } : {}),
        ...(e.cuts ? { cuts: e.cuts } : {}),
        ...modeParamField(e),
        ...examples(registry, e, config),
      })),
    })),
  };
}

/** Both renderings, encoded once (catalogBodies in catalog-page.ts, hubBodies in hub.ts). */
export interface CatalogBodies {
  readonly json: Buffer;
  readonly html: Buffer;
}

/** The part of a mistyped path compared with ours: long enough for any of our paths, bounded so the distance stays cheap. */
const COMPARED_CHARS = 128;

/** Edit distance (insertions, deletions, substitutions), one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length] as number;
}

/**
 * Up to `n` of the host's paths (templates and aliases included) nearest to a
 * path that matched none, nearest first; none when nothing is close (more than
 * half the path would have to change).
 */
export function suggestPaths<Ctx>(registry: Registry<Ctx>, path: string, n = 3): string[] {
  const asked = path.slice(0, COMPARED_CHARS).toLowerCase();
  const scored: { path: string; distance: number }[] = [];
  for (const e of registry.endpoints) {
    for (const candidate of [e.path, ...(e.aliases ?? [])]) {
      const distance = editDistance(asked, candidate.toLowerCase());
      if (distance <= Math.max(2, Math.floor(candidate.length / 2))) scored.push({ path: candidate, distance });
    }
  }
  scored.sort((a, b) => a.distance - b.distance || a.path.localeCompare(b.path));
  return scored.slice(0, n).map((x) => x.path);
}

/** How a missed path is echoed: as sent, cut at 80 characters. */
function shownPath(path: string): string {
  return path.length > 80 ? `${path.slice(0, 80)}…` : path;
}

/**
 * The catalog answered for a path that matched no endpoint: the same document,
 * saying so first ("No endpoint at /x — did you mean /y?"); the JSON form
 * carries `error: "not_found"`, the path and the suggestions.
 */
export function missBody(bodies: CatalogBodies, json: boolean, path: string, suggestions: readonly string[]): Buffer {
  const shown = shownPath(path);
  if (json) {
    const fields = `{\n  "error": "not_found",\n  "path": ${JSON.stringify(shown)},\n  "suggestions": ${JSON.stringify(suggestions)},`;
    return Buffer.concat([Buffer.from(fields), bodies.json.subarray(1)]);
  }
  const links = suggestions.map((p) => (p.includes('{') ? `<code>${escapeHtml(p)}</code>` : `<a href="${escapeHtml(p)}"><code>${escapeHtml(p)}</code></a>`));
  const mean = links.length === 0 ? '' : ` Did you mean ${links.join(', ')}?`;
  const notice = `<p class="miss">No endpoint at <code>${escapeHtml(shown)}</code> on this host.${mean} Every endpoint is listed below.</p>\n`;
  const at = bodies.html.indexOf(BODY_OPEN) + BODY_OPEN.length;
  return Buffer.concat([bodies.html.subarray(0, at), Buffer.from(notice), bodies.html.subarray(at)]);
}

const BODY_OPEN = '<body>\n';

/** JSON when the client asks for it over HTML (a browser sends text/html first). */
export function wantsJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const json = accept.indexOf('application/json');
  if (json === -1) return false;
  const html = accept.indexOf('text/html');
  return html === -1 || json < html;
}
