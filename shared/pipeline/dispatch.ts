// The one request pipeline (DESIGN §3), shared by the chaos wire and node:http:
// admission (421 for another of our hosts, the per-IP policies the endpoint
// declares, decided in one store call), routing, the catalog fall-through, the
// router's 405 and 400, the endpoint's own screen, the handler, and a handler's
// failure. Each transport renders the outcome through its Responder.
import { missBody, suggestPaths, wantsJson, type CatalogBodies } from '../catalog/catalog.js';
import { CATALOG_ASSETS, CATALOG_PAGE_HEADERS } from '../catalog/catalog-assets.js';
import { catalogBodies } from '../catalog/catalog-page.js';
import type { Config, HostName } from '../config/config.js';
import { errorResponse, heldRefusal, transportRefusal, type PlainResponse, type Refusal } from '../registry/errors.js';
import type { HeaderList } from '../primitives/headers.js';
import type { Logger } from '../config/log.js';
import { OPENAPI_PATH, openApiBody } from '../catalog/openapi.js';
import { detached, DecisionMemo, rememberable, Recordings } from './decision-memo.js';
import { Exchange, observing, type Outcome } from './observe.js';
import { hostnameOf, normalizeAuthority } from './targets.js';
import type { ExamTap, IncomingRequest, Responder } from './transport.js';
import { parseParams, splitQuery } from '../primitives/params.js';
import { ClientChecks, refusalFor, refusalNow, refusalOf } from '../registry/rate-limit.js';
import { allowedMethods, modeOf, routerAllow, type AnyEndpoint, type Registry } from '../registry/registry.js';
import { servedTransports, transportMask, transportName } from '../registry/transports.js';
import type { RateCheck, RateDecision, RateWaiter, Store } from '../store/types.js';

export interface PipelineOptions<Ctx> {
  readonly host: HostName;
  readonly registry: Registry<Ctx>;
  readonly config: Config;
  readonly store: Store;
  readonly logger: Logger;
  /** Authorities of our other hosts that may arrive on this host's connections (HAProxy routes a connection once): 421. */
  readonly foreignHosts?: ReadonlySet<string>;
  /**
   * The hub's catalog of every host, served at `/` to a request naming the
   * hub's host (the control process serves it), and the hub's pages beside it
   * by path (/compare).
   */
  readonly hub?: {
    readonly hostname: string;
    readonly bodies: CatalogBodies;
    readonly pages?: ReadonlyMap<string, HubPage>;
    /** Pages at paths no map can list (the client exam's /exam/{id}); asked after `pages`. */
    readonly pageAt?: (path: string) => HubPage | undefined;
  };
  /** Records requests carrying an exam id (docs/exam.md); the rest pay one substring test. */
  readonly exams?: ExamTap;
}

/**
 * A page of the hub beside its catalog (shared/hub/compare/page.ts): like `/`
 * and /openapi.json not a registry endpoint (one at its path would win),
 * GET and HEAD only, counted by the general limit, answered asynchronously.
 */
export interface HubPage {
  /** The methods it answers (default GET and HEAD); others get 405. */
  readonly methods?: readonly string[];
  /** The complete answer; `signal` aborts when the client has gone. Never rejects for bad input (that is a 400). */
  answer(req: IncomingRequest, clientAddress: string, signal: AbortSignal): Promise<PlainResponse>;
}

const GET_HEAD: readonly string[] = ['GET', 'HEAD'];

/** The pairs of an empty query, shared (parseParams only reads them). */
const NO_QUERY: ReadonlyMap<string, string> = new Map();

/** A held-response slot outlives the endpoint's longest answer by this much before it lapses on its own. */
const HELD_SLOT_MARGIN_MS = 10_000;

type ServeDecision<Ctx> = Extract<Decision<Ctx>, { readonly kind: 'serve' }>;

type Decision<Ctx> =
  | { readonly kind: 'plain'; readonly outcome: Outcome; readonly response: PlainResponse; readonly endpoint?: AnyEndpoint<Ctx> }
  | { readonly kind: 'page'; readonly page: HubPage; readonly req: IncomingRequest; readonly endpoint?: undefined }
  | {
      readonly kind: 'serve';
      readonly endpoint: AnyEndpoint<Ctx>;
      readonly values: Readonly<Record<string, unknown>>;
      readonly clamped: readonly string[];
      /** Present for a replayable endpoint (EndpointDef.replayable). */
      readonly recordings: Recordings | undefined;
      /** The transports the endpoint serves (transportMask): a remembered decision still judges each request's. */
      readonly transports: number;
      /** Its mode parameter's value, and whether it holds the connection: pure, so decided once with it (serveDecision). */
      readonly mode: string | undefined;
      readonly holds: boolean;
    };

/**
 * A served decision, with what its values decide once for every request it answers (both pure): its mode, and
 * whether it holds the connection (a holding endpoint, in a mode that holds).
 */
function serveDecision<Ctx>(
  endpoint: AnyEndpoint<Ctx>,
  values: Readonly<Record<string, unknown>>,
  clamped: readonly string[],
  recordings: Recordings | undefined,
  transports: number,
): ServeDecision<Ctx> {
  const holds = endpoint.holdsConnection === true && (endpoint.holdsWhen?.(values) ?? true);
  return { kind: 'serve', endpoint, values, clamped, recordings, transports, mode: modeOf(endpoint, values), holds };
}

export class Pipeline<Ctx> {
  readonly #catalog: CatalogBodies;
  /** Responses of holding endpoints in progress in this process (chaos_held_responses). */
  heldResponses = 0;
  readonly #heldDone = (): void => {
    this.heldResponses--;
  };
  readonly #openapi: PlainResponse;
  /** Served decisions by path, then query (see #decide). */
  readonly #memo = new DecisionMemo<ServeDecision<Ctx>>();
  /** The last Host value judged foreign or not, and the answer: a client repeats its Host on every request. */
  #lastHost: string | undefined;
  #lastHostForeign = false;

  constructor(readonly options: PipelineOptions<Ctx>) {
    this.#catalog = catalogBodies(options.registry, options.config);
    const openapi = openApiBody(options.registry, options.config);
    this.#openapi = {
      status: 200,
      headers: [
        ['Content-Type', 'application/json'],
        ['Content-Length', String(openapi.length)],
        // Browser-based OpenAPI viewers fetch it from their own origin.
        ['Access-Control-Allow-Origin', '*'],
      ],
      body: openapi,
    };
  }

  /**
   * Answers one request. Returns true when the store needs a round trip to
   * decide (the limits, a held-response slot): the answer comes later, and
   * `responder.resumed()` says when (the chaos connection holds the next
   * pipelined request until then, so responses keep their order). Never throws.
   */
  dispatch(req: IncomingRequest, checks: ClientChecks, responder: Responder<Ctx>): boolean {
    const pending = this.#dispatch(req, checks, responder);
    if (pending === undefined) return false;
    if (pending !== WAITING) resumeWhenSettled(pending, responder);
    return true;
  }

  /** undefined: answered now; a promise: settles once answered; WAITING: PendingAdmission calls `resumed` (see rateDecided). */
  #dispatch(req: IncomingRequest, checks: ClientChecks, responder: Responder<Ctx>): Promise<void> | typeof WAITING | undefined {
    // A client exam's step: recorded when its exchange ends (one store call, for exam requests only).
    const note = this.options.exams !== undefined && req.query.includes('exam=') ? this.options.exams.open(req, checks.clientAddress, responder.connectionKey?.()) : undefined;
    if (note !== undefined || observing()) responder.exchange = new Exchange(this.options.host, note);
    // HAProxy routes a whole connection by its first request; later ones may name another host.
    if (req.host !== undefined && this.#foreign(req.host)) {
      const response = errorResponse(421, `this connection serves the ${this.options.host} host, not ${req.host}`);
      this.#render({ kind: 'plain', outcome: 'misdirected', response }, responder);
      return undefined;
    }
    const decision = this.#decide(req);
    const limits = checks.for(decision.kind === 'serve' ? decision.endpoint.limits : undefined);
    if (limits.length === 0) return this.#hold(decision, req, checks, responder);
    const { store } = this.options;
    const now = refusalNow(store, limits);
    if (now !== 'ask') return this.#admit(decision, req, checks, responder, now);
    if (store.checkRateFor) {
      // One small object across the round trip instead of a chain of promises.
      store.checkRateFor(limits, new PendingAdmission(this, decision, req, checks, responder, limits));
      return WAITING;
    }
    return refusalFor(store, limits).then((refusal) => this.#admit(decision, req, checks, responder, refusal));
  }

  /** The store's answer for a request that waited (PendingAdmission): serve or refuse it, then let its connection go on. */
  rateDecided(pending: PendingAdmission<Ctx>, refusal: Refusal | undefined): void {
    const { responder } = pending;
    resumeWhenSettled(this.#admit(pending.decision, pending.req, pending.checks, responder, refusal), responder);
  }

  /** Whether `host` names another of our hosts (421). */
  #foreign(host: string): boolean {
    const foreignHosts = this.options.foreignHosts;
    if (foreignHosts === undefined) return false;
    if (host !== this.#lastHost) {
      this.#lastHost = host;
      this.#lastHostForeign = foreignHosts.has(normalizeAuthority(host));
    }
    return this.#lastHostForeign;
  }

  /**
   * Routing, 405, 400 and the endpoint's screen: everything decided before
   * the limits count the request. A request served by an endpoint is decided
   * by its path and query alone (parameters, their defaults, clamps, screen
   * and adjustments are pure), so that decision is remembered: traffic
   * repeats a few targets, and the next identical request skips routing and
   * parameter parsing. The method is still judged every time.
   */
  #decide(req: IncomingRequest): Decision<Ctx> {
    const remembered = this.#memo.get(req.path, req.query);
    if (
      remembered !== undefined &&
      (remembered.transports & req.transport.bit) !== 0 &&
      (allowedMethods(remembered.endpoint) as readonly string[]).includes(req.method)
    ) {
      return remembered;
    }
    if (!rememberable(req.path, req.query)) return this.#decideAfresh(req);
    // Decided on copies of its own: a remembered decision's strings (its keys, its values) must not keep the
    // request's whole head alive (up to 24 KiB each, for 4096 decisions).
    const own = { ...req, path: detached(req.path), query: detached(req.query) };
    const decision = this.#decideAfresh(own);
    // Not under a rest segment (/infinite): a crawler walks those paths without repeats, and each would only
    // push a useful decision out.
    if (decision.kind === 'serve' && !this.options.registry.hasRestSegment(decision.endpoint)) this.#memo.remember(own.path, own.query, decision);
    return decision;
  }

  #decideAfresh(req: IncomingRequest): Decision<Ctx> {
    const { registry } = this.options;
    const match = registry.match(req.path);
    if (!match) {
      return this.#hubPage(req) ?? { kind: 'plain', outcome: 'catalog', response: this.#besideCatalog(req) ?? this.#catalogResponse(req) };
    }
    const endpoint = match.endpoint;
    const transports = transportMask(endpoint);
    if ((transports & req.transport.bit) === 0) {
      // Another transport's endpoint (TLS only, WebSocket, HTTP/2): the connection does not fit the target.
      const { protocol, tls } = req.transport;
      // A wire-only lie over HTTP/2: the registry says why it has no HTTP/2 form (a real 501, not "go elsewhere").
      const noH2 = protocol === 'h2' ? endpoint.transports?.noH2 : undefined;
      const response = noH2 !== undefined
        ? errorResponse(501, `${endpoint.path} has no HTTP/2 form: ${noH2}`)
        : transportRefusal(endpoint.path, servedTransports(endpoint.transports), transportName(protocol, tls));
      return { kind: 'plain', outcome: 'misdirected', response, endpoint };
    }
    if (!(allowedMethods(endpoint) as readonly string[]).includes(req.method)) {
      const response = errorResponse(405, `${req.method} is not served at ${endpoint.path}`, [
        ['Allow', routerAllow(endpoint)],
        ...(endpoint.alwaysHeaders ?? []),
      ]);
      return { kind: 'plain', outcome: 'method-not-allowed', response, endpoint };
    }
    const parsed = parseParams(endpoint.path, endpoint.params, req.query === '' ? NO_QUERY : splitQuery(req.query), match.pathValues);
    if (!parsed.ok) {
      return { kind: 'plain', outcome: 'invalid-params', response: errorResponse(400, parsed.error, endpoint.alwaysHeaders), endpoint };
    }
    const screened = endpoint.screen?.(parsed.values, req.path);
    if (screened) return { kind: 'plain', outcome: 'refused', response: screened, endpoint };
    const recordings = endpoint.replayable === true ? new Recordings(this.#memo.recordingBudget) : undefined;
    const raised = endpoint.adjust?.(parsed.values, this.options.config);
    const { values, clamped } = raised ? withRaised(parsed.values, parsed.clamped, raised) : parsed;
    return serveDecision(endpoint, values, clamped, recordings, transports);
  }

  /** A hub page at this path, for a request naming the hub's host: GET and HEAD only. */
  #hubPage(req: IncomingRequest): Decision<Ctx> | undefined {
    const hub = this.options.hub;
    if (!hub || req.host === undefined || hostnameOf(req.host) !== hub.hostname) return undefined;
    const page = hub.pages?.get(req.path) ?? hub.pageAt?.(req.path);
    if (!page) return undefined;
    const methods = page.methods ?? GET_HEAD;
    if (methods.includes(req.method)) return { kind: 'page', page, req };
    const response = errorResponse(405, `${req.method} is not served at ${req.path}`, [['Allow', methods.join(', ')]]);
    return { kind: 'plain', outcome: 'method-not-allowed', response };
  }

  /**
   * The OpenAPI document and the catalog pages' stylesheet and script, beside
   * the catalog (a registry endpoint at the path would win; none has one):
   * GET and HEAD only. Undefined for any other path.
   */
  #besideCatalog(req: IncomingRequest): PlainResponse | undefined {
    const response = req.path === OPENAPI_PATH ? this.#openapi : CATALOG_ASSETS.get(req.path);
    if (response === undefined || req.method === 'GET' || req.method === 'HEAD') return response;
    return errorResponse(405, `${req.method} is not served at ${req.path}`, [['Allow', 'GET, HEAD']]);
  }

  #catalogResponse(req: IncomingRequest): PlainResponse {
    const json = wantsJson(req.headers.get('accept'));
    const found = req.path === '/';
    const hub = found && req.host !== undefined && this.options.hub !== undefined && hostnameOf(req.host) === this.options.hub.hostname;
    const catalog = hub ? (this.options.hub as { readonly bodies: CatalogBodies }).bodies : this.#catalog;
    const body = found
      ? json ? catalog.json : catalog.html
      : missBody(this.#catalog, json, req.path, suggestPaths(this.options.registry, req.path));
    const headers: HeaderList = [
      ['Content-Type', json ? 'application/json' : 'text/html; charset=utf-8'],
      ['Content-Length', String(body.length)],
      ['Vary', 'Accept'],
      ...(json ? [] : CATALOG_PAGE_HEADERS),
    ];
    // An unknown path inside an endpoint's namespace keeps that namespace's lines (X-Robots-Tag under /infinite/).
    for (const line of this.options.registry.linesUnder(req.path)) headers.push(line);
    return { status: found ? 200 : 404, headers, body };
  }

  /** Serves the decision (through the held-response cap), or answers for the limit. */
  #admit(
    decision: Decision<Ctx>,
    req: IncomingRequest,
    checks: ClientChecks,
    responder: Responder<Ctx>,
    refusal: Refusal | undefined,
  ): Promise<void> | undefined {
    if (!refusal) return this.#hold(decision, req, checks, responder);
    this.#refuse(decision, req, responder, refusal);
    return undefined;
  }

  /**
   * An endpoint that holds the connection first takes one of its client's
   * MAX_HELD_PER_IP slots (shared by replicas through the store), given back
   * when the response no longer occupies the connection. Fails open: a store
   * that cannot answer lets the request through.
   */
  #hold(decision: Decision<Ctx>, req: IncomingRequest, checks: ClientChecks, responder: Responder<Ctx>): Promise<void> | undefined {
    if (decision.kind === 'page') {
      this.#page(decision.page, decision.req, checks.clientAddress, responder);
      return undefined;
    }
    const cap = this.options.config.maxHeldPerIp;
    if (decision.kind !== 'serve' || !decision.holds || cap === 0) {
      this.#render(decision, responder);
      return undefined;
    }
    const { store, config, host } = this.options;
    const key = `held:${host}:${checks.clientAddress}`;
    const ttlMs = (decision.endpoint.longestMs?.(config) ?? 0) + HELD_SLOT_MARGIN_MS;
    return store.acquireSlot(key, cap, ttlMs).then(
      (taken) => {
        if (!taken) {
          this.#refuse(decision, req, responder, heldRefusal(cap));
          return;
        }
        responder.whenDone(() => void store.releaseSlot(key).catch(() => undefined));
        this.#render(decision, responder);
      },
      () => this.#render(decision, responder),
    );
  }

  /** Runs a hub page; its work is cancelled when the client goes. */
  #page(page: HubPage, req: IncomingRequest, clientAddress: string, responder: Responder<Ctx>): void {
    if (responder.exchange) responder.exchange.outcome = 'page';
    const gone = new AbortController();
    responder.whenDone(() => gone.abort());
    page.answer(req, clientAddress, gone.signal).then(
      (response) => responder.plain(response, false),
      (error: unknown) => {
        this.options.logger.error({ err: error, page: req.path }, 'hub page failed');
        if (responder.exchange) responder.exchange.outcome = 'failed';
        responder.failed();
      },
    );
  }

  /** A real 429, no X-Chaos-* line (DESIGN §5); a namespace keeps its lines. */
  #refuse(decision: Decision<Ctx>, req: IncomingRequest, responder: Responder<Ctx>, refusal: Refusal): void {
    const headers: HeaderList = [...refusal.headers, ...this.options.registry.linesUnder(req.path)];
    const exchange = responder.exchange;
    if (exchange) {
      this.#note(exchange, decision.endpoint, undefined);
      exchange.outcome = 'rate-limited';
      exchange.policy = refusal.policy;
    }
    responder.plain({ status: refusal.status, headers, body: refusal.body }, false);
  }

  #render(decision: Exclude<Decision<Ctx>, { readonly kind: 'page' }>, responder: Responder<Ctx>): void {
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
    if (exchange) this.#note(exchange, endpoint, decision.mode);
    if (decision.holds) {
      this.heldResponses++;
      // A function made once: a closure here would keep this call's context (the responder, its request) alive for the whole hold.
      responder.whenDone(this.#heldDone);
    }
    const { recordings } = decision;
    try {
      // The same decision answered before, in a way this request can be answered again.
      if (recordings !== undefined && responder.replay?.(recordings) === true) return;
      const pending = endpoint.handle(responder.context(endpoint, decision.clamped, recordings), values);
      if (pending) pending.catch((error: unknown) => this.#failed(endpoint, responder, error));
    } catch (error) {
      this.#failed(endpoint, responder, error);
    }
  }

  /** A bug in a handler: logged, observed as failed, answered by the transport (500, or a cut response). */
  #failed(endpoint: AnyEndpoint<Ctx>, responder: Responder<Ctx>, error: unknown): void {
    this.options.logger.error({ err: error, endpoint: endpoint.id }, 'handler failed');
    if (responder.exchange) responder.exchange.outcome = 'failed';
    responder.failed();
  }

  #note(exchange: Exchange, endpoint: AnyEndpoint<Ctx> | undefined, mode: string | undefined): void {
    if (!endpoint) return;
    exchange.endpoint = endpoint.id;
    exchange.category = endpoint.category;
    exchange.mode = mode;
  }
}

/** Tells the responder its request has been answered: now, or once `pending` (a held-response slot) settles. */
function resumeWhenSettled(pending: Promise<void> | undefined, responder: { resumed(): void }): void {
  if (pending === undefined) responder.resumed();
  else void pending.then(() => responder.resumed());
}

/** #dispatch's answer when a RateWaiter will call the responder's `resumed`. */
const WAITING = Symbol('waiting');

/**
 * A request waiting for the store's rate decision (checkRateFor): what the
 * pipeline needs to go on with it, in one object. Fails open, as refusalFor does.
 */
class PendingAdmission<Ctx> implements RateWaiter {
  constructor(
    private readonly pipeline: Pipeline<Ctx>,
    readonly decision: Decision<Ctx>,
    readonly req: IncomingRequest,
    readonly checks: ClientChecks,
    readonly responder: Responder<Ctx>,
    private readonly limits: readonly RateCheck[],
  ) {}

  rateDecided(decision: RateDecision): void {
    this.pipeline.rateDecided(this, refusalOf(decision, this.limits));
  }

  rateFailed(): void {
    this.pipeline.rateDecided(this, undefined);
  }
}

/** Values with an endpoint's raised parameters applied, each reported once as clamped (`name=value`). */
function withRaised(
  values: Readonly<Record<string, unknown>>,
  clamped: readonly string[],
  raised: Readonly<Record<string, number>>,
): { values: Readonly<Record<string, unknown>>; clamped: readonly string[] } {
  const names = Object.keys(raised);
  const kept = clamped.filter((entry) => !names.includes(entry.slice(0, entry.indexOf('='))));
  return { values: { ...values, ...raised }, clamped: [...kept, ...names.map((name) => `${name}=${raised[name]}`)] };
}
