// What a chaos endpoint definition sees: the parsed request, the raw wire, and
// helpers that build the honest parts of a response so each endpoint file only
// spells out its lie.
import type { Config } from '../../shared/config/config.js';
import { errorResponse, type ErrorStatus } from '../../shared/registry/errors.js';
import {
  addChaosHeaders, addClampedHeader, chaosLines, clampedLine, dateLine, headerLines, httpDate, statusLine, type HeaderList, type HeaderValue,
} from '../../shared/primitives/headers.js';
import { defineEndpoint, type AnyEndpoint, type Category, type Registry } from '../../shared/registry/registry.js';
import type { Capabilities } from '../../shared/pipeline/transport.js';
import type { Store } from '../../shared/store/types.js';
import type { H2Stream } from './http2/session.js';
import type { ParsedRequest } from './parser.js';
import { transportLines } from './transport-lines.js';
import { Wire, type EndAction, type ResponseSink } from './wire.js';

/** `wire` is HTTP/1.1's capability (shared/pipeline/transport.ts); `req.transport` says what the request came over. */
export interface ChaosContext extends Capabilities<ResponseSink> {
  readonly req: ParsedRequest;
  /** The connection's Wire, or a fault chain over it (services/chaos/faults/). */
  readonly wire: ResponseSink;
  readonly endpoint: ChaosEndpoint;
  readonly config: Config;
  /** False when this response must be the connection's last (client asked, cap reached, shutdown). */
  readonly keepAlive: boolean;
  /** Parameters clamped into range, as `name=value`, for X-Chaos-Clamped. */
  readonly clamped: readonly string[];
  /** Shared state (retry records, counters, budgets). */
  readonly store: Store;
  /** The client's address (from the socket; from the PROXY header behind HAProxy). */
  readonly clientAddress: string;
  /** The host's registry, for endpoints that dispatch to others (/random) without a circular import. */
  readonly registry: Registry<ChaosContext>;
  /** HTTP/2's capability: the request's stream and, through it, the connection's frames; absent on HTTP/1.1. */
  readonly h2?: H2Stream;
}

export type ChaosEndpoint = AnyEndpoint<ChaosContext>;

/**
 * The context with some fields replaced (another wire, another endpoint). The
 * server's context reads `keepAlive` through a getter on its class, which an
 * object spread does not copy: it is read here, as the spread used to.
 */
export function withContext(ctx: ChaosContext, changes: Partial<ChaosContext>): ChaosContext {
  return { ...ctx, keepAlive: ctx.keepAlive, ...changes };
}

export const defineChaosEndpoint = defineEndpoint<ChaosContext, Category<'chaos'>>();

/** An endpoint's fixed X-Chaos lines: as header lines (for fault stages) and as text (for heads built as one string). */
interface BaseLines {
  readonly list: HeaderList;
  readonly text: string;
}

/** The endpoint's fixed X-Chaos lines, precomputed once per definition by the server. */
const baseHeaders = new WeakMap<ChaosEndpoint, BaseLines>();
export function setBaseHeaders(endpoint: ChaosEndpoint, headers: HeaderList): void {
  baseHeaders.set(endpoint, { list: headers, text: headerLines(headers) });
}

const NO_EXTRA: Readonly<Record<string, HeaderValue>> = Object.freeze({});

/**
 * The standard head of a chaos response: Content-Type, Content-Length (when
 * given), Date, Connection when it is not the default, then the endpoint's
 * X-Chaos lines, X-Chaos-Clamped, and the endpoint's own X-Chaos-* extras.
 */
export function chaosHead(
  ctx: ChaosContext,
  contentType: string | undefined,
  contentLength: number | undefined,
  extra: Readonly<Record<string, HeaderValue>> = NO_EXTRA,
): HeaderList {
  const headers: HeaderList = [];
  if (contentType !== undefined) headers.push(['Content-Type', contentType]);
  if (contentLength !== undefined) headers.push(['Content-Length', String(contentLength)]);
  headers.push(['Date', httpDate()]);
  const connection = connectionValue(ctx);
  if (connection) headers.push(['Connection', connection]);
  const base = baseHeaders.get(ctx.endpoint);
  if (base) for (const line of base.list) headers.push(line);
  const transport = transportLines(ctx.req.transport);
  if (transport) for (const line of transport.list) headers.push(line);
  addClampedHeader(headers, ctx.clamped);
  return addChaosHeaders(headers, extra);
}

/**
 * The whole head chaosHead describes, status line to blank line, as one
 * string: the status line, Date and the endpoint's X-Chaos lines come from
 * caches, and no tuple is built per line. `after`: lines that follow the
 * X-Chaos ones (an endpoint's own headers).
 */
export function chaosHeadText(
  ctx: ChaosContext,
  status: number,
  contentType: string | undefined,
  contentLength: number | undefined,
  extra: Readonly<Record<string, HeaderValue>> = NO_EXTRA,
  after?: HeaderList,
): string {
  let head = statusLine(status);
  if (contentType !== undefined) head += `Content-Type: ${contentType}\r\n`;
  if (contentLength !== undefined) head += `Content-Length: ${contentLength}\r\n`;
  head += dateLine();
  const connection = connectionValue(ctx);
  if (connection !== undefined) head += connection === 'close' ? CONNECTION_CLOSE : CONNECTION_KEEP_ALIVE;
  const base = baseHeaders.get(ctx.endpoint);
  if (base) head += base.text;
  const transport = transportLines(ctx.req.transport);
  if (transport) head += transport.text;
  head += clampedLine(ctx.clamped) + chaosLines(extra);
  if (after) head += headerLines(after);
  return `${head}\r\n`;
}

const CONNECTION_CLOSE = 'Connection: close\r\n';
const CONNECTION_KEEP_ALIVE = 'Connection: keep-alive\r\n';

/**
 * A whole response with the standard chaos head (chaosHead's lines, then
 * `after`), `body` if any, ended with `action`. On the connection's own wire
 * the head is one string and leaves with the body in one write; under fault
 * stages it goes as header lines, which the stages read and rewrite.
 */
export function sendResponse(
  ctx: ChaosContext,
  status: number,
  contentType: string | undefined,
  contentLength: number | undefined,
  body: Buffer | undefined,
  extra: Readonly<Record<string, HeaderValue>> = NO_EXTRA,
  action: EndAction = 'keep-alive',
  after?: HeaderList,
): void {
  const wire = ctx.wire;
  if (wire instanceof Wire) {
    wire.respond(status, chaosHeadText(ctx, status, contentType, contentLength, extra, after), body, action);
    return;
  }
  const headers = chaosHead(ctx, contentType, contentLength, extra);
  if (after) headers.push(...after);
  wire.head(status, headers);
  if (body !== undefined) wire.write(body);
  wire.end(action);
}

/** `close` when this is the last response; `keep-alive` for HTTP/1.0 clients that asked. */
export function connectionValue(ctx: { readonly keepAlive: boolean; readonly req?: Pick<ParsedRequest, 'version'> | undefined }): string | undefined {
  if (!ctx.keepAlive) return 'close';
  return ctx.req?.version === '1.0' ? 'keep-alive' : undefined;
}

/** An honest, complete response with a body and an accurate Content-Length. */
export function sendComplete(
  ctx: ChaosContext,
  status: number,
  contentType: string,
  body: Buffer,
  extra?: Readonly<Record<string, HeaderValue>>,
  headersAfter?: HeaderList,
): void {
  sendResponse(ctx, status, contentType, body.length, body, extra, 'keep-alive', headersAfter);
}

/**
 * A real error an endpoint decides itself (a request body it cannot read):
 * errors.ts framing with the endpoint's own JSON body, and no X-Chaos-* line,
 * since it is not chaos.
 */
export function sendRealError(ctx: ChaosContext, status: ErrorStatus, body: object, extra: HeaderList = []): void {
  const response = errorResponse(status, body, extra);
  const headers: HeaderList = [...response.headers, ['Date', httpDate()]];
  const connection = connectionValue(ctx);
  if (connection) headers.push(['Connection', connection]);
  ctx.wire.head(status, headers);
  ctx.wire.write(response.body);
  ctx.wire.end();
}
