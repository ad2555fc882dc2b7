// The control and bots hosts on node:http: the same registry, catalog,
// parameter and header modules as the chaos host, over a well-behaved server.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { counterpartUrl, type Catalog } from './catalog.js';
import type { Config, HostName } from './config.js';
import { ConnectionCaps } from './connection-caps.js';
import { originForm, Pipeline, type Responder } from './dispatch.js';
import { errorResponse, INTERNAL_ERROR_REASON, type PlainResponse } from './errors.js';
import { addChaosHeaders, addClampedHeader, chaosBaseHeaders, controlHeaders, type HeaderList, type HeaderValue } from './headers.js';
import type { Logger } from './log.js';
import { Exchange, observing } from './observe.js';
import { hubBodies } from './hub.js';
import { COMPARE_PATH, ComparePage, type ChaosRoutes } from './compare/page.js';
import { ClientChecks } from './rate-limit.js';
import { defineEndpoint, type AnyEndpoint, type Category, type Registry } from './registry.js';
import { listenOn } from './run.js';
import type { Store } from './store/types.js';
import { clientFromForwarded, peerAddress } from './trust.js';

export interface HttpContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly endpoint: HttpEndpoint;
  readonly config: Config;
  /** The request path, still percent-encoded. */
  readonly path: string;
  /** Raw query string without `?`. */
  readonly query: string;
  /**
   * Lines every response of this endpoint carries: on control, X-Chaos-Origin
   * and X-Chaos-Counterpart; on bots, X-Chaos-Category and X-Chaos-Endpoint;
   * plus X-Chaos-Clamped when a parameter was clamped.
   */
  readonly headers: HeaderList;
  /** Shared state (retry records, counters, budgets). */
  readonly store: Store;
  /** The client's address (canonical): X-Forwarded-For's right-most untrusted address when the peer is in TRUST_PROXY, else the peer's. */
  readonly clientAddress: string;
  /** The host's registry, for endpoints that dispatch to others (/random) without a circular import. */
  readonly registry: Registry<HttpContext>;
  /** Sends a complete response with an accurate Content-Length. */
  send(status: number, contentType: string, body: Buffer | string, extra?: Readonly<Record<string, HeaderValue>>, more?: HeaderList): void;
}

export type HttpEndpoint = AnyEndpoint<HttpContext>;
export const defineHttpEndpoint = defineEndpoint<HttpContext>();
/** Host-typed definitions: a category outside the host's list fails to compile. */
export const defineControlEndpoint = defineEndpoint<HttpContext, Category<'control'>>();
export const defineBotsEndpoint = defineEndpoint<HttpContext, Category<'bots'>>();

export interface HttpServiceOptions {
  readonly host: Exclude<HostName, 'chaos'>;
  readonly config: Config;
  readonly logger: Logger;
  readonly registry: Registry<HttpContext>;
  /** Shared state, owned by the caller (built and closed by the service runner). */
  readonly store: Store;
  /** Every host's catalog, when this process also serves the hub (control): its `/` for the hub's host lists them all. */
  readonly hubCatalogs?: readonly Catalog[];
  /** The chaos registry, when this process serves the hub: the hub's /compare fetches the paths it serves (docs/compare.md). */
  readonly chaosRoutes?: ChaosRoutes;
}

/** Per accepted connection: when it opened, how many requests it made, its client's rate checks. */
interface ConnectionState {
  readonly openedAt: number;
  served: number;
  checks: ClientChecks | undefined;
}

/** Requests answered on one connection; the last says Connection: close (the chaos host's cap too). */
export const MAX_REQUESTS_PER_CONNECTION = 1000;

export class HttpService {
  readonly server: http.Server;
  readonly #pipeline: Pipeline<HttpContext>;
  /** Per endpoint: the twin's URL without query (null: none), built once. */
  readonly #counterparts = new Map<HttpEndpoint, string | null>();
  readonly #chaosLines = new Map<HttpEndpoint, HeaderList>();
  /** What each accepted connection carries from one request to the next. */
  readonly #connections = new WeakMap<Socket, ConnectionState>();
  readonly store: Store;
  /** Per-client connection caps, applied at accept. */
  readonly caps: ConnectionCaps;
  #open = 0;

  constructor(readonly options: HttpServiceOptions) {
    const { registry, config, logger } = options;
    this.store = options.store;
    // The hub is a name of this process only when that name is not the host's own.
    const hubName = new URL(config.urls.hub).hostname.toLowerCase();
    const ownName = new URL(config.urls[options.host]).hostname.toLowerCase();
    const pages = options.chaosRoutes ? new Map([[COMPARE_PATH, new ComparePage({ chaos: options.chaosRoutes, config })]]) : undefined;
    const hub = options.hubCatalogs && hubName !== ownName
      ? { hostname: hubName, bodies: hubBodies(options.hubCatalogs, config), ...(pages ? { pages } : {}) }
      : undefined;
    this.#pipeline = new Pipeline({ host: options.host, registry, config, store: this.store, logger, ...(hub ? { hub } : {}) });
    for (const endpoint of registry.endpoints) {
      this.#counterparts.set(endpoint, counterpartUrl(options.host, endpoint, config.urls));
      this.#chaosLines.set(endpoint, chaosBaseHeaders(endpoint));
    }
    this.server = http.createServer(
      {
        requestTimeout: 30_000,
        headersTimeout: 10_000,
        keepAliveTimeout: 30_000,
        maxHeaderSize: 16_384,
        requireHostHeader: true,
      },
      (req, res) => this.#handle(req, res),
    );
    // node:http's own cap answers the request past it with a 503 (a 5xx we
    // never send): the cap is ours instead, ending the connection as chaos does.
    this.server.maxRequestsPerSocket = 0;
    // One client's share, decided at accept: the per-address cap, and a new
    // connection that sends nothing is closed sooner than an idle keep-alive one.
    this.caps = new ConnectionCaps(config);
    this.server.maxConnections = config.maxConnections;
    this.server.on('connection', (socket: Socket) => {
      if (!this.caps.admit(socket)) return;
      this.#open++;
      socket.once('close', () => this.#open--);
      this.#connections.set(socket, { openedAt: performance.now(), served: 0, checks: undefined });
      const silent = setTimeout(() => {
        if (socket.bytesRead === 0) socket.destroy();
      }, config.firstRequestTimeoutMs);
      socket.once('close', () => clearTimeout(silent));
    });
    this.server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
      if (!socket.writable) return;
      const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
      const { headers, body } = errorResponse(status, 'malformed request');
      let text = `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n`;
      for (const [name, value] of headers) text += `${name}: ${value}\r\n`;
      text += `Connection: close\r\n\r\n${body.toString('latin1')}`;
      socket.end(text, 'latin1');
      if (observing()) {
        const exchange = new Exchange(options.host);
        exchange.outcome = 'rejected';
        exchange.finish(status, text.length, true);
      }
    });
  }

  listen(port: number, host: string): Promise<number> {
    return listenOn(this.server, port, host);
  }

  /** Open client connections (chaos_connections_open). */
  get connectionCount(): number {
    return this.#open;
  }

  /** Responses of holding endpoints in progress (chaos_held_responses). */
  get heldResponses(): number {
    return this.#pipeline.heldResponses;
  }

  /** Endpoint id → route template: the metrics' endpoint label. */
  get endpointPaths(): ReadonlyMap<string, string> {
    return new Map(this.options.registry.endpoints.map((e) => [e.id, e.path]));
  }

  async shutdown(graceMs: number): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const deadline = setTimeout(() => this.server.closeAllConnections(), graceMs);
    await closed;
    clearTimeout(deadline);
  }

  /**
   * Who the limits count this request against. Only a peer in TRUST_PROXY is
   * believed about somebody else: then the client is the right-most address
   * of X-Forwarded-For that is not itself a trusted proxy (our HAProxy deletes
   * what the client sent and appends the address it saw). Anything else,
   * including a client's own X-Forwarded-For, leaves the socket's address.
   * Either way the key is a canonical address, never header text.
   */
  #checksFor(req: IncomingMessage, state: ConnectionState): ClientChecks {
    const peer = peerAddress(req.socket.remoteAddress);
    const trust = this.options.config.trustProxy;
    const forwarded = trust.empty ? undefined : req.headers['x-forwarded-for'];
    const trusted = !trust.empty && trust.isTrusted(peer);
    const clientAddress =
      forwarded === undefined || !trusted ? peer : (clientFromForwarded(Array.isArray(forwarded) ? forwarded.join(',') : forwarded, trust) ?? peer);
    // A trusted proxy that forwards nobody speaks for itself (its health checks): no limit counts it.
    const limited = !(trusted && forwarded === undefined);
    if (state.checks?.clientAddress !== clientAddress || state.checks.limited !== limited) {
      state.checks = new ClientChecks(this.options.config, this.options.host, clientAddress, limited);
    }
    return state.checks;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    let state = this.#connections.get(req.socket);
    if (!state) this.#connections.set(req.socket, (state = { openedAt: performance.now(), served: 0, checks: undefined }));
    state.served++;
    // Pipelined past the cap: left unanswered; the connection closes after the last answer.
    if (state.served > MAX_REQUESTS_PER_CONNECTION) return;
    const age = performance.now() - state.openedAt;
    if (state.served === MAX_REQUESTS_PER_CONNECTION || age >= this.options.config.maxConnectionMs) res.shouldKeepAlive = false;
    const target = originForm(req.url ?? '/');
    const q = target.indexOf('?');
    const path = q === -1 ? target : target.slice(0, q);
    const query = q === -1 ? '' : target.slice(q + 1);
    const checks = this.#checksFor(req, state);
    const responder = new ResponseResponder(this, req, res, path, query, checks.clientAddress);
    // Never rejects; a promise only means the store is deciding, and node:http keeps responses in order itself.
    void this.#pipeline.dispatch(
      { method: req.method ?? 'GET', path, query, host: req.headers.host, accept: req.headers.accept },
      checks,
      responder,
    );
    if (responder.exchange) observeResponse(responder.exchange, res);
  }

  /** The lines every response of an endpoint carries on this host (X-Chaos-Origin/Counterpart on control, X-Chaos-Category/Endpoint on bots). */
  linesFor(endpoint: HttpEndpoint, path: string, query: string): HeaderList {
    const { host, config } = this.options;
    if (host !== 'control') return [...(this.#chaosLines.get(endpoint) as HeaderList)];
    // A templated twin (/status/{code}) is named by the concrete path asked for.
    const twin = endpoint.path.includes('{') ? counterpartUrl(host, endpoint, config.urls, path) : (this.#counterparts.get(endpoint) as string | null);
    return controlHeaders(twin === null ? null : twin + (query ? `?${query}` : ''));
  }
}

/** Bytes handed to each socket up to its last finished response: a response's bytes are the difference. */
const bytesAtLastFinish = new WeakMap<Socket, number>();

/** Publishes the exchange when node:http has handed the last byte to the socket, or when the client left first. */
function observeResponse(exchange: Exchange, res: ServerResponse): void {
  const socket = res.socket;
  const done = (completed: boolean): void => {
    const total = socket?.bytesWritten ?? 0;
    const before = socket ? (bytesAtLastFinish.get(socket) ?? 0) : 0;
    if (socket) bytesAtLastFinish.set(socket, total);
    exchange.finish(res.headersSent ? res.statusCode : 0, Math.max(0, total - before), completed);
  };
  res.once('finish', () => done(true));
  res.once('close', () => done(res.writableFinished));
}

/** The pipeline's answers for one request, over node:http's ServerResponse. */
class ResponseResponder implements Responder<HttpContext> {
  exchange: Exchange | undefined;

  constructor(
    private readonly service: HttpService,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly path: string,
    private readonly query: string,
    private readonly clientAddress: string,
  ) {}

  plain(response: PlainResponse, last: boolean): void {
    if (last) this.res.shouldKeepAlive = false;
    this.res.writeHead(response.status, response.headers.flat());
    this.res.end(this.req.method === 'HEAD' ? undefined : response.body);
  }

  context(endpoint: HttpEndpoint, clamped: readonly string[]): HttpContext {
    const { req, res, path, query, service } = this;
    const headers = service.linesFor(endpoint, path, query);
    addClampedHeader(headers, clamped);
    const method = req.method;
    return {
      req,
      res,
      endpoint,
      config: service.options.config,
      path,
      query,
      headers,
      store: service.store,
      clientAddress: this.clientAddress,
      registry: service.options.registry,
      send(status, contentType, body, extra, more) {
        const lines: HeaderList = [['Content-Type', contentType], ['Content-Length', String(Buffer.byteLength(body))], ...headers];
        if (extra) addChaosHeaders(lines, extra);
        if (more) lines.push(...more);
        res.writeHead(status, lines.flat());
        res.end(method === 'HEAD' ? undefined : body);
      },
    };
  }

  whenDone(fn: () => void): void {
    // 'close' comes once the response has finished, or when the connection dies first.
    this.res.once('close', fn);
  }

  failed(): void {
    if (this.res.headersSent) this.res.destroy();
    else this.plain(errorResponse(500, INTERNAL_ERROR_REASON), false);
  }
}
