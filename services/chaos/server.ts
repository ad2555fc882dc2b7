// The chaos host on node:net: we parse requests ourselves and write every
// response byte ourselves, so that each lie reaches the client exactly. This
// file adapts the shared pipeline to the raw wire; connection.ts is the transport.
import net, { type Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { authorityOf, type Config } from '../../shared/config/config.js';
import { ConnectionCaps } from '../../shared/pipeline/connection-caps.js';
import type { Recordings } from '../../shared/pipeline/decision-memo.js';
import { Pipeline } from '../../shared/pipeline/dispatch.js';
import { pathOf } from '../../shared/pipeline/targets.js';
import { transportFacts, type Responder, type TransportFacts } from '../../shared/pipeline/transport.js';
import { errorResponse, INTERNAL_ERROR_REASON, type PlainResponse } from '../../shared/registry/errors.js';
import { chaosBaseHeaders, dateLine, httpDate, type HeaderList } from '../../shared/primitives/headers.js';
import type { Logger } from '../../shared/config/log.js';
import { Exchange, observing } from '../../shared/pipeline/observe.js';
import { ExamRecorder } from '../../shared/exam/recorder.js';
import { ClientChecks } from '../../shared/registry/rate-limit.js';
import type { AnyEndpoint, Registry } from '../../shared/registry/registry.js';
import { listenOn } from '../../shared/runtime/listen.js';
import type { Store } from '../../shared/store/types.js';
import { Connection, type ConnectionHost } from './connection.js';
import type { ClientOf } from '../../shared/config/proxy-v2.js';
import { connectionValue, setBaseHeaders, type ChaosContext } from './endpoint.js';
import { transportLines } from './transport-lines.js';
import { ERROR } from './http2/frames.js';
import { H2Responder, h2Request } from './http2/responder.js';
import { readH2cUpgrade, SWITCHING_TO_H2C, upgradesToH2 } from './http2/h2c.js';
import { H2Session } from './http2/session.js';
import { DEFAULT_LIMITS, RequestRejected, type CaptureHook, type ParsedRequest, type ParserLimits, type ParserOptions } from './parser.js';
import type { RecordedResponse, Wire } from './wire.js';

/** The transport's timings and cap when the options leave them out (the benchmark's transport floor uses them too). */
export const CONNECTION_DEFAULTS = {
  requestTimeoutMs: 10_000,
  idleTimeoutMs: 30_000,
  maxRequestsPerConnection: 1000,
} as const;

/** A connection's wait for its first request: never longer than the idle keep-alive wait, as a silent new connection is the cheaper one to drop. */
export function firstRequestWaitMs(configuredMs: number, idleTimeoutMs: number): number {
  return Math.min(configuredMs, idleTimeoutMs);
}

/** Clients whose rate checks are kept between their connections (a few hundred bytes each). */
const MAX_CACHED_CLIENT_CHECKS = 4096;

export interface ChaosServerOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly registry: Registry<ChaosContext>;
  /** Shared state, owned by the caller (built and closed by the service runner). */
  readonly store: Store;
  readonly limits?: ParserLimits;
  /** From the first byte of a request until it is complete (slowloris guard): 408 after. */
  readonly requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this. */
  readonly idleTimeoutMs?: number;
  /** A connection that has not sent a request yet is closed after this (FIRST_REQUEST_TIMEOUT_MS by default). */
  readonly firstRequestTimeoutMs?: number;
  /** How long a connection whose response promised more bytes is held open. */
  readonly holdMs?: number;
  readonly maxRequestsPerConnection?: number;
}

export class ChaosServer implements ConnectionHost {
  readonly server: net.Server;
  readonly #connections = new Set<Connection>();
  readonly #pipeline: Pipeline<ChaosContext>;
  readonly config: Config;
  readonly requestTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly firstRequestTimeoutMs: number;
  readonly holdMs: number;
  readonly maxRequestsPerConnection: number;
  readonly limits: ParserLimits;
  readonly store: Store;
  readonly parserOptions: ParserOptions | undefined;
  /** Per-client connection caps, applied at accept. */
  readonly caps: ConnectionCaps;
  #draining = false;
  /** Rate checks per client address, shared by its connections; bounded (cleared when full: rebuilt on demand). */
  readonly #checks = new Map<string, ClientChecks>();

  constructor(readonly options: ChaosServerOptions) {
    const { config, registry, logger } = options;
    this.config = config;
    this.limits = options.limits ?? DEFAULT_LIMITS;
    this.store = options.store;
    this.requestTimeoutMs = options.requestTimeoutMs ?? CONNECTION_DEFAULTS.requestTimeoutMs;
    this.idleTimeoutMs = options.idleTimeoutMs ?? CONNECTION_DEFAULTS.idleTimeoutMs;
    this.firstRequestTimeoutMs = firstRequestWaitMs(options.firstRequestTimeoutMs ?? config.firstRequestTimeoutMs, this.idleTimeoutMs);
    this.holdMs = options.holdMs ?? config.holdMs;
    this.maxRequestsPerConnection = options.maxRequestsPerConnection ?? CONNECTION_DEFAULTS.maxRequestsPerConnection;
    for (const endpoint of registry.endpoints) setBaseHeaders(endpoint, chaosBaseHeaders(endpoint));
    const own = authorityOf(config.urls.base);
    const ownName = new URL(config.urls.base).hostname.toLowerCase();
    const foreignHosts = new Set<string>();
    for (const url of [config.urls.control, config.urls.bots, config.urls.hub, config.urls.identity, config.urls.agents]) {
      if (authorityOf(url) !== own) foreignHosts.add(authorityOf(url));
      // The front door routes by name alone, so another host's name is foreign without its port too.
      const name = new URL(url).hostname.toLowerCase();
      if (name !== ownName) foreignHosts.add(name);
    }
    // Only when some endpoint asks: otherwise the parser keeps nothing more and pays nothing.
    const capture: CaptureHook | undefined = registry.captures ? (_method, target) => registry.match(pathOf(target))?.endpoint.capture : undefined;
    this.parserOptions = capture ? { capture } : undefined;
    const exams = new ExamRecorder(this.store, 'chaos', logger);
    this.#pipeline = new Pipeline({ host: 'chaos', registry, config, store: this.store, logger, foreignHosts, exams });
    this.caps = new ConnectionCaps(config);
    this.server = net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => this.accept(socket));
    // Past this many open connections the server closes new ones at once (node's own ceiling).
    this.server.maxConnections = config.maxConnections;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Connections whose socket has not closed yet (for metrics and tests). */
  get connectionCount(): number {
    return this.#connections.size;
  }

  /** Responses of holding endpoints in progress (chaos_held_responses). */
  get heldResponses(): number {
    return this.#pipeline.heldResponses;
  }

  /** Endpoint id → route template: the metrics' endpoint label. */
  get endpointPaths(): ReadonlyMap<string, string> {
    return new Map(this.options.registry.endpoints.map((e) => [e.id, e.path]));
  }

  listen(port: number, host: string): Promise<number> {
    return listenOn(this.server, port, host);
  }

  /** Stops accepting, lets in-flight responses finish for up to `graceMs`, then cuts the rest. */
  async shutdown(graceMs: number): Promise<void> {
    this.#draining = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const connection of this.#connections) connection.drain();
    const deadline = setTimeout(() => {
      for (const connection of this.#connections) connection.destroy();
    }, graceMs);
    await closed;
    clearTimeout(deadline);
  }

  /**
   * Serves a client's socket: this server's own plain ones, or a tls.TLSSocket
   * once its handshake is done (the transport seam: the same connection code,
   * its requests marked as TLS). The socket must allow half-open (our FIN
   * follows the client's, after the response). `admitted`: the caps already
   * counted its TCP connection (the TLS listener counts before the handshake).
   * `client`: who it serves, when a PROXY v2 header was read before the handshake.
   */
  accept(socket: Socket, transport: TransportFacts = transportOf(socket), admitted = false, client?: ClientOf): void {
    if (!admitted && !this.caps.admit(socket)) return;
    this.#connections.add(new Connection(socket, this, transport, client));
  }

  connectionClosed(connection: Connection): void {
    this.#connections.delete(connection);
  }

  request(connection: Connection, req: ParsedRequest, keepAlive: boolean): boolean {
    if (req.headers.has('upgrade') && upgradesToH2(req, this.options.registry)) return this.#h2c(connection, req);
    // The parsed request is the seam's request as it is: no copy per request.
    return this.#pipeline.dispatch(req, connection.checks, new WireResponder(this, connection, req, keepAlive));
  }

  checksFor(clientAddress: string): ClientChecks {
    let checks = this.#checks.get(clientAddress);
    if (checks === undefined) {
      if (this.#checks.size >= MAX_CACHED_CLIENT_CHECKS) this.#checks.clear();
      checks = new ClientChecks(this.config, 'chaos', clientAddress);
      this.#checks.set(clientAddress, checks);
    }
    return checks;
  }

  /** A connection that opened with the HTTP/2 preface (connection.ts hands it over): its streams go through the same pipeline. */
  http2(socket: Socket, head: Buffer, clientAddress: string, transport: TransportFacts): H2Session {
    // ALPN h2's facts are already HTTP/2's, and carry the connection's X-Chaos-Tls-Mode lines (transport-lines.ts).
    const h2 = transport.protocol === 'h2' ? transport : transportFacts('h2', transport.tls, transport.alpn, transport.servername);
    const checks = this.checksFor(clientAddress);
    return new H2Session(socket, {
      lifeMs: this.config.maxResponseMs,
      idleMs: this.idleTimeoutMs,
      request: (stream, fields) => {
        const req = h2Request(fields, h2);
        if (typeof req === 'string') return stream.rst(ERROR.PROTOCOL_ERROR);
        this.#pipeline.dispatch(req, checks, new H2Responder(this, stream, req, clientAddress));
      },
    }, head);
  }

  /** An h2c upgrade to an /h2/* lie (http2/h2c.ts): 101, then HTTP/2 with the request as stream 1; a bad HTTP2-Settings is a real 400. */
  #h2c(connection: Connection, req: ParsedRequest): false {
    const upgrade = readH2cUpgrade(req);
    if (typeof upgrade === 'string') {
      this.rejected(connection, new RequestRejected(400, upgrade));
      return false;
    }
    const wire = connection.openWire(false, false, undefined);
    wire.rawHead(SWITCHING_TO_H2C);
    this.http2(wire.upgrade(), Buffer.alloc(0), connection.clientAddress, req.transport).upgraded(upgrade.settings, upgrade.fields);
    return false;
  }

  /** The registry, for the HTTP/2 responder's contexts. */
  get registry(): Registry<ChaosContext> {
    return this.options.registry;
  }

  rejected(connection: Connection, rejection: RequestRejected): void {
    let exchange: Exchange | undefined;
    if (observing()) {
      exchange = new Exchange('chaos');
      exchange.outcome = 'rejected';
    }
    writePlain(connection, errorResponse(rejection.status, rejection.reason), false, undefined, exchange);
  }
}

/** What a socket is: plain HTTP/1.1, or HTTP/1.1 over TLS with what its handshake agreed (ALPN, SNI). */
export function transportOf(socket: Socket): TransportFacts {
  if (!(socket instanceof TLSSocket)) return transportFacts('http/1.1', false);
  const { alpnProtocol } = socket;
  const servername: unknown = (socket as { servername?: unknown }).servername;
  return transportFacts('http/1.1', true, typeof alpnProtocol === 'string' ? alpnProtocol : undefined, typeof servername === 'string' ? servername : undefined);
}

/** An honest response of ours (catalog, real failure) on the raw wire: Date after the framing lines; HEAD gets the head only. */
function writePlain(
  connection: Connection,
  response: PlainResponse,
  keepAlive: boolean,
  req: ParsedRequest | undefined,
  exchange: Exchange | undefined,
): void {
  const headers: HeaderList = [];
  let dated = false;
  for (const line of response.headers) {
    headers.push(line);
    if (!dated && line[0] === 'Content-Length') {
      headers.push(['Date', httpDate()]);
      dated = true;
    }
  }
  if (!dated) headers.push(['Date', httpDate()]);
  const connectionLine = connectionValue({ keepAlive, req });
  if (connectionLine) headers.push(['Connection', connectionLine]);
  const wire = connection.openWire(req?.method === 'HEAD', keepAlive, exchange);
  wire.head(response.status, headers);
  wire.write(response.body);
  wire.end(keepAlive ? 'keep-alive' : 'close');
}

/**
 * What a chaos handler gets. A class, not an object literal: a literal with a
 * getter is a dictionary-mode object with an accessor pair V8 allocates in old
 * space, which kept every request's objects alive through scavenges (the
 * largest GC cost of the hot path).
 */
class RequestContext implements ChaosContext {
  readonly config: Config;
  readonly store: Store;
  readonly registry: Registry<ChaosContext>;
  readonly #server: ChaosServer;
  readonly #keepAlive: boolean;

  constructor(
    server: ChaosServer,
    readonly req: ParsedRequest,
    readonly wire: Wire,
    readonly endpoint: AnyEndpoint<ChaosContext>,
    readonly clamped: readonly string[],
    keepAlive: boolean,
    readonly clientAddress: string,
  ) {
    this.#server = server;
    this.#keepAlive = keepAlive;
    this.config = server.config;
    this.store = server.store;
    this.registry = server.options.registry;
  }

  /** Read when the head is written: a shutdown that began meanwhile makes it the last response. */
  get keepAlive(): boolean {
    return this.#keepAlive && !this.#server.draining;
  }
}

/** The pipeline's answers for one chaos request, over its connection's wire. */
class WireResponder implements Responder<ChaosContext> {
  exchange: Exchange | undefined;
  #wire: Wire | undefined;
  /** whenDone callbacks registered before the response's wire exists. */
  #done: (() => void)[] | undefined;

  constructor(
    private readonly server: ChaosServer,
    private readonly connection: Connection,
    private readonly req: ParsedRequest,
    private readonly keepAlive: boolean,
  ) {}

  plain(response: PlainResponse, last: boolean): void {
    writePlain(this.connection, response, this.keepAlive && !last, this.req, this.exchange);
  }

  connectionKey(): object {
    return this.connection;
  }

  context(endpoint: AnyEndpoint<ChaosContext>, clamped: readonly string[], recordings: Recordings | undefined): ChaosContext {
    const { server, req } = this;
    const wire = this.#openWire();
    // Lines of the connection's own (client-cert's subject) are never recorded: the recording would carry them elsewhere.
    if (recordings !== undefined && this.#linesKind() !== undefined) wire.recordInto(recordings, this.#variant());
    return new RequestContext(server, req, wire, endpoint, clamped, this.keepAlive, this.connection.clientAddress);
  }

  /** A replayable endpoint's recorded answer for this request's variant, written with today's Date; false when there is none yet. */
  replay(recordings: Recordings): boolean {
    if (this.#linesKind() === undefined) return false;
    const recorded = recordings.byVariant[this.#variant()] as RecordedResponse | undefined;
    const bytes = recorded?.bytesWith(dateLine());
    if (recorded === undefined || bytes === undefined) return false;
    this.#openWire().respondRecorded(recorded.status, bytes, recorded.action);
    return true;
  }

  #openWire(): Wire {
    const wire = (this.#wire = this.connection.openWire(this.req.method === 'HEAD', this.keepAlive, this.exchange));
    if (this.#done) for (const fn of this.#done) this.connection.whenDone(wire, fn);
    this.#done = undefined;
    return wire;
  }

  /** 0: no transport lines (plain); a shared kind's number (a TLS mode's); undefined: lines of this connection's own. */
  #linesKind(): number | undefined {
    const lines = transportLines(this.req.transport);
    return lines === undefined ? 0 : lines.shared;
  }

  /**
   * What a replayable response may depend on besides its decision: keep-alive
   * as the head is written (RequestContext.keepAlive), HTTP/1.0, HEAD, and its transport lines' kind.
   */
  #variant(): number {
    const base = (this.keepAlive && !this.server.draining ? 0 : 1) | (this.req.version === '1.0' ? 2 : 0) | (this.req.method === 'HEAD' ? 4 : 0);
    return base | ((this.#linesKind() ?? 0) << 3);
  }

  whenDone(fn: () => void): void {
    if (this.#wire) this.connection.whenDone(this.#wire, fn);
    else (this.#done ??= []).push(fn);
  }

  resumed(): void {
    this.connection.resume();
  }

  /** A bug in a handler: 500 if nothing was sent yet, else reset; never a hang. */
  failed(): void {
    const wire = this.#wire;
    if (wire && (wire.ended || wire.closed)) return;
    if (wire?.headWritten) {
      wire.end('reset');
      return;
    }
    // Make the failed response inert (its timers die), then answer for it.
    if (wire) this.connection.abandon(wire);
    this.plain(errorResponse(500, INTERNAL_ERROR_REASON), true);
  }
}
