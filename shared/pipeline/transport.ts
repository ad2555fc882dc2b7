// The transport seam (docs/architecture.md, "Transports"): what any transport
// hands the pipeline — the request, with the facts of the transport it came
// over — and the responder it answers through. The chaos host's HTTP/1.1 wire
// (services/chaos/connection.ts, server.ts) and node:http (shared/http/) are
// its implementations today; TLS, WebSocket and HTTP/2 plug in here.
import type { PlainResponse } from '../registry/errors.js';
import type { AnyEndpoint } from '../registry/registry.js';
import { PROTOCOLS, transportBit, type Protocol } from '../registry/transports.js';
import type { Recordings } from './decision-memo.js';
import type { Exchange, ExchangeNote } from './observe.js';

/** What a request came over; one object per connection (or per transport kind), shared by its requests. */
export interface TransportFacts {
  readonly protocol: Protocol;
  /** Whether the bytes came through TLS. */
  readonly tls: boolean;
  /** The protocol ALPN agreed on (`http/1.1`, `h2`); undefined without TLS or ALPN. */
  readonly alpn: string | undefined;
  /** The server name the client asked for (SNI); undefined when it named none. */
  readonly servername: string | undefined;
  /** transportBit(protocol, tls): what the pipeline checks against the endpoint's transports. */
  readonly bit: number;
}

/** Facts of a transport; the plain ones are shared constants. */
export function transportFacts(protocol: Protocol, tls: boolean, alpn?: string, servername?: string): TransportFacts {
  if (!tls && alpn === undefined && servername === undefined) return PLAIN[protocol];
  return Object.freeze({ protocol, tls, alpn, servername, bit: transportBit(protocol, tls) });
}

const PLAIN = Object.fromEntries(
  PROTOCOLS.map((protocol) => [protocol, Object.freeze({ protocol, tls: false, alpn: undefined, servername: undefined, bit: transportBit(protocol, false) })]),
) as Readonly<Record<Protocol, TransportFacts>>;

/** Plain HTTP/1.1: every request of node:http (control, bots, hub) and of a chaos connection without TLS. */
export const PLAIN_HTTP1: TransportFacts = PLAIN['http/1.1'];

/** Field values by lower-cased name, repeated fields joined with ", " (a Map fits). */
export interface HeaderSource {
  get(name: string): string | undefined;
}

/**
 * The request body as its transport has read it before dispatch: counted,
 * and its first bytes kept when the endpoint captures them (HTTP/1.1 reads a
 * body whole, bounded). A transport that streams bodies adds its capability.
 */
export interface BodySource {
  /** Decoded body length, whether kept or not; undefined where the handler streams the body itself (node:http's ctx.req). */
  readonly bodyBytes?: number | undefined;
  /** The first bytes kept (EndpointDef.capture); absent otherwise. */
  readonly body?: Buffer;
  /** Whether the body had more than was kept. */
  readonly bodyTruncated?: boolean;
}

/** A request as any transport hands it to the pipeline. */
export interface IncomingRequest extends BodySource {
  readonly method: string;
  /** The request-target as sent (HTTP/2: built from :path; WebSocket: the handshake's). */
  readonly target: string;
  /** Path as sent, still percent-encoded. */
  readonly path: string;
  /** Query string without `?`, still percent-encoded. */
  readonly query: string;
  /** Host (or the absolute-form authority, HTTP/2's :authority); undefined when absent. */
  readonly host: string | undefined;
  readonly headers: HeaderSource;
  readonly version: '1.0' | '1.1' | '2';
  /** HTTP/2's stream; undefined on HTTP/1.1. */
  readonly streamId?: number | undefined;
  /** What the request came over; the pipeline refuses it for an endpoint that does not serve that transport. */
  readonly transport: TransportFacts;
}

/**
 * What a transport lets a handler write beyond a complete response of ours,
 * one member per capability, carried by the context its responder builds.
 * HTTP/1.1 offers `wire`: every byte of the head and body, and how the
 * connection ends (the chaos host's ResponseSink). A new transport adds its
 * capability here and to its context (HTTP/2: `frames` on the request's
 * stream and the connection; WebSocket: `messages`, and the `frames` that
 * carry them), and its endpoints declare the protocol in `transports`.
 */
export interface Capabilities<Wire> {
  readonly wire: Wire;
}

/** How a transport answers: the one seam between the pipeline and the bytes. */
export interface Responder<Ctx> {
  /** This exchange's record while observing; the transport finishes it when the response ends. */
  exchange: Exchange | undefined;
  /** A complete response of ours (catalog, real failure); `last` closes the connection after it. */
  plain(response: PlainResponse, last: boolean): void;
  /**
   * The context the endpoint's handler runs with. `recordings`: where this
   * transport may keep the response, for a replayable endpoint's remembered
   * decision (see replay).
   */
  context(endpoint: AnyEndpoint<Ctx>, clamped: readonly string[], recordings: Recordings | undefined): Ctx;
  /**
   * Writes this request's answer from `recordings` (a replayable endpoint's
   * earlier responses for the same decision) when one fits it, and says so;
   * false: the handler runs. A transport that records nothing leaves it out.
   */
  replay?(recordings: Recordings): boolean;
  /** The handler threw or rejected: answer 500 if nothing went out yet, else cut the response. */
  failed(): void;
  /** Runs `fn` once this exchange's response no longer occupies the connection (ended, cut, or its hold over). */
  whenDone(fn: () => void): void;
  /** After dispatch returned true: the store has decided and the answer has begun; called once, never during dispatch. */
  resumed(): void;
  /** The connection this request came on, as an identity (a client exam records connection reuse); called for exam requests only. */
  connectionKey?(): object;
}

/**
 * The client exam's recorder (shared/exam/), as the pipeline calls it: only
 * for a request whose query contains `exam=`. Returns what the exchange tells
 * when it ends, or undefined when the request is no exam step.
 */
export interface ExamTap {
  open(req: IncomingRequest, clientAddress: string, connection: object | undefined): ExchangeNote | undefined;
}
