// The chaos host on node:net: we parse requests ourselves and write every
// response byte ourselves, so that each lie reaches the client exactly.
import net, { type Socket } from 'node:net';
import { authorityOf, type Config } from '../../shared/config.js';
import { catalogBodies, wantsJson, type CatalogBodies } from '../../shared/catalog.js';
import { chaosBaseHeaders, httpDate, type HeaderList } from '../../shared/headers.js';
import { jsonBody } from '../../shared/json.js';
import { generalCheck, refusalFor, refusalNow, type Refusal } from '../../shared/rate-limit.js';
import type { RateCheck, Store } from '../../shared/store/types.js';
import { listenOn } from '../../shared/run.js';
import type { Logger } from '../../shared/log.js';
import { parseParams, splitQuery } from '../../shared/params.js';
import { allowedMethods, routerAllow, type Registry } from '../../shared/registry.js';
import { connectionValue, setBaseHeaders, type ChaosContext } from './endpoint.js';
import { DEFAULT_LIMITS, RequestParser, RequestRejected, type ParsedRequest, type ParserLimits } from './parser.js';
import { Wire, type EndAction, type WireOwner } from './wire.js';

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
  /** How long a connection whose response promised more bytes is held open. */
  readonly holdMs?: number;
  readonly maxRequestsPerConnection?: number;
}

/** Parsed requests waiting behind the active response; beyond this we stop parsing and reading. */
const MAX_QUEUED_REQUESTS = 16;
/** After our FIN, a client that never closes its side is cut off after this. */
const LINGER_MS = 5_000;

type Queued = ParsedRequest | RequestRejected;

export class ChaosServer {
  readonly server: net.Server;
  readonly #connections = new Set<Connection>();
  readonly #catalog: CatalogBodies;
  /** Authorities of our other hosts: a request naming one gets 421. */
  readonly #foreignHosts: ReadonlySet<string>;
  readonly requestTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly holdMs: number;
  readonly maxRequestsPerConnection: number;
  readonly limits: ParserLimits;
  readonly store: Store;
  #draining = false;

  constructor(readonly options: ChaosServerOptions) {
    const { config, registry } = options;
    this.limits = options.limits ?? DEFAULT_LIMITS;
    this.store = options.store;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
    this.holdMs = options.holdMs ?? 30_000;
    this.maxRequestsPerConnection = options.maxRequestsPerConnection ?? 1000;
    this.#catalog = catalogBodies(registry, config);
    for (const endpoint of registry.endpoints) setBaseHeaders(endpoint, chaosBaseHeaders(endpoint));
    const own = authorityOf(config.urls.base);
    this.#foreignHosts = new Set(
      [config.urls.control, config.urls.bots, config.urls.hub].map(authorityOf).filter((a) => a !== own),
    );
    this.server = net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
      const connection = new Connection(socket, this);
      this.#connections.add(connection);
      socket.once('close', () => this.#connections.delete(connection));
    });
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Connections whose socket has not closed yet (for metrics and tests). */
  get connectionCount(): number {
    return this.#connections.size;
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

  isForeignHost(host: string | undefined): boolean {
    if (host === undefined) return false;
    return this.#foreignHosts.has(normalizeAuthority(host));
  }

  catalogFor(accept: string | undefined): { type: string; body: Buffer } {
    return wantsJson(accept)
      ? { type: 'application/json', body: this.#catalog.json }
      : { type: 'text/html; charset=utf-8', body: this.#catalog.html };
  }
}

/**
 * Host as compared with our public authorities: lower case, no trailing dot on
 * the name, no explicit :80 (the WHATWG URL parser drops it from ours too).
 */
function normalizeAuthority(host: string): string {
  let h = host.toLowerCase();
  if (h.endsWith(':80')) h = h.slice(0, -3);
  const colon = h.lastIndexOf(':');
  const name = colon > h.lastIndexOf(']') ? h.slice(0, colon) : h;
  const port = h.slice(name.length);
  return name.endsWith('.') ? `${name.slice(0, -1)}${port}` : h;
}

class Connection implements WireOwner {
  readonly #parser: RequestParser;
  readonly #queue: Queued[] = [];
  #active: { wire: Wire; keepAlive: boolean } | undefined;
  #served = 0;
  #pumping = false;
  #clientEnded = false;
  #closing = false;
  #closed = false;
  /** A response promised bytes that never come: nothing more is read or answered. */
  #holding = false;
  /** A request waits for the rate limiter's answer: nothing else is dispatched meanwhile. */
  #gated = false;
  /** The general limit's check for this client; null when the limit is off. */
  #generalCheck: RateCheck | null | undefined;
  /** A request asked for 100 Continue; sent once every earlier response is out. */
  #continuePending = false;
  /** The socket's output buffer is full: the next pipelined response waits for 'drain'. */
  #waitingDrain = false;
  #requestTimer: NodeJS.Timeout | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #holdTimer: NodeJS.Timeout | undefined;
  #stallTimer: NodeJS.Timeout | undefined;
  #lingerTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly host: ChaosServer,
  ) {
    this.#parser = new RequestParser(
      {
        onRequest: (request) => {
          // The request is complete: the next one gets its own full header-read time.
          this.#continuePending = false;
          this.#clearRequestTimer();
          this.#enqueue(request);
        },
        onReject: (rejection) => {
          this.#continuePending = false;
          this.#clearRequestTimer();
          this.#enqueue(rejection);
        },
        onContinue: () => {
          this.#continuePending = true;
          this.#sendContinue();
        },
      },
      host.limits,
    );
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('end', () => this.#onClientEnd());
    socket.on('error', () => {
      /* a client that resets or vanishes is normal here; 'close' follows */
    });
    socket.on('close', () => this.#onClose());
    this.#settle();
  }

  #onData(chunk: Buffer): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    // After a rejection, a hold or our FIN, input is read and dropped (lingering close).
    if (this.#parser.dead) return;
    this.#parser.push(chunk);
    this.#afterInput();
  }

  /**
   * The client's FIN. Read as "gave up", the way nginx (499) and node:http do:
   * the response in progress stops and its timers die, queued requests are
   * dropped, and we close. What was already written still goes out before our FIN.
   */
  #onClientEnd(): void {
    this.#clientEnded = true;
    const active = this.#active;
    this.#active = undefined;
    this.#queue.length = 0;
    active?.wire.socketClosed();
    this.#settle();
  }

  /** Input backpressure, the header-read timer and the idle timer, after the parser moved. */
  #afterInput(): void {
    if (this.#closing || this.#closed) return;
    if (this.#parser.paused) this.socket.pause();
    else if (this.socket.isPaused() && !this.#holding) this.socket.resume();
    this.#armRequestTimer();
    // Input that completed nothing (empty lines) must not leave the connection without a timer.
    this.#settle();
  }

  /** From the first byte of a request until it is complete; not while we hold parsing ourselves. */
  #armRequestTimer(): void {
    if (!this.#parser.midRequest || this.#parser.paused) {
      this.#clearRequestTimer();
      return;
    }
    this.#requestTimer ??= setTimeout(() => {
      this.#requestTimer = undefined;
      this.#parser.stop();
      this.#enqueue(new RequestRejected(408, 'request not received in time'));
    }, this.host.requestTimeoutMs);
  }

  #clearRequestTimer(): void {
    clearTimeout(this.#requestTimer);
    this.#requestTimer = undefined;
  }

  #enqueue(item: Queued): void {
    this.#queue.push(item);
    // Input backpressure: stop parsing (and, after this chunk, reading) while many requests wait.
    if (this.#queue.length >= MAX_QUEUED_REQUESTS) this.#parser.pause();
    this.#pump();
  }

  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (!this.#active && !this.#gated && !this.#closing && !this.#closed && !this.#waitingDrain && this.#queue.length > 0) {
        // Output backpressure: a client that pipelines without reading gets no more responses
        // written until it reads; meanwhile nothing more is parsed or read (bounded memory).
        if (this.socket.writableNeedDrain) {
          this.#waitForDrain();
          break;
        }
        const item = this.#queue.shift() as Queued;
        if (item instanceof RequestRejected) this.#reject(item);
        else this.#dispatch(item);
        // Room in the queue again: parse what was held back, then read on.
        if (this.#parser.paused && this.#queue.length < MAX_QUEUED_REQUESTS / 2) {
          this.#parser.resume();
          this.#afterInput();
        }
      }
    } finally {
      this.#pumping = false;
    }
    this.#sendContinue();
    this.#settle();
  }

  #waitForDrain(): void {
    this.#waitingDrain = true;
    this.socket.once('drain', () => {
      this.#waitingDrain = false;
      clearTimeout(this.#stallTimer);
      this.#stallTimer = undefined;
      this.#pump();
    });
    // A client that stops reading for as long as an idle one may wait is cut off.
    this.#stallTimer = setTimeout(() => this.socket.destroy(), this.host.idleTimeoutMs);
  }

  /** The interim 100 goes out only between responses, never inside one. */
  #sendContinue(): void {
    if (!this.#continuePending || this.#active || this.#queue.length > 0 || this.#closing || this.#closed) return;
    this.#continuePending = false;
    this.socket.write('HTTP/1.1 100 Continue\r\n\r\n', 'latin1');
    // The body only starts now: give it the full request time.
    this.#clearRequestTimer();
    this.#armRequestTimer();
  }

  /** Decides what an idle connection does: wait for the next request, or close. */
  #settle(): void {
    if (this.#active || this.#gated || this.#closing || this.#closed || this.#queue.length > 0) return;
    if (this.#holding) {
      if (this.#clientEnded) this.#close();
      return;
    }
    if (this.#clientEnded || this.host.draining || this.#parser.dead) {
      if (!this.#parser.midRequest || this.#clientEnded) this.#close();
      return;
    }
    if (!this.#parser.midRequest && !this.#idleTimer) {
      this.#idleTimer = setTimeout(() => this.#close(), this.host.idleTimeoutMs);
    }
  }

  /** Called on shutdown: idle connections close now, busy ones after their response. */
  drain(): void {
    this.#settle();
  }

  destroy(): void {
    this.socket.destroy();
  }

  #close(): void {
    if (this.#closing || this.#closed) return;
    this.#closing = true;
    this.#parser.stop();
    this.#queue.length = 0;
    this.#clearTimers();
    this.socket.end();
    // Keep reading (and dropping) until the client closes: closing with unread
    // input would send RST and could destroy the response we just wrote.
    this.socket.resume();
    // A client that never closes its side is cut off after a while.
    this.#lingerTimer = setTimeout(() => this.socket.destroy(), LINGER_MS);
    this.#lingerTimer.unref();
  }

  #clearTimers(): void {
    clearTimeout(this.#requestTimer);
    clearTimeout(this.#idleTimer);
    clearTimeout(this.#holdTimer);
    clearTimeout(this.#stallTimer);
    this.#requestTimer = this.#idleTimer = this.#holdTimer = this.#stallTimer = undefined;
  }

  #onClose(): void {
    this.#closed = true;
    this.#clearTimers();
    clearTimeout(this.#lingerTimer);
    this.#parser.stop();
    this.#queue.length = 0;
    this.#active?.wire.socketClosed();
  }

  finished(wire: Wire, action: EndAction): void {
    if (this.#active?.wire !== wire) return;
    const { keepAlive } = this.#active;
    this.#active = undefined;
    // A HEAD response promised no body, so there is nothing to wait for.
    const effective: EndAction = action === 'hold' && wire.headOnly ? 'keep-alive' : action;
    switch (effective) {
      case 'keep-alive':
        if (!keepAlive) this.#close();
        else this.#pump();
        return;
      case 'close':
        this.#close();
        return;
      case 'hold':
        // The response promised bytes that never come: answer nothing more,
        // but keep reading so the client's own close is noticed.
        this.#holding = true;
        this.#parser.stop();
        this.#queue.length = 0;
        this.#clearRequestTimer();
        this.socket.resume();
        this.#holdTimer = setTimeout(() => this.#close(), this.host.holdMs);
        if (this.#clientEnded) this.#close();
        return;
      case 'reset':
        this.#closing = true;
        this.#parser.stop();
        this.#queue.length = 0;
        this.#clearTimers();
        this.socket.resetAndDestroy();
        return;
    }
  }

  /** A real failure at the edge: JSON, no X-Chaos-*, Connection: close when it is the last. */
  #edgeError(
    status: number,
    error: string,
    reason: string,
    close: boolean,
    extra: HeaderList = [],
    req?: ParsedRequest,
  ): void {
    const body = jsonBody({ error, reason });
    const headers: HeaderList = [
      ['Content-Type', 'application/json'],
      ['Content-Length', String(body.length)],
      ['Date', httpDate()],
      ...extra,
    ];
    this.#respondPlain(status, headers, body, !close, req);
  }

  /** An honest response of ours (catalog, edge error); HEAD gets the head only. */
  #respondPlain(status: number, headers: HeaderList, body: Buffer, keepAlive: boolean, req: ParsedRequest | undefined): void {
    const connection = connectionValue({ keepAlive, req });
    if (connection) headers.push(['Connection', connection]);
    const wire = new Wire(this.socket, this, req?.method === 'HEAD', this.host.idleTimeoutMs);
    this.#active = { wire, keepAlive };
    wire.head(status, headers);
    wire.write(body);
    wire.end(keepAlive ? 'keep-alive' : 'close');
  }

  #reject(rejection: RequestRejected): void {
    this.#edgeError(rejection.status, ERROR_CODES[rejection.status] ?? 'bad_request', rejection.reason, true);
  }

  #dispatch(req: ParsedRequest): void {
    this.#served++;
    const keepAlive =
      req.keepAlive && !this.#clientEnded && !this.host.draining && this.#served < this.host.maxRequestsPerConnection;

    // HAProxy routes a whole connection by its first request; later ones may name another host.
    if (this.host.isForeignHost(req.host)) {
      this.#edgeError(421, 'misdirected_request', `this connection serves the chaos host, not ${req.host ?? ''}`, true, [], req);
      return;
    }
    // The general per-IP limit, built once per connection (one client address).
    const check = (this.#generalCheck ??= generalCheck(this.host.options.config, this.socket.remoteAddress ?? '') ?? null);
    if (check === null) {
      this.#route(req, keepAlive);
      return;
    }
    const now = refusalNow(this.host.store, check);
    if (now !== 'ask') {
      this.#limited(req, keepAlive, now);
      return;
    }
    // A store that needs a round trip (Redis): the connection waits, so
    // responses keep request order.
    this.#gated = true;
    void refusalFor(this.host.store, check).then((refusal) => {
      this.#gated = false;
      if (this.#closed || this.#closing) return;
      this.#limited(req, keepAlive, refusal);
      this.#pump();
    });
  }

  /** Serves the request, or answers for the limit: a real 429, no X-Chaos-* line (DESIGN §5). */
  #limited(req: ParsedRequest, keepAlive: boolean, refusal: Refusal | undefined): void {
    if (refusal) this.#respondPlain(refusal.status, [...refusal.headers, ['Date', httpDate()]], refusal.body, keepAlive, req);
    else this.#route(req, keepAlive);
  }

  #route(req: ParsedRequest, keepAlive: boolean): void {
    const { registry, config } = this.host.options;
    const match = registry.match(req.path);
    if (!match) {
      const catalog = this.host.catalogFor(req.headers.get('accept'));
      const status = req.path === '/' ? 200 : 404;
      const headers: HeaderList = [
        ['Content-Type', catalog.type],
        ['Content-Length', String(catalog.body.length)],
        ['Date', httpDate()],
        ['Vary', 'Accept'],
      ];
      this.#respondPlain(status, headers, catalog.body, keepAlive, req);
      return;
    }

    const endpoint = match.endpoint;
    const methods = allowedMethods(endpoint);
    if (!(methods as readonly string[]).includes(req.method)) {
      this.#edgeError(405, 'method_not_allowed', `${req.method} is not served at ${endpoint.path}`, !keepAlive, [
        ['Allow', routerAllow(endpoint)],
      ], req);
      return;
    }

    const parsed = parseParams(endpoint.path, endpoint.params, splitQuery(req.query), match.pathValues);
    if (!parsed.ok) {
      const body = jsonBody(parsed.error);
      const headers: HeaderList = [
        ['Content-Type', 'application/json'],
        ['Content-Length', String(body.length)],
        ['Date', httpDate()],
      ];
      this.#respondPlain(400, headers, body, keepAlive, req);
      return;
    }

    const wire = new Wire(this.socket, this, req.method === 'HEAD', this.host.idleTimeoutMs);
    this.#active = { wire, keepAlive };
    const host = this.host;
    const ctx: ChaosContext = {
      req,
      wire,
      endpoint,
      config,
      // Read when the head is written: a shutdown that began meanwhile makes it the last response.
      get keepAlive() {
        return keepAlive && !host.draining;
      },
      clamped: parsed.clamped,
      store: this.host.store,
      clientAddress: this.socket.remoteAddress ?? '',
      registry,
    };
    const fail = (error: unknown): void => this.#handlerFailed(wire, endpoint.id, error, req);
    try {
      const pending = endpoint.handle(ctx, parsed.values);
      if (pending) pending.catch(fail);
    } catch (error) {
      fail(error);
    }
  }

  /** A bug in a handler: 500 if nothing was sent yet, else reset; never a hang. */
  #handlerFailed(wire: Wire, id: string, error: unknown, req: ParsedRequest): void {
    this.host.options.logger.error({ err: error, endpoint: id }, 'handler failed');
    if (wire.ended || wire.closed) return;
    if (wire.headWritten) {
      wire.end('reset');
      return;
    }
    // Make the failed response inert (its timers die), then answer for it.
    wire.socketClosed();
    this.#active = undefined;
    this.#edgeError(500, 'internal_error', 'the endpoint failed; this is a real error, not chaos', true, [], req);
  }
}

const ERROR_CODES: Readonly<Record<number, string>> = {
  400: 'bad_request',
  408: 'request_timeout',
  413: 'content_too_large',
  414: 'uri_too_long',
  417: 'expectation_failed',
  431: 'request_header_fields_too_large',
  501: 'not_implemented',
  505: 'http_version_not_supported',
};
