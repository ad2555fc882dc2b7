// The one request pipeline (DESIGN §3), shared by the chaos wire and node:http:
// admission (421 for another of our hosts, the per-IP policies the endpoint
// declares, decided in one store call), routing, the catalog fall-through, the
// router's 405 and 400, the endpoint's own screen, the handler, and a handler's
// failure. Each transport renders the outcome through its Responder.
import { catalogBodies, wantsJson, type CatalogBodies } from './catalog.js';
import type { Config, HostName } from './config.js';
import { errorResponse, type PlainResponse, type Refusal } from './errors.js';
import type { HeaderList } from './headers.js';
import type { Logger } from './log.js';
import { Exchange, observing, type Outcome } from './observe.js';
import { parseParams, splitQuery } from './params.js';
import { ClientChecks, refusalFor, refusalNow } from './rate-limit.js';
import { allowedMethods, modeOf, routerAllow, type AnyEndpoint, type Registry } from './registry.js';
import type { Store } from './store/types.js';

/** The parts of a request the pipeline reads, whichever transport parsed it. */
export interface IncomingRequest {
  readonly method: string;
  /** Path as sent, still percent-encoded. */
  readonly path: string;
  /** Query string without `?`, still percent-encoded. */
  readonly query: string;
  /** Host (or the absolute-form authority); undefined when absent. */
  readonly host: string | undefined;
  readonly accept: string | undefined;
}

/** How a transport answers: the one seam between the pipeline and the bytes. */
export interface Responder<Ctx> {
  /** This exchange's record while observing; the transport finishes it when the response ends. */
  exchange: Exchange | undefined;
  /** A complete response of ours (catalog, real failure); `last` closes the connection after it. */
  plain(response: PlainResponse, last: boolean): void;
  /** The context the endpoint's handler runs with. */
  context(endpoint: AnyEndpoint<Ctx>, clamped: readonly string[]): Ctx;
  /** The handler threw or rejected: answer 500 if nothing went out yet, else cut the response. */
  failed(): void;
}

export interface PipelineOptions<Ctx> {
  readonly host: HostName;
  readonly registry: Registry<Ctx>;
  readonly config: Config;
  readonly store: Store;
  readonly logger: Logger;
  /** Authorities of our other hosts that may arrive on this host's connections (HAProxy routes a connection once): 421. */
  readonly foreignHosts?: ReadonlySet<string>;
}

type Decision<Ctx> =
  | { readonly kind: 'plain'; readonly outcome: Outcome; readonly response: PlainResponse; readonly endpoint?: AnyEndpoint<Ctx> }
  | {
      readonly kind: 'serve';
      readonly endpoint: AnyEndpoint<Ctx>;
      readonly values: Readonly<Record<string, unknown>>;
      readonly clamped: readonly string[];
    };

export class Pipeline<Ctx> {
  readonly #catalog: CatalogBodies;

  constructor(readonly options: PipelineOptions<Ctx>) {
    this.#catalog = catalogBodies(options.registry, options.config);
  }

  /**
   * Answers one request. Returns a promise only when the store needs a round
   * trip to decide the limits (the chaos connection holds the next pipelined
   * request until it settles, so responses keep their order); never rejects.
   */
  dispatch(req: IncomingRequest, checks: ClientChecks, responder: Responder<Ctx>): Promise<void> | undefined {
    if (observing()) responder.exchange = new Exchange(this.options.host);
    // HAProxy routes a whole connection by its first request; later ones may name another host.
    if (req.host !== undefined && this.options.foreignHosts?.has(normalizeAuthority(req.host))) {
      const response = errorResponse(421, `this connection serves the ${this.options.host} host, not ${req.host}`);
      this.#render({ kind: 'plain', outcome: 'misdirected', response }, responder);
      return undefined;
    }
    const decision = this.#decide(req);
    const limits = checks.for(this.options.host, decision.kind === 'serve' ? decision.endpoint.limits : undefined);
    if (limits.length === 0) {
      this.#render(decision, responder);
      return undefined;
    }
    const now = refusalNow(this.options.store, limits);
    if (now !== 'ask') {
      this.#admit(decision, req, responder, now);
      return undefined;
    }
    return refusalFor(this.options.store, limits).then((refusal) => this.#admit(decision, req, responder, refusal));
  }

  /** Routing, 405, 400 and the endpoint's screen: everything decided before the limits count the request. */
  #decide(req: IncomingRequest): Decision<Ctx> {
    const { registry } = this.options;
    const match = registry.match(req.path);
    if (!match) return { kind: 'plain', outcome: 'catalog', response: this.#catalogResponse(req) };
    const endpoint = match.endpoint;
    if (!(allowedMethods(endpoint) as readonly string[]).includes(req.method)) {
      const response = errorResponse(405, `${req.method} is not served at ${endpoint.path}`, [
        ['Allow', routerAllow(endpoint)],
        ...(endpoint.alwaysHeaders ?? []),
      ]);
      return { kind: 'plain', outcome: 'method-not-allowed', response, endpoint };
    }
    const parsed = parseParams(endpoint.path, endpoint.params, splitQuery(req.query), match.pathValues);
    if (!parsed.ok) {
      return { kind: 'plain', outcome: 'invalid-params', response: errorResponse(400, parsed.error, endpoint.alwaysHeaders), endpoint };
    }
    const screened = endpoint.screen?.(parsed.values, req.path);
    if (screened) return { kind: 'plain', outcome: 'refused', response: screened, endpoint };
    return { kind: 'serve', endpoint, values: parsed.values, clamped: parsed.clamped };
  }

  #catalogResponse(req: IncomingRequest): PlainResponse {
    const json = wantsJson(req.accept);
    const body = json ? this.#catalog.json : this.#catalog.html;
    const headers: HeaderList = [
      ['Content-Type', json ? 'application/json' : 'text/html; charset=utf-8'],
      ['Content-Length', String(body.length)],
      ['Vary', 'Accept'],
    ];
    // An unknown path inside an endpoint's namespace keeps that namespace's lines (X-Robots-Tag under /infinite/).
    for (const line of this.options.registry.linesUnder(req.path)) headers.push(line);
    return { status: req.path === '/' ? 200 : 404, headers, body };
  }

  /** Serves the decision, or answers for the limit: a real 429, no X-Chaos-* line (DESIGN §5); a namespace keeps its lines. */
  #admit(decision: Decision<Ctx>, req: IncomingRequest, responder: Responder<Ctx>, refusal: Refusal | undefined): void {
    if (!refusal) {
      this.#render(decision, responder);
      return;
    }
    const headers: HeaderList = [...refusal.headers, ...this.options.registry.linesUnder(req.path)];
    const exchange = responder.exchange;
    if (exchange) {
      this.#note(exchange, decision.endpoint, undefined);
      exchange.outcome = 'rate-limited';
      exchange.policy = refusal.policy;
    }
    responder.plain({ status: refusal.status, headers, body: refusal.body }, false);
  }

  #render(decision: Decision<Ctx>, responder: Responder<Ctx>): void {
    const exchange = responder.exchange;
    if (decision.kind === 'plain') {
      if (exchange) {
        this.#note(exchange, decision.endpoint, undefined);
        exchange.outcome = decision.outcome;
      }
      responder.plain(decision.response, decision.outcome === 'misdirected');
      return;
    }
    const { endpoint, values } = decision;
    if (exchange) this.#note(exchange, endpoint, values);
    const fail = (error: unknown): void => {
      this.options.logger.error({ err: error, endpoint: endpoint.id }, 'handler failed');
      if (responder.exchange) responder.exchange.outcome = 'failed';
      responder.failed();
    };
    try {
      const pending = endpoint.handle(responder.context(endpoint, decision.clamped), values);
      if (pending) pending.catch(fail);
    } catch (error) {
      fail(error);
    }
  }

  #note(exchange: Exchange, endpoint: AnyEndpoint<Ctx> | undefined, values: Readonly<Record<string, unknown>> | undefined): void {
    if (!endpoint) return;
    exchange.endpoint = endpoint.id;
    exchange.category = endpoint.category;
    exchange.mode = values ? modeOf(endpoint, values) : undefined;
  }
}

/**
 * Host as compared with our public authorities: lower case, no trailing dot on
 * the name, no explicit :80 (the WHATWG URL parser drops it from ours too).
 */
export function normalizeAuthority(host: string): string {
  let h = host.toLowerCase();
  if (h.endsWith(':80')) h = h.slice(0, -3);
  const colon = h.lastIndexOf(':');
  const name = colon > h.lastIndexOf(']') ? h.slice(0, colon) : h;
  const port = h.slice(name.length);
  return name.endsWith('.') ? `${name.slice(0, -1)}${port}` : h;
}

/**
 * The origin-form of a request target: an absolute-form target (RFC 9112
 * §3.2.2, sent through forward proxies) loses its scheme and authority.
 */
export function originForm(target: string): string {
  if (target.startsWith('/')) return target;
  const m = /^https?:\/\/[^/?#]*(.*)$/i.exec(target);
  if (!m) return target;
  const rest = m[1] as string;
  return rest === '' || rest.startsWith('?') ? `/${rest}` : rest;
}

/** The path of a request target (origin- or absolute-form), still percent-encoded. */
export function pathOf(target: string): string {
  const origin = originForm(target);
  const q = origin.indexOf('?');
  return q === -1 ? origin : origin.slice(0, q);
}
