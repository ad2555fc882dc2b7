// What an endpoint definition says (DESIGN §3): the grouped form an endpoint
// file writes, the flat form the registry and the pipeline read, and the small
// derivations of one definition (its twin, its mode) that need no registry.
import type { Config, HostName } from '../config/config.js';
import type { ParamSpecs, ParamValues } from '../primitives/params.js';
import type { PlainResponse } from './errors.js';
import type { RatePolicy } from './rate-limit.js';
import type { TransportSpec } from './transports.js';

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type Method = (typeof METHODS)[number];

/** How an endpoint takes part in /random: absent = never picked. */
export type RandomPool = 'seeded' | 'unseeded';

/**
 * One endpoint as its file writes it: what every endpoint says at the top,
 * then optional groups by concern, each with its defaults (absent = the
 * default of every field in it):
 * - `holding`: it holds the connection by design (absent: it does not);
 * - `admission`: what the pipeline decides before the handler runs;
 * - `wire`: how its bytes behave on the connection;
 * - `docs`: what the catalog, /random and the metrics say of it.
 */
export interface EndpointDef<Ctx, P extends ParamSpecs = ParamSpecs, C extends string = string> {
  /** Kebab-case slug: names the file, metric labels and the catalog entry. */
  readonly id: string;
  /** Literal path, or a template with `{name}` segments and a final `{name*}` rest. */
  readonly path: string;
  readonly aliases?: readonly string[];
  /** Methods really routed here (HEAD is implied by GET). Default: GET. */
  readonly methods?: readonly Method[];
  /** What the router's own 405 says in Allow, when it differs from `methods` (see CompiledEndpoint.allow). */
  readonly allow?: readonly Method[];
  /** One of the host's CATEGORIES (typed per host by defineEndpoint's second argument). */
  readonly category: C;
  readonly summary: string;
  readonly params: P;
  /** Response header names the endpoint sets beyond the common ones (catalog/docs; checked against what it sends). */
  readonly headers?: readonly string[];
  /** The twin on the other host (see CompiledEndpoint.counterpart); absent = the same path on the default twin host. */
  readonly counterpart?: CounterpartDecl | null;
  /** Which transports reach it (shared/registry/transports.ts); default: HTTP/1.1, plain or over TLS. */
  readonly transports?: TransportSpec;
  readonly holding?: HoldingDecl<P>;
  readonly admission?: AdmissionDecl<P>;
  readonly wire?: WireDecl;
  readonly docs?: DocsDecl;
  readonly handle: (ctx: Ctx, params: ParamValues<P>) => void | Promise<void>;
}

/** An endpoint that stalls or holds its connection (/slow, /drip, …): never picked by /random, counted against MAX_HELD_PER_IP. */
export interface HoldingDecl<P extends ParamSpecs> {
  /** The longest one response can last, request to last byte or close, under the configuration; shown in the catalog. */
  readonly longestMs: (config: Config) => number;
  /** Which requests really hold, when only some modes do (absent: every request holds). */
  readonly when?: (params: ParamValues<P>) => boolean;
}

/** What the pipeline decides about a request before the handler runs. */
export interface AdmissionDecl<P extends ParamSpecs> {
  /** Per-IP policies beyond the general one, decided with it in one store call. */
  readonly limits?: readonly RatePolicy[];
  /** Answers a request before the endpoint's own policies count it. */
  readonly screen?: (params: ParamValues<P>, path: string) => PlainResponse | undefined;
  /** Raises parameters that together would break a service bound; reported in X-Chaos-Clamped. */
  readonly adjust?: (params: ParamValues<P>, config: Config) => Readonly<Record<string, number>> | undefined;
}

/** How the endpoint's bytes behave on the connection. */
export interface WireDecl {
  /** What the chaos parser keeps beyond the default: raw header lines, the first `body.max` body bytes. */
  readonly capture?: RequestCapture;
  /** Every byte follows from the parameter values, HTTP version, keep-alive and method: recorded once and replayed. */
  readonly replayable?: boolean;
  /** How a response ends its connection on purpose (`close`: a FIN; `reset`: a TCP reset), for the catalog's badge. */
  readonly cuts?: 'close' | 'reset';
  /** Lines every answer at this path carries, the router's own 400/405 included. Never X-Chaos-* lines. */
  readonly alwaysHeaders?: readonly (readonly [string, string])[];
}

/** What the catalog, /random, the sitemap and the metrics say of the endpoint. */
export interface DocsDecl {
  /** The catalog's ready request, where the derived one is not good enough. */
  readonly example?: ExampleDecl | ((config: Config) => ExampleDecl);
  /** The enum parameter that names the mode (a metric label); default: `mode`, when there is one. */
  readonly modeParam?: string;
  /** How it takes part in /random: absent = never picked. */
  readonly random?: RandomPool;
  /** A page the host's sitemap.xml lists. */
  readonly sitemap?: boolean;
}

/**
 * A definition as the registry and the pipeline read it: the groups of an
 * EndpointDef flattened into one record of direct fields (read on every
 * request), with the parameter types erased. Built by defineEndpoint; tests
 * may write one directly.
 */
export interface CompiledEndpoint<Ctx, P extends ParamSpecs = ParamSpecs, C extends string = string> {
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
export function counterpartOf(host: HostName, endpoint: Pick<CompiledEndpoint<never>, 'path' | 'counterpart'>): Twin | null {
  const decl = endpoint.counterpart;
  if (decl === null) return null;
  if (decl === undefined) return { host: DEFAULT_TWIN_HOST[host], path: endpoint.path };
  if (typeof decl === 'string') return { host: DEFAULT_TWIN_HOST[host], path: decl };
  return { host: decl.host, path: decl.path ?? endpoint.path };
}

/** The name of the parameter that names an endpoint's mode, if any (see EndpointDef.modeParam). */
export function modeParamOf(endpoint: Pick<CompiledEndpoint<never>, 'params' | 'modeParam'>): string | undefined {
  return endpoint.modeParam ?? ('mode' in endpoint.params ? 'mode' : undefined);
}

const modeParamCache = new WeakMap<object, string | null>();

/** The mode of one request (its mode parameter's parsed value), for metric labels; undefined when the endpoint has none. */
export function modeOf(
  endpoint: Pick<CompiledEndpoint<never>, 'params' | 'modeParam'>,
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

/** What a registry keeps: a compiled definition with its parameter types erased. */
export type AnyEndpoint<Ctx> = CompiledEndpoint<Ctx, ParamSpecs> & {
  readonly handle: (ctx: Ctx, params: Readonly<Record<string, unknown>>) => void | Promise<void>;
  readonly screen?: (params: Readonly<Record<string, unknown>>, path: string) => PlainResponse | undefined;
  readonly adjust?: (params: Readonly<Record<string, unknown>>, config: Config) => Readonly<Record<string, number>> | undefined;
};

/** The fields of an EndpointDef that are not groups: copied as they are. */
type CoreFields<Ctx, P extends ParamSpecs, C extends string> = Omit<EndpointDef<Ctx, P, C>, 'holding' | 'admission' | 'wire' | 'docs'>;

/** Flattens a grouped definition; absent fields stay absent (their defaults are the absent value). */
export function compileEndpoint<Ctx, P extends ParamSpecs, C extends string>(def: EndpointDef<Ctx, P, C>): CompiledEndpoint<Ctx, P, C> {
  const { holding, admission, wire, docs, ...core } = def;
  const compiled: CoreFields<Ctx, P, C> & Record<string, unknown> = { ...core };
  if (holding !== undefined) {
    compiled['holdsConnection'] = true;
    compiled['longestMs'] = holding.longestMs;
    if (holding.when !== undefined) compiled['holdsWhen'] = holding.when;
  }
  for (const group of [admission, wire, docs]) {
    if (group === undefined) continue;
    for (const [key, value] of Object.entries(group)) if (value !== undefined) compiled[key] = value;
  }
  return compiled as CompiledEndpoint<Ctx, P, C>;
}

/** Keeps the parameter types for the handler, compiles the groups, then erases the types for the registry; `C` types the category (Category<host>). */
export function defineEndpoint<Ctx, C extends string = string>() {
  return <const P extends ParamSpecs>(def: EndpointDef<Ctx, P, C>): AnyEndpoint<Ctx> => compileEndpoint(def) as unknown as AnyEndpoint<Ctx>;
}
