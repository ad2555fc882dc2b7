// The seam between the pipeline and a transport: the request a transport
// hands over, whichever parsed it, and the responder it answers through.
import type { PlainResponse } from '../registry/errors.js';
import type { AnyEndpoint } from '../registry/registry.js';
import type { Recordings } from './decision-memo.js';
import type { Exchange } from './observe.js';

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
}
