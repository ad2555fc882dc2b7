// The chaos host on node:net: we parse requests ourselves and write every
// response byte ourselves, so that each lie reaches the client exactly.
import net, { type Socket } from 'node:net';
import { authorityOf, type Config } from '../../shared/config.js';
import { catalogBodies, wantsJson, type CatalogBodies } from '../../shared/catalog.js';
import { chaosBaseHeaders, httpDate, type HeaderList } from '../../shared/headers.js';
import { jsonBody } from '../../shared/json.js';
import type { Logger } from '../../shared/log.js';
import { parseParams, splitQuery } from '../../shared/params.js';
import { allowedMethods, routerAllow, type Registry } from '../../shared/registry.js';
import { MemoryStore, type Store } from '../../shared/store.js';
import { setBaseHeaders, type ChaosContext } from './endpoint.js';
import { DEFAULT_LIMITS, RequestParser, RequestRejected, type ParsedRequest, type ParserLimits } from './parser.js';
import { Wire, type EndAction, type WireOwner } from './wire.js';

export interface ChaosServerOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly registry: Registry<ChaosContext>;
  /** Shared state; the in-memory store by default. */
  readonly store?: Store;
  readonly limits?: ParserLimits;
  /** From the first byte of a request until it is complete (slowloris guard): 408 after. */
  readonly requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this. */
  readonly idleTimeoutMs?: number;
  /** How long a connection whose response promised more bytes is held open. */
  readonly holdMs?: number;
  readonly maxRequestsPerConnection?: number;
}

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
    this.store = options.store ?? new MemoryStore();
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

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const address = this.server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
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
    return host !== undefined && this.#foreignHosts.has(host.toLowerCase());
  }

  catalogFor(accept: string | undefined): { type: string; body: Buffer } {
    return wantsJson(accept)
      ? { type: 'application/json', body: this.#catalog.json }
      : { type: 'text/html; charset=utf-8', body: this.#catalog.html };
  }
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
  #requestTimer: NodeJS.Timeout | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #holdTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly host: ChaosServer,
  ) {
    this.#parser = new RequestParser(
      {
        onRequest: (request) => this.#enqueue(request),
        onReject: (rejection) => this.#enqueue(rejection),
        onContinue: () => {
          // Only when nothing else is being written, or the interim head would split a response.
          if (!this.#active && this.#queue.length === 0) socket.write('HTTP/1.1 100 Continue\r\n\r\n', 'latin1');
        },
      },
      host.limits,
    );
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('end', () => {
      this.#clientEnded = true;
      this.#settle();
    });
    socket.on('error', () => {
      /* a client that resets or vanishes is normal here; 'close' follows */
    });
    socket.on('close', () => this.#onClose());
    this.#settle();
  }

  #onData(chunk: Buffer): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    if (this.#parser.dead) return;
    this.#parser.push(chunk);
    if (this.#parser.midRequest) {
      this.#requestTimer ??= setTimeout(() => {
        this.#requestTimer = undefined;
        this.#parser.stop();
        this.#enqueue(new RequestRejected(408, 'request not received in time'));
      }, this.host.requestTimeoutMs);
    } else if (this.#requestTimer) {
      clearTimeout(this.#requestTimer);
      this.#requestTimer = undefined;
    }
  }

  #enqueue(item: Queued): void {
    this.#queue.push(item);
    // Input backpressure: stop reading while many pipelined requests wait.
    if (this.#queue.length >= MAX_QUEUED_REQUESTS) this.socket.pause();
    this.#pump();
  }

  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (!this.#active && !this.#closing && !this.#closed) {
        const item = this.#queue.shift();
        if (item === undefined) break;
        if (this.socket.isPaused() && this.#queue.length < MAX_QUEUED_REQUESTS / 2) this.socket.resume();
        if (item instanceof RequestRejected) this.#reject(item);
        else this.#dispatch(item);
      }
    } finally {
      this.#pumping = false;
    }
    this.#settle();
  }

  /** Decides what an idle connection does: wait for the next request, or close. */
  #settle(): void {
    // A held connection (a response that promised more bytes) waits out its hold.
    if (this.#active || this.#closing || this.#closed || this.#holdTimer || this.#queue.length > 0) return;
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
    this.#clearTimers();
    this.socket.end();
    // A client that never closes its side is cut off after a while.
    setTimeout(() => this.socket.destroy(), LINGER_MS).unref();
  }

  #clearTimers(): void {
    clearTimeout(this.#requestTimer);
    clearTimeout(this.#idleTimer);
    clearTimeout(this.#holdTimer);
    this.#requestTimer = this.#idleTimer = this.#holdTimer = undefined;
  }

  #onClose(): void {
    this.#closed = true;
    this.#clearTimers();
    this.#parser.stop();
    this.#active?.wire.socketClosed();
  }

  finished(wire: Wire, action: EndAction): void {
    if (this.#active?.wire !== wire) return;
    const { keepAlive } = this.#active;
    this.#active = undefined;
    switch (action) {
      case 'keep-alive':
        if (!keepAlive) this.#close();
        else this.#pump();
        return;
      case 'close':
        this.#close();
        return;
      case 'hold':
        // The response promised bytes that never come: answer nothing more.
        this.#parser.stop();
        this.#queue.length = 0;
        this.#holdTimer = setTimeout(() => this.#close(), this.host.holdMs);
        return;
      case 'reset':
        this.#clearTimers();
        this.socket.resetAndDestroy();
        return;
    }
  }

  /** A real failure at the edge: JSON, no X-Chaos-*, and the connection closes. */
  #edgeError(status: number, error: string, reason: string, close: boolean, extra: HeaderList = []): void {
    const body = jsonBody({ error, reason });
    const headers: HeaderList = [
      ['Content-Type', 'application/json'],
      ['Content-Length', String(body.length)],
      ['Date', httpDate()],
      ...extra,
    ];
    if (close) headers.push(['Connection', 'close']);
    this.#respondPlain(status, headers, body, close);
  }

  #respondPlain(status: number, headers: HeaderList, body: Buffer, close: boolean, headOnly = false): void {
    const wire = new Wire(this.socket, this, headOnly);
    this.#active = { wire, keepAlive: !close };
    wire.head(status, headers);
    wire.write(body);
    wire.end(close ? 'close' : 'keep-alive');
  }

  #reject(rejection: RequestRejected): void {
    this.#edgeError(rejection.status, ERROR_CODES[rejection.status] ?? 'bad_request', rejection.reason, true);
  }

  #dispatch(req: ParsedRequest): void {
    this.#served++;
    const keepAlive =
      req.keepAlive && !this.#clientEnded && !this.host.draining && this.#served < this.host.maxRequestsPerConnection;
    const headOnly = req.method === 'HEAD';

    // HAProxy routes a whole connection by its first request; later ones may name another host.
    if (this.host.isForeignHost(req.host)) {
      this.#edgeError(421, 'misdirected_request', `this connection serves the chaos host, not ${req.host ?? ''}`, true);
      return;
    }

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
      if (!keepAlive) headers.push(['Connection', 'close']);
      this.#respondPlain(status, headers, catalog.body, !keepAlive, headOnly);
      return;
    }

    const endpoint = match.endpoint;
    const methods = allowedMethods(endpoint);
    if (!(methods as readonly string[]).includes(req.method)) {
      this.#edgeError(405, 'method_not_allowed', `${req.method} is not served at ${endpoint.path}`, !keepAlive, [
        ['Allow', routerAllow(endpoint)],
      ]);
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
      if (!keepAlive) headers.push(['Connection', 'close']);
      this.#respondPlain(400, headers, body, !keepAlive, headOnly);
      return;
    }

    const wire = new Wire(this.socket, this, headOnly);
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
    const fail = (error: unknown): void => this.#handlerFailed(wire, endpoint.id, error);
    try {
      const pending = endpoint.handle(ctx, parsed.values);
      if (pending) pending.catch(fail);
    } catch (error) {
      fail(error);
    }
  }

  /** A bug in a handler: 500 if nothing was sent yet, else reset; never a hang. */
  #handlerFailed(wire: Wire, id: string, error: unknown): void {
    this.host.options.logger.error({ err: error, endpoint: id }, 'handler failed');
    if (wire.ended || wire.closed) return;
    if (wire.headWritten) {
      wire.end('reset');
      return;
    }
    // Make the failed response inert (its timers die), then answer for it.
    wire.socketClosed();
    this.#active = undefined;
    this.#edgeError(500, 'internal_error', 'the endpoint failed; this is a real error, not chaos', true);
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
