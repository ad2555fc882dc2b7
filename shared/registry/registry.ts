// One registry of endpoint definitions per host (DESIGN §3). Routing, the
// catalog, README tables, counterpart links and the /random pool all derive
// from it. A broken definition stops start-up with every problem listed.
import type { Config, HostName } from '../config/config.js';
import type { PlainResponse } from './errors.js';
import { checkParamSpecs, parseParams, splitQuery, type ParamSpecs, type ParamValues } from '../primitives/params.js';
import { counterpartOf, MAX_CAPTURED_BODY, modeParamOf, type AnyEndpoint, type Method } from './definition.js';

export * from './definition.js';

/** Categories per host, in catalog order. */
export const CATEGORIES = {
  chaos: [
    'latency', 'status', 'payload', 'redirects', 'headers', 'rate-limiting', 'fault-injection',
    'inspection', 'auth', 'cors', 'agent', 'discovery', 'pagination', 'method',
    'websocket', 'http2',
  ],
  // The spec's banner reports ten (redirects are counted under status, and the
  // agent twins have their own); websocket (issue 27) makes eleven, http2 (issue 28) twelve.
  control: [
    'latency', 'status', 'payload', 'headers', 'rate-limiting', 'auth', 'method', 'agent',
    'crawler-files', 'infinite', 'websocket', 'http2',
  ],
  bots: ['crawler-files', 'app-linking', 'federated-identity', 'site-trust'],
} as const satisfies Record<HostName, readonly string[]>;
export type Category<H extends HostName> = (typeof CATEGORIES)[H][number];

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
