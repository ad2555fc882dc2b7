// The control and bots hosts on node:http: the same registry, catalog,
// parameter and header modules as the chaos host, over a well-behaved server.
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Catalog } from '../catalog/catalog.js';
import type { Config, HostName } from '../config/config.js';
import { ConnectionCaps } from '../pipeline/connection-caps.js';
import { Pipeline, type HubPage } from '../pipeline/dispatch.js';
import { originForm } from '../pipeline/targets.js';
import type { HeaderSource, Responder, TransportFacts } from '../pipeline/transport.js';
import { errorResponse, INTERNAL_ERROR_REASON, type PlainResponse } from '../registry/errors.js';
import { addClampedHeader, CHAOS_PREFIX, controlHeaders, type HeaderList, type HeaderValue } from '../primitives/headers.js';
import type { Logger } from '../config/log.js';
import { Exchange, observing } from '../pipeline/observe.js';
import { respondInTurn } from '../primitives/turn-ends.js';
import { hubBodies } from '../hub/hub.js';
import { tlsFilePages } from '../hub/tls-files.js';
import { COMPARE_PATH, ComparePage, type ChaosRoutes } from '../hub/compare/page.js';
import { ExamPages } from '../exam/pages.js';
import { ExamRecorder } from '../exam/recorder.js';
import { ClientChecks } from '../registry/rate-limit.js';
import { defineEndpoint, type AnyEndpoint, type Category, type Registry } from '../registry/registry.js';
import { listenOn } from '../runtime/listen.js';
import type { Store } from '../store/types.js';
import { clientFromForwarded, peerAddress } from '../config/trust.js';
import { endpointLines, type EndpointLines } from './endpoint-lines.js';
import { offerUpgrade, switchedStatus, upgradeTaken } from './upgrades.js';
import { Http2Door, sniffHttp2 } from './http2-door.js';
import { http1Transport, proxiedClient } from './tls-door.js';

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
  send(status: number, contentType: string, body: Buffer | string, extra?: Readonly<Record<string, HeaderValue>>, more?: readonly HeaderList[number][]): void;
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

/** Per accepted connection: when it opened, how many requests it made, its peer's address and its client's rate checks. */
class ConnectionState {
  readonly openedAt = performance.now();
  served = 0;
  /** The peer's canonical address, read once (a socket's peer never changes). */
  peer: string | undefined = undefined;
  /** Whether the peer is in TRUST_PROXY, decided once (the peer never changes). */
  trusted: boolean | undefined = undefined;
  /** The X-Forwarded-For value `checks` were decided for (a trusted peer's connection). */
  forwarded: string | undefined = undefined;
  checks: ClientChecks | undefined = undefined;
  /** Bytes handed to the socket up to its last finished response: a response's bytes are the difference. */
  bytesAtLastFinish = 0;
}

/** Requests answered on one connection; the last says Connection: close (the chaos host's cap too). */
export const MAX_REQUESTS_PER_CONNECTION = 1000;

export class HttpService {
  readonly server: http.Server;
  readonly #pipeline: Pipeline<HttpContext>;
  /** Per endpoint: the lines of its responses, built once (see linesFor). */
  readonly #lines = new Map<HttpEndpoint, EndpointLines>();
  /** What each accepted connection (an HTTP/2 session) carries from one request to the next. */
  readonly #connections = new WeakMap<object, ConnectionState>();
  /** Prior-knowledge HTTP/2 on this port (node:http2), serving the same handlers. */
  readonly http2: Http2Door;
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
    const pages = options.chaosRoutes
      ? new Map<string, HubPage>([[COMPARE_PATH, new ComparePage({ chaos: options.chaosRoutes, config })], ...tlsFilePages(config)])
      : undefined;
    const examPages = pages ? new ExamPages(this.store, config, logger) : undefined;
    const hub = options.hubCatalogs && hubName !== ownName
      ? {
          hostname: hubName,
          bodies: hubBodies(options.hubCatalogs, config),
          ...(pages ? { pages } : {}),
          ...(examPages ? { pageAt: (path: string) => examPages.pageAt(path) } : {}),
        }
      : undefined;
    const exams = new ExamRecorder(this.store, options.host, logger);
    this.#pipeline = new Pipeline({ host: options.host, registry, config, store: this.store, logger, exams, ...(hub ? { hub } : {}) });
    for (const endpoint of registry.endpoints) this.#lines.set(endpoint, endpointLines(options.host, endpoint, config.urls));
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
    // Before node:http parses a byte: a connection that opens with the HTTP/2 preface goes to node:http2 (issue 28).
    this.http2 = new Http2Door({ maxConnectionMs: config.maxConnectionMs, maxStreams: MAX_REQUESTS_PER_CONNECTION }, (...args) => this.#handle(...args));
    sniffHttp2(this.server, (socket, head) => this.http2.accept(socket, head));
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
      this.#connections.set(socket, new ConnectionState());
      const silent = setTimeout(() => {
        if (socket.bytesRead === 0) socket.destroy();
      }, config.firstRequestTimeoutMs);
      socket.once('close', () => clearTimeout(silent));
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => this.#upgrade(req, socket, head));
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
    await Promise.all([closed, this.http2.close(graceMs)]);
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
    const trust = this.options.config.trustProxy;
    // Behind the front door's TLS passthrough: the client its PROXY v2 header named, always counted (tls-door.ts; as on chaos).
    const proxied = proxiedClient(req.socket);
    if (proxied !== undefined) return (state.checks ??= new ClientChecks(this.options.config, this.options.host, proxied, true));
    // Without trusted proxies the client is the peer for the connection's life: its checks are kept.
    if (trust.empty && state.checks !== undefined) return state.checks;
    const peer = (state.peer ??= peerAddress(req.socket.remoteAddress));
    const trusted = !trust.empty && (state.trusted ??= trust.isTrusted(peer));
    const header = trusted ? req.headers['x-forwarded-for'] : undefined;
    const forwarded = Array.isArray(header) ? header.join(',') : header;
    // A proxy's connection carries its client's requests, each with the same X-Forwarded-For: its addresses are
    // parsed and judged once, not per request (a replica behind a proxy then served 1.12x as many, bench/JOURNAL.md).
    if (state.checks !== undefined && forwarded === state.forwarded) return state.checks;
    state.forwarded = forwarded;
    const clientAddress = forwarded === undefined ? peer : (clientFromForwarded(forwarded, trust) ?? peer);
    // A trusted proxy that forwards nobody speaks for itself (its health checks): no limit counts it.
    const limited = !(trusted && forwarded === undefined);
    if (state.checks?.clientAddress !== clientAddress || state.checks.limited !== limited) {
      state.checks = new ClientChecks(this.options.config, this.options.host, clientAddress, limited);
    }
    return state.checks;
  }

  /**
   * A request that asks to switch protocols goes through the pipeline like any
   * other, answered on a response of its own over the socket node:http handed
   * over: an endpoint that switches takes the socket (upgrades.ts); after any
   * other answer (a 426, a 429, a 404) the socket closes.
   */
  #upgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    // node:http drops its own error listener when it hands the socket over: a client's reset would be uncaught.
    socket.on('error', () => undefined);
    const res = new http.ServerResponse(req);
    res.assignSocket(socket);
    res.shouldKeepAlive = false;
    offerUpgrade(req, { socket, head });
    res.once('finish', () => {
      if (!upgradeTaken(req)) socket.end();
    });
    this.#handle(req, res);
  }

  #handle(req: IncomingMessage, res: ServerResponse, transport: TransportFacts = http1Transport(req.socket), connection: object = req.socket): void {
    let state = this.#connections.get(connection);
    if (!state) this.#connections.set(connection, (state = new ConnectionState()));
    state.served++;
    // Pipelined past the cap: left unanswered; the connection closes after the last answer (HTTP/2: the door's GOAWAY).
    if (state.served > MAX_REQUESTS_PER_CONNECTION && transport.protocol === 'http/1.1') return;
    const age = performance.now() - state.openedAt;
    if (state.served === MAX_REQUESTS_PER_CONNECTION || age >= this.options.config.maxConnectionMs) res.shouldKeepAlive = false;
    const target = originForm(req.url ?? '/');
    const q = target.indexOf('?');
    const path = q === -1 ? target : target.slice(0, q);
    const query = q === -1 ? '' : target.slice(q + 1);
    const checks = this.#checksFor(req, state);
    const responder = new ResponseResponder(this, req, res, path, query, checks.clientAddress);
    // Never throws; true only means the store is deciding, and node:http keeps responses in order itself.
    const version = transport.protocol === 'h2' ? '2' : req.httpVersion === '1.0' ? '1.0' : '1.1';
    const host = transport.protocol === 'h2' ? (req.headers[':authority'] as string | undefined) ?? req.headers.host : req.headers.host;
    // The body is not read before dispatch here: a handler streams it from ctx.req.
    const incoming = { method: req.method ?? 'GET', target, path, query, host, headers: new NodeHeaders(req.headers), version, transport } as const;
    this.#pipeline.dispatch(incoming, checks, responder);
    // The response's socket, when it has one, is the request's: its connection state keeps the byte count.
    if (responder.exchange) observeResponse(responder.exchange, res, state);
  }

  /** The lines every response of an endpoint carries on this host (X-Chaos-Origin/Counterpart on control, X-Chaos-Category/Endpoint on bots). */
  linesFor(endpoint: HttpEndpoint, path: string, query: string): HeaderList {
    // An endpoint outside the registry (none today) gets its lines built on the spot.
    const lines = this.#lines.get(endpoint) ?? endpointLines(this.options.host, endpoint, this.options.config.urls);
    // A fresh list: an endpoint may add lines to its context's (/random does). On control the twin keeps the query.
    if (lines.fixed !== undefined && (query === '' || this.options.host !== 'control')) return lines.fixed.slice();
    // A templated twin (/status/{code}) is named by the concrete path asked for.
    const twin = lines.twinPrefix !== undefined ? lines.twinPrefix + path : lines.twin;
    return controlHeaders(twin === null ? null : query ? `${twin}?${query}` : twin);
  }
}

/** node:http's header object as the transport seam reads headers: repeated fields joined. */
class NodeHeaders implements HeaderSource {
  constructor(private readonly headers: IncomingHttpHeaders) {}

  get(name: string): string | undefined {
    const value = this.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

/**
 * What an observed response publishes when it ends: its exchange, its socket (node:http detaches it at
 * 'finish'; null while a pipelined response waits for it) and that connection's state.
 */
interface Observed {
  readonly exchange: Exchange;
  readonly socket: Socket | null;
  readonly connection: ConnectionState;
}

/** Where an observed response keeps that (a WeakMap entry per response costs the GC more). */
const OBSERVED = Symbol('observed');
type ObservedResponse = ServerResponse & { [OBSERVED]?: Observed };

/**
 * Publishes the exchange when node:http has handed the last byte to the socket, or when the client left first.
 * The listeners are shared functions (each response emits 'finish' and 'close' at most once), so no closures
 * are made per response for them.
 */
function observeResponse(exchange: Exchange, res: ObservedResponse, connection: ConnectionState): void {
  res[OBSERVED] = { exchange, socket: res.socket, connection };
  res.on('finish', onObservedFinish);
  res.on('close', onObservedClose);
}

function onObservedFinish(this: ObservedResponse): void {
  observedDone(this, true);
}

function onObservedClose(this: ObservedResponse): void {
  observedDone(this, this.writableFinished);
}

function observedDone(res: ObservedResponse, completed: boolean): void {
  const observed = res[OBSERVED];
  if (observed === undefined) return;
  const { exchange, socket, connection } = observed;
  const total = socket?.bytesWritten ?? 0;
  const before = socket ? connection.bytesAtLastFinish : 0;
  if (socket) connection.bytesAtLastFinish = total;
  // A WebSocket twin's 101 went out past node:http (ws writes it): the response's head never did.
  exchange.finish(res.headersSent ? res.statusCode : (switchedStatus(res.req) ?? 0), Math.max(0, total - before), completed);
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

  connectionKey(): object {
    return this.req.socket;
  }

  plain(response: PlainResponse, last: boolean): void {
    if (last) this.res.shouldKeepAlive = false;
    respondInTurn(this.res, response.status, response.headers.flat(), this.req.method === 'HEAD' ? undefined : response.body);
  }

  context(endpoint: HttpEndpoint, clamped: readonly string[]): HttpContext {
    const { service, path, query } = this;
    const headers = service.linesFor(endpoint, path, query);
    addClampedHeader(headers, clamped);
    return new RequestContext(this.req, this.res, endpoint, service, path, query, headers, this.clientAddress);
  }

  whenDone(fn: () => void): void {
    // 'close' comes once the response has finished, or when the connection dies first.
    this.res.once('close', fn);
  }

  resumed(): void {
    // node:http keeps a connection's responses in order itself: nothing waits here.
  }

  failed(): void {
    if (this.res.headersSent) this.res.destroy();
    else this.plain(errorResponse(500, INTERNAL_ERROR_REASON), false);
  }
}

/**
 * HttpContext.send: the head as one flat name/value array (what writeHead
 * takes without building its own header table), in the order Content-Type,
 * Content-Length, the context's lines, `extra` as X-Chaos-* lines, `more`.
 * A shared function read as an own property, so a context copied with spread
 * (/random's `{ ...ctx, endpoint }`) still sends, through its own fields.
 */
function sendComplete(
  this: HttpContext,
  status: number,
  contentType: string,
  body: Buffer | string,
  extra?: Readonly<Record<string, HeaderValue>>,
  more?: readonly HeaderList[number][],
): void {
  const head: string[] = ['Content-Type', contentType, 'Content-Length', String(Buffer.byteLength(body))];
  for (const [name, value] of this.headers) head.push(name, value);
  if (extra) for (const suffix in extra) head.push(`${CHAOS_PREFIX}${suffix}`, String(extra[suffix]));
  if (more) for (const [name, value] of more) head.push(name, value);
  respondInTurn(this.res, status, head, this.req.method === 'HEAD' ? undefined : body);
}

/** One request's context, as a class: a fixed shape, and no closure per request. */
class RequestContext implements HttpContext {
  readonly config: Config;
  readonly store: Store;
  readonly registry: Registry<HttpContext>;
  readonly send = sendComplete;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly endpoint: HttpEndpoint,
    service: HttpService,
    readonly path: string,
    readonly query: string,
    readonly headers: HeaderList,
    readonly clientAddress: string,
  ) {
    this.config = service.options.config;
    this.store = service.store;
    this.registry = service.options.registry;
  }
}
