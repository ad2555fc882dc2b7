// The control and bots hosts on node:http: the same registry, catalog,
// parameter and header modules as the chaos host, over a well-behaved server.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { catalogBodies, counterpartUrl, wantsJson } from './catalog.js';
import type { Config, HostName } from './config.js';
import { addChaosHeaders, addClampedHeader, chaosBaseHeaders, controlHeaders, type HeaderList, type HeaderValue } from './headers.js';
import { jsonBody } from './json.js';
import { listenOn } from './run.js';
import type { Logger } from './log.js';
import { parseParams, splitQuery } from './params.js';
import { allowedMethods, defineEndpoint, routerAllow, type AnyEndpoint, type Category, type Registry } from './registry.js';
import { generalCheck, refusalFor, refusalNow, type Refusal } from './rate-limit.js';
import { MemoryStore, type Store } from './store.js';

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
  /** The client's address: X-Forwarded-For's last hop when the peer is a trusted proxy. */
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
  /** Shared state; the in-memory store by default. */
  readonly store?: Store;
}

export class HttpService {
  readonly server: http.Server;
  readonly #catalog;
  /** Per endpoint: the twin's URL without query (null: none), built once. */
  readonly #counterparts = new Map<HttpEndpoint, string | null>();
  readonly #chaosLines = new Map<HttpEndpoint, HeaderList>();
  readonly #trusted: ReadonlySet<string>;
  readonly store: Store;

  constructor(readonly options: HttpServiceOptions) {
    const { registry, config } = options;
    this.#catalog = catalogBodies(registry, config);
    this.store = options.store ?? new MemoryStore();
    this.#trusted = new Set(config.trustProxy);
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
    this.server.maxRequestsPerSocket = 1000;
    this.server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
      if (!socket.writable) return;
      const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
      const body = `{"error":"bad_request","reason":"malformed request"}\n`;
      socket.end(
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
  }

  listen(port: number, host: string): Promise<number> {
    return listenOn(this.server, port, host);
  }

  async shutdown(graceMs: number): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const deadline = setTimeout(() => this.server.closeAllConnections(), graceMs);
    await closed;
    clearTimeout(deadline);
  }

  #clientAddress(req: IncomingMessage): string {
    const peer = req.socket.remoteAddress ?? '';
    const forwarded = req.headers['x-forwarded-for'];
    if (!forwarded || !this.#trusted.has(peer.replace(/^::ffff:/, ''))) return peer;
    // The last hop is the one our trusted proxy added (it deletes client-sent values).
    const hops = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded).split(',');
    return (hops[hops.length - 1] as string).trim() || peer;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const clientAddress = this.#clientAddress(req);
    const check = generalCheck(this.options.config, clientAddress);
    if (!check) {
      this.#serve(req, res, clientAddress);
      return;
    }
    const now = refusalNow(this.store, check);
    if (now !== 'ask') this.#limited(req, res, clientAddress, now);
    else void refusalFor(this.store, check).then((refusal) => this.#limited(req, res, clientAddress, refusal));
  }

  /** Serves the request, or answers for the limit: a real 429, no X-Chaos-* line (DESIGN §5); a namespace keeps its lines. */
  #limited(req: IncomingMessage, res: ServerResponse, clientAddress: string, refusal: Refusal | undefined): void {
    if (!refusal) {
      this.#serve(req, res, clientAddress);
      return;
    }
    const path = originForm(req.url ?? '/').split('?')[0] as string;
    res.writeHead(refusal.status, [...refusal.headers, ...this.options.registry.linesUnder(path)].flat());
    res.end(req.method === 'HEAD' ? undefined : refusal.body);
  }

  #serve(req: IncomingMessage, res: ServerResponse, clientAddress: string): void {
    const target = originForm(req.url ?? '/');
    const q = target.indexOf('?');
    const path = q === -1 ? target : target.slice(0, q);
    const query = q === -1 ? '' : target.slice(q + 1);
    const method = req.method ?? 'GET';
    const { registry, config, logger } = this.options;

    const match = registry.match(path);
    if (!match) {
      const json = wantsJson(req.headers.accept);
      const body = json ? this.#catalog.json : this.#catalog.html;
      res.writeHead(path === '/' ? 200 : 404, [
        ['Content-Type', json ? 'application/json' : 'text/html; charset=utf-8'],
        ['Content-Length', String(body.length)],
        ['Vary', 'Accept'],
        // An unknown path inside an endpoint's namespace keeps that namespace's lines (X-Robots-Tag under /infinite/).
        ...registry.linesUnder(path),
      ].flat());
      res.end(method === 'HEAD' ? undefined : body);
      return;
    }

    const endpoint = match.endpoint;
    const methods = allowedMethods(endpoint);
    if (!(methods as readonly string[]).includes(method)) {
      sendError(res, 405, { error: 'method_not_allowed', reason: `${method} is not served at ${endpoint.path}` }, [
        ['Allow', routerAllow(endpoint)],
        ...(endpoint.alwaysHeaders ?? []),
      ]);
      return;
    }
    const parsed = parseParams(endpoint.path, endpoint.params, splitQuery(query), match.pathValues);
    if (!parsed.ok) {
      sendError(res, 400, parsed.error, endpoint.alwaysHeaders);
      return;
    }

    // A templated twin (/status/{code}) is named by the concrete path asked for.
    const twin = endpoint.path.includes('{') ? counterpartUrl(this.options.host, endpoint, config.urls, path) : (this.#counterparts.get(endpoint) as string | null);
    const headers: HeaderList =
      this.options.host === 'control'
        ? controlHeaders(twin === null ? null : twin + (query ? `?${query}` : ''))
        : [...(this.#chaosLines.get(endpoint) as HeaderList)];
    addClampedHeader(headers, parsed.clamped);
    const ctx: HttpContext = {
      req,
      res,
      endpoint,
      config,
      path,
      query,
      headers,
      store: this.store,
      clientAddress,
      registry,
      send(status, contentType, body, extra, more) {
        const lines: HeaderList = [['Content-Type', contentType], ['Content-Length', String(Buffer.byteLength(body))], ...headers];
        if (extra) addChaosHeaders(lines, extra);
        if (more) lines.push(...more);
        res.writeHead(status, lines.flat());
        res.end(method === 'HEAD' ? undefined : body);
      },
    };
    const fail = (error: unknown): void => {
      logger.error({ err: error, endpoint: endpoint.id }, 'handler failed');
      if (res.headersSent) res.destroy();
      else sendError(res, 500, { error: 'internal_error', reason: 'the endpoint failed; this is a real error, not chaos' });
    };
    try {
      const pending = endpoint.handle(ctx, parsed.values);
      if (pending) pending.catch(fail);
    } catch (error) {
      fail(error);
    }
  }
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

/** A real failure: JSON, no X-Chaos-* header. */
function sendError(res: ServerResponse, status: number, body: object, extra: readonly (readonly [string, string])[] = []): void {
  const bytes = jsonBody(body);
  res.writeHead(status, [['Content-Type', 'application/json'], ['Content-Length', String(bytes.length)], ...extra].flat());
  res.end(res.req.method === 'HEAD' ? undefined : bytes);
}
