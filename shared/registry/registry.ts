// One registry of endpoint definitions per host (DESIGN §3). Routing, the
// catalog, README tables, counterpart links and the /random pool all derive
// from it. A broken definition stops start-up with every problem listed.
import type { Config, HostName } from '../config/config.js';
import type { PlainResponse } from './errors.js';
import { checkParamSpecs, parseParams, splitQuery, type ParamSpecs, type ParamValues } from '../primitives/params.js';
import type { RatePolicy } from './rate-limit.js';
import type { TransportSpec } from './transports.js';

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type Method = (typeof METHODS)[number];

/** Categories per host, in catalog order. */
export const CATEGORIES = {
  chaos: [
    'latency', 'status', 'payload', 'redirects', 'headers', 'rate-limiting', 'fault-injection',
    'inspection', 'auth', 'cors', 'agent', 'discovery', 'pagination', 'method',
  ],
  // Ten, as the spec's banner reports: redirects are counted under status, and
  // the agent twins (drift, agent card, skills, MCP) have their own.
  control: [
    'latency', 'status', 'payload', 'headers', 'rate-limiting', 'auth', 'method', 'agent',
    'crawler-files', 'infinite',
  ],
  bots: ['crawler-files', 'app-linking', 'federated-identity', 'site-trust'],
} as const satisfies Record<HostName, readonly string[]>;
export type Category<H extends HostName> = (typeof CATEGORIES)[H][number];

/** How an endpoint takes part in /random: absent = never picked. */
export type RandomPool = 'seeded' | 'unseeded';

export interface EndpointDef<Ctx, P extends ParamSpecs = ParamSpecs, C extends string = string> {
  /** Kebab-case slug: names the file, metric labels and the catalog entry. */
  readonly id: string;
  /** Literal path, or a template with `{name}` segments and a final `{name*}` rest. */
  readonly path: string;
  readonly aliases?: readonly string[];
  /** Methods really routed here (HEAD is implied by GET). Default: GET. */
  readonly methods?: readonly Method[];
  /**
   * What the router's own 405 says in Allow, when it differs from `methods`:
   * an endpoint that takes every method to answer them itself still tells the
   * truth about the ones it really serves.
   */
  readonly allow?: readonly Method[];
  /**
   * Lines every answer at this path carries, the router's own 400/405 included
   * (e.g. X-Robots-Tag on generated pages). Never X-Chaos-* lines.
   */
  readonly alwaysHeaders?: readonly (readonly [string, string])[];
  /** One of the host's CATEGORIES (typed per host by defineEndpoint's second argument). */
  readonly category: C;
  readonly summary: string;
  readonly params: P;
  /** Response header names the endpoint sets beyond the common ones (catalog/docs). */
  readonly headers?: readonly string[];
  /**
   * The twin on the other host, checked at start-up by createRegistries:
   * absent = the same path on the default twin host (control for chaos and
   * bots, chaos for control); a path = that path there; `{ host, path? }` =
   * another host; `null` = no twin (a control answer then names none).
   */
  readonly counterpart?: CounterpartDecl | null;
  /** Stalls or holds the connection by design (/slow, /drip, …): never picked by /random. */
  readonly holdsConnection?: boolean;
  /**
   * The whole response is a function of the parameter values, the HTTP
   * version, keep-alive and the method alone: no randomness, no state, no
   * clock but Date, no request header. A transport may then record it once
   * per remembered decision (see Pipeline) and replay it, with a fresh Date,
   * instead of running the handler again (the chaos host does, for responses
   * written whole by Wire.respond).
   */
  readonly replayable?: boolean;
  /**
   * Which requests of a `holdsConnection` endpoint really hold (when only some
   * modes do): the others take no MAX_HELD_PER_IP slot, so they cost no store
   * call, and are not counted as held. Absent: every request holds.
   */
  readonly holdsWhen?: (params: ParamValues<P>) => boolean;
  /**
   * The longest one response of this endpoint can last, from the request to
   * its last byte or its close, under the service's configuration; stated in
   * the catalog. Required where `holdsConnection` is set.
   */
  readonly longestMs?: (config: Config) => number;
  /**
   * The enum parameter that names the endpoint's mode (a metric label);
   * default: the parameter `mode`, when there is one.
   */
  readonly modeParam?: string;
  readonly random?: RandomPool;
  /**
   * Per-IP policies beyond the general one that count this endpoint's requests;
   * the pipeline decides them all in one store call (DESIGN §7).
   */
  readonly limits?: readonly RatePolicy[];
  /**
   * Answers a request before the endpoint's own policies count it (a pure check
   * of the parsed parameters and the path as sent; the general limit still counts it).
   */
  readonly screen?: (params: ParamValues<P>, path: string) => PlainResponse | undefined;
  /**
   * Raises parameters that together would break a bound of the service (a
   * /drip schedule longer than MAX_RESPONSE_MS): returns the new values, which
   * the pipeline applies and reports in X-Chaos-Clamped like any clamp.
   */
  readonly adjust?: (params: ParamValues<P>, config: Config) => Readonly<Record<string, number>> | undefined;
  /**
   * What the chaos parser keeps of a request to this endpoint beyond the
   * default (joined header values; the body counted and discarded): the raw
   * header lines (order and case kept, and the head's bytes) and the first
   * `body.max` bytes of the decoded body.
   */
  readonly capture?: RequestCapture;
  /**
   * The catalog's ready request, where the one derived from the parameters
   * (defaults apply, required values and path segments filled in) is not good
   * enough: a template that needs a telling value (/status/418), a body for a
   * POST. A function where it depends on the configuration (a host name).
   */
  readonly example?: ExampleDecl | ((config: Config) => ExampleDecl);
  /**
   * How a response ends its connection on purpose, for the catalog's badge:
   * `close`, a FIN where a client expects more (or before any answer);
   * `reset`, a TCP reset.
   */
  readonly cuts?: 'close' | 'reset';
  /** A page the host's sitemap.xml lists (crawler files that are documents; see sitemapPaths). */
  readonly sitemap?: boolean;
  /** Which transports reach it (shared/registry/transports.ts); default: HTTP/1.1, plain or over TLS. */
  readonly transports?: TransportSpec;
  readonly handle: (ctx: Ctx, params: ParamValues<P>) => void | Promise<void>;
}

/** A ready request for the catalog (EndpointDef.example); what it leaves out is derived. */
export interface ExampleDecl {
  /** Path and query on the endpoint's host, e.g. `/status/418`; it must reach this endpoint and parse. */
  readonly target?: string;
  /** Default: GET where the endpoint serves it, else its first method. */
  readonly method?: Method;
  /** A body to send, with its media type. */
  readonly body?: { readonly type: string; readonly text: string };
}

export interface RequestCapture {
  readonly rawHeaders?: boolean;
  readonly body?: { readonly max: number };
}

/** The largest body a definition may ask to keep (the chaos parser's body limit). */
export const MAX_CAPTURED_BODY = 1024 * 1024;

/** Where a twin lives: a path on the default twin host, or a host and (by default the same) path. */
export type CounterpartDecl = string | { readonly host: HostName; readonly path?: string };

/** A resolved twin: the host and the path (a template stays a template) it answers at. */
export interface Twin {
  readonly host: HostName;
  readonly path: string;
}

/** The host a twin lives on when the definition does not say. */
export const DEFAULT_TWIN_HOST: Readonly<Record<HostName, HostName>> = { chaos: 'control', control: 'chaos', bots: 'control' };

/** The twin an endpoint of `host` declares, or null when it declares none. */
export function counterpartOf(host: HostName, endpoint: Pick<EndpointDef<never>, 'path' | 'counterpart'>): Twin | null {
  const decl = endpoint.counterpart;
  if (decl === null) return null;
  if (decl === undefined) return { host: DEFAULT_TWIN_HOST[host], path: endpoint.path };
  if (typeof decl === 'string') return { host: DEFAULT_TWIN_HOST[host], path: decl };
  return { host: decl.host, path: decl.path ?? endpoint.path };
}

/** The name of the parameter that names an endpoint's mode, if any (see EndpointDef.modeParam). */
export function modeParamOf(endpoint: Pick<EndpointDef<never>, 'params' | 'modeParam'>): string | undefined {
  return endpoint.modeParam ?? ('mode' in endpoint.params ? 'mode' : undefined);
}

const modeParamCache = new WeakMap<object, string | null>();

/** The mode of one request (its mode parameter's parsed value), for metric labels; undefined when the endpoint has none. */
export function modeOf(
  endpoint: Pick<EndpointDef<never>, 'params' | 'modeParam'>,
  values: Readonly<Record<string, unknown>>,
): string | undefined {
  let name = modeParamCache.get(endpoint);
  if (name === undefined) {
    name = modeParamOf(endpoint) ?? null;
    modeParamCache.set(endpoint, name);
  }
  if (name === null) return undefined;
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** What a registry keeps: the same definition with its parameter types erased. */
export type AnyEndpoint<Ctx> = EndpointDef<Ctx, ParamSpecs> & {
  readonly handle: (ctx: Ctx, params: Readonly<Record<string, unknown>>) => void | Promise<void>;
  readonly screen?: (params: Readonly<Record<string, unknown>>, path: string) => PlainResponse | undefined;
  readonly adjust?: (params: Readonly<Record<string, unknown>>, config: Config) => Readonly<Record<string, number>> | undefined;
};

/** Keeps the parameter types for the handler, then erases them for the registry; `C` types the category (Category<host>). */
export function defineEndpoint<Ctx, C extends string = string>() {
  return <const P extends ParamSpecs>(def: EndpointDef<Ctx, P, C>): AnyEndpoint<Ctx> => def as unknown as AnyEndpoint<Ctx>;
}

interface Segment {
  readonly literal?: string;
  readonly param?: string;
  readonly rest?: boolean;
}

interface PatternRoute<Ctx> {
  readonly endpoint: AnyEndpoint<Ctx>;
  readonly segments: readonly Segment[];
}

export interface RouteMatch<Ctx> {
  readonly endpoint: AnyEndpoint<Ctx>;
  readonly pathValues: ReadonlyMap<string, string> | undefined;
}

export class RegistryError extends Error {
  readonly code = 'ERR_CHAOS_REGISTRY';
  constructor(
    readonly host: HostName,
    readonly problems: readonly string[],
  ) {
    super(`${host} registry is broken:\n  - ${problems.join('\n  - ')}`);
    this.name = 'RegistryError';
  }
}

const SLUG_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const PARAM_SEGMENT_RE = /^\{([a-z_][a-z0-9_]*)(\*?)\}$/;

function compileTemplate(path: string): Segment[] {
  return path
    .slice(1)
    .split('/')
    .map((part) => {
      const m = PARAM_SEGMENT_RE.exec(part);
      if (!m) return { literal: part };
      return { param: m[1] as string, rest: m[2] === '*' };
    });
}

export class Registry<Ctx> {
  readonly endpoints: readonly AnyEndpoint<Ctx>[];
  readonly categories: readonly string[];
  /** Literal paths, each with its match built once (a match is read-only). */
  readonly #exact = new Map<string, RouteMatch<Ctx>>();
  /** Templated paths lately asked for, and their match (null: none): traffic repeats a few paths (/status/200). */
  readonly #recent = new Map<string, RouteMatch<Ctx> | null>();
  readonly #patterns: PatternRoute<Ctx>[] = [];
  /** Endpoints with a `{name*}` rest segment in a path: each names an unbounded family of paths (/infinite). */
  readonly #unbounded = new Set<AnyEndpoint<Ctx>>();
  /** The other hosts' registries, once createRegistries has built all three (twins then resolve to definitions). */
  #otherHosts: ReadonlyMap<HostName, Registry<unknown>> = new Map();

  constructor(
    readonly host: HostName,
    endpoints: readonly AnyEndpoint<Ctx>[],
  ) {
    this.categories = CATEGORIES[host];
    this.endpoints = Object.freeze([...endpoints]);
    const problems = this.#validate();
    if (problems.length > 0) throw new RegistryError(host, problems);
    for (const endpoint of this.endpoints) {
      for (const path of [endpoint.path, ...(endpoint.aliases ?? [])]) {
        if (path.includes('{')) {
          const segments = compileTemplate(path);
          this.#patterns.push({ endpoint, segments });
          if (segments.some((s) => s.rest === true)) this.#unbounded.add(endpoint);
        } else this.#exact.set(path, { endpoint, pathValues: undefined });
      }
    }
    const examples = this.endpoints.flatMap((e) => this.#exampleProblems(e));
    if (examples.length > 0) throw new RegistryError(host, examples);
  }

  /** A declared example (one that does not depend on the configuration) must reach its endpoint with a method it serves, and parse. */
  #exampleProblems(e: AnyEndpoint<Ctx>): string[] {
    const example = e.example;
    if (example === undefined || typeof example === 'function') return [];
    const where = `endpoint ${JSON.stringify(e.id)}: example`;
    const problems: string[] = [];
    if (example.method !== undefined && !allowedMethods(e).includes(example.method)) problems.push(`${where} method ${example.method} is not served`);
    if (example.target === undefined) return problems;
    const q = example.target.indexOf('?');
    const path = q === -1 ? example.target : example.target.slice(0, q);
    const match = this.match(path);
    if (match?.endpoint !== e) return [...problems, `${where} ${example.target} does not reach ${e.path}`];
    const parsed = parseParams(e.path, e.params, splitQuery(q === -1 ? '' : example.target.slice(q + 1)), match.pathValues);
    if (!parsed.ok) problems.push(`${where} ${example.target}: ${parsed.error.reason}`);
    return problems;
  }

  #validate(): string[] {
    const problems: string[] = [];
    const ids = new Set<string>();
    const paths = new Set<string>();
    for (const e of this.endpoints) {
      const where = `endpoint ${JSON.stringify(e.id)}`;
      if (!SLUG_RE.test(e.id)) problems.push(`${where}: id must be a kebab-case slug`);
      if (ids.has(e.id)) problems.push(`${where}: duplicate id`);
      ids.add(e.id);
      if (!this.categories.includes(e.category)) {
        problems.push(`${where}: unknown category ${JSON.stringify(e.category)} (known: ${this.categories.join(', ')})`);
      }
      for (const path of [e.path, ...(e.aliases ?? [])]) {
        if (!path.startsWith('/')) problems.push(`${where}: path ${path} must start with /`);
        // Templates that differ only in parameter names still collide.
        const shape = path.replace(/\{[^}]*\}/g, '{}');
        if (paths.has(shape)) problems.push(`${where}: duplicate path ${path}`);
        paths.add(shape);
        const segments = compileTemplate(path);
        segments.forEach((s, i) => {
          if (s.rest && i !== segments.length - 1) problems.push(`${where}: {name*} must be the last segment of ${path}`);
          if (s.param !== undefined && e.params[s.param]?.in !== 'path') {
            problems.push(`${where}: path segment {${s.param}} has no path parameter`);
          }
        });
      }
      for (const [name, spec] of Object.entries(e.params)) {
        if (spec.in === 'path' && !e.path.includes(`{${name}`)) problems.push(`${where}: path parameter ${name} is not in ${e.path}`);
      }
      for (const problem of checkParamSpecs(e.params)) problems.push(`${where}: ${problem}`);
      const modeParam = modeParamOf(e);
      if (modeParam !== undefined && e.params[modeParam]?.kind !== 'enum') {
        problems.push(`${where}: modeParam ${JSON.stringify(modeParam)} must name an enum parameter`);
      }
      const twin = counterpartOf(this.host, e);
      if (twin !== null && twin.host === this.host) problems.push(`${where}: counterpart must be on another host (or null)`);
      if (twin !== null && !twin.path.startsWith('/')) problems.push(`${where}: counterpart path ${twin.path} must start with /`);
      if (e.summary.trim() === '') problems.push(`${where}: summary is empty`);
      if (e.holdsConnection && !e.longestMs) problems.push(`${where}: holds the connection, so it must state longestMs`);
      const max = e.capture?.body?.max;
      if (max !== undefined && !(Number.isInteger(max) && max >= 0 && max <= MAX_CAPTURED_BODY)) {
        problems.push(`${where}: capture.body.max must be a whole number from 0 to ${MAX_CAPTURED_BODY}`);
      }
    }
    return problems;
  }

  /** Finds the endpoint for a path as sent (still percent-encoded: `/%73low` is not `/slow`); literal paths win over templates. Path values are decoded later, by parseParams. */
  match(path: string): RouteMatch<Ctx> | undefined {
    const exact = this.#exact.get(path);
    if (exact) return exact;
    if (this.#patterns.length === 0) return undefined;
    const known = this.#recent.get(path);
    if (known !== undefined) return known ?? undefined;
    const match = this.#matchTemplates(path);
    if (path.length <= RECENT_PATH_LENGTH) {
      if (this.#recent.size >= RECENT_PATHS) this.#recent.clear();
      this.#recent.set(path, match ?? null);
    }
    return match;
  }

  #matchTemplates(path: string): RouteMatch<Ctx> | undefined {
    const parts = path.slice(1).split('/');
    for (const route of this.#patterns) {
      const values = matchSegments(route.segments, parts);
      if (values) return { endpoint: route.endpoint, pathValues: values };
    }
    return undefined;
  }

  /**
   * `alwaysHeaders` of the endpoint whose template's literal prefix holds an
   * unmatched path (`/infinite`, `/infinite/json/users`): a namespace keeps its
   * lines on the catalog 404 too.
   */
  linesUnder(path: string): readonly (readonly [string, string])[] {
    for (const route of this.#patterns) {
      const lines = route.endpoint.alwaysHeaders;
      if (!lines) continue;
      const prefix = route.endpoint.path.slice(0, route.endpoint.path.indexOf('{'));
      if (path.startsWith(prefix) || path === prefix.replace(/\/$/, '')) return lines;
    }
    return [];
  }

  /** Called by createRegistries once all three exist, so the catalog can show a twin's own example. */
  linkHosts(registries: readonly Registry<unknown>[]): void {
    this.#otherHosts = new Map(registries.filter((r) => r.host !== this.host).map((r) => [r.host, r]));
  }

  /** The definition of an endpoint's twin; undefined when it has none or its host's registry is not linked. */
  twinOf(endpoint: AnyEndpoint<Ctx>): { readonly host: HostName; readonly endpoint: AnyEndpoint<unknown> } | undefined {
    const twin = counterpartOf(this.host, endpoint);
    const found = twin === null ? undefined : this.#otherHosts.get(twin.host)?.match(twin.path)?.endpoint;
    return twin !== null && found !== undefined ? { host: twin.host, endpoint: found } : undefined;
  }

  /** Whether `endpoint` has a rest segment (`{name*}`), so its paths form an unbounded family. */
  hasRestSegment(endpoint: AnyEndpoint<Ctx>): boolean {
    return this.#unbounded.has(endpoint);
  }

  /** Whether any endpoint asks the parser to keep more than the default. */
  get captures(): boolean {
    return this.endpoints.some((e) => e.capture !== undefined);
  }

  /** Endpoints grouped by category, in catalog order; empty categories included. */
  byCategory(): { category: string; endpoints: AnyEndpoint<Ctx>[] }[] {
    return this.categories.map((category) => ({
      category,
      endpoints: this.endpoints.filter((e) => e.category === category),
    }));
  }
}

/** The recent-match cache holds at most this many paths (then starts over), each at most this long. */
const RECENT_PATHS = 512;
const RECENT_PATH_LENGTH = 128;

function matchSegments(segments: readonly Segment[], parts: readonly string[]): Map<string, string> | undefined {
  // Most templates tried do not match: the values' Map is made only for one that does.
  if (!segmentsMatch(segments, parts)) return undefined;
  const values = new Map<string, string>();
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as Segment;
    if (segment.rest) {
      values.set(segment.param as string, parts.slice(i).join('/'));
      break;
    }
    if (segment.param !== undefined) values.set(segment.param, parts[i] as string);
  }
  return values;
}

/** Whether `parts` (a path split on `/`) fit a compiled template. */
function segmentsMatch(segments: readonly Segment[], parts: readonly string[]): boolean {
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as Segment;
    // A rest parameter takes what is left, which must not be empty (the parts are i… joined by `/`).
    if (segment.rest) return parts.length > i + 1 || (parts[i] !== undefined && parts[i] !== '');
    const part = parts[i];
    if (part === undefined) return false;
    if (segment.param !== undefined) {
      if (part === '') return false;
    } else if (segment.literal !== part) {
      return false;
    }
  }
  return parts.length === segments.length;
}

/** The Allow value of the router's 405 for an endpoint. */
export function routerAllow(endpoint: { readonly methods?: readonly Method[]; readonly allow?: readonly Method[] }): string {
  return (endpoint.allow ?? allowedMethods(endpoint)).join(', ');
}

const allowedCache = new WeakMap<object, readonly Method[]>();

/** Methods an endpoint answers, HEAD included wherever GET is (computed once per definition: routing asks on every request). */
export function allowedMethods(endpoint: { readonly methods?: readonly Method[] }): readonly Method[] {
  let allowed = allowedCache.get(endpoint);
  if (allowed === undefined) {
    const methods = endpoint.methods ?? ['GET'];
    allowed = methods.includes('GET') && !methods.includes('HEAD') ? [...methods, 'HEAD'] : methods;
    allowedCache.set(endpoint, allowed);
  }
  return allowed;
}
