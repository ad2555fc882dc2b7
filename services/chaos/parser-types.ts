// What the chaos request parser (parser.ts) hands on and how it refuses: the
// parsed request, what a capture keeps of it, the limits, the rejection. Its
// rooms (parser-head.ts, parser-body.ts, parser-input.ts) share these.
import type { IncomingRequest, TransportFacts } from '../../shared/pipeline/transport.js';

/** An HTTP/1.1 request as the chaos wire read it: what the transport seam asks, and more. */
export interface ParsedRequest extends IncomingRequest {
  readonly method: string;
  /** The request-target as sent. */
  readonly target: string;
  /** Path part of the target, still percent-encoded. */
  readonly path: string;
  /** Query string without `?`, still percent-encoded ('' when absent). */
  readonly query: string;
  readonly version: '1.0' | '1.1' | '2';
  /** Lower-cased names; repeated fields joined with ", " (RFC 9110 §5.3). */
  readonly headers: ReadonlyMap<string, string>;
  /** Authority from an absolute-form target, else the Host field; undefined for HTTP/1.0 without Host. */
  readonly host: string | undefined;
  /** Whether the client allows the connection to stay open after this response. */
  readonly keepAlive: boolean;
  /** Decoded body length (Content-Length, or the sum of the chunk sizes), whether kept or not. */
  readonly bodyBytes: number;
  /** The connection's transport: plain, or TLS with what its handshake agreed. */
  readonly transport: TransportFacts;
  // The fields below are present only when the capture hook asked for them
  // (undefined when it asked for the other kind; absent without a capture).
  /**
   * Every field line as received, in order, name case and repeats kept. The
   * value is everything between the colon and the CRLF, OWS included and
   * untrimmed, so `${name}:${value}` is the line byte for byte (latin1).
   */
  readonly rawHeaders?: readonly RawHeader[];
  /** The head byte for byte: request line to the CRLF of the blank line, inclusive (empty lines before it excluded). */
  readonly rawHead?: Buffer;
  /** The first `max` bytes of the decoded body (de-chunked: no sizes, extensions or trailers). */
  readonly body?: Buffer;
  /** Whether the body had more than `max` bytes (`bodyBytes` counts them all). */
  readonly bodyTruncated?: boolean;
}

/** One field line as received: its name and the bytes after the colon (latin1). */
export type RawHeader = readonly [name: string, value: string];

/** What to keep of one request beyond the parsed fields. */
export interface RequestCapture {
  /** Keep the field lines as received (`rawHeaders`) and the head's bytes (`rawHead`). */
  readonly rawHeaders?: boolean;
  /**
   * Keep the first `max` bytes of the decoded body (`body`, `bodyTruncated`).
   * The rest is still read and counted, within `maxBodyBytes` (413 beyond).
   * A negative or non-numeric max counts as 0.
   */
  readonly body?: { readonly max: number };
}

/**
 * Asked once per request, right after its request line is read (so possibly
 * for a request then refused for its fields); undefined keeps nothing extra.
 * It must answer alike for the same method and target: a request whose head
 * repeats the previous one byte for byte, after an answer of undefined, is
 * not parsed again, nor is the hook asked again.
 */
export type CaptureHook = (method: string, target: string) => RequestCapture | undefined;

export type RejectStatus = 400 | 408 | 413 | 414 | 417 | 431 | 501 | 505;

export class RequestRejected extends Error {
  constructor(
    readonly status: RejectStatus,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'RequestRejected';
  }
}

export interface ParserLimits {
  /** Longest request line, CRLF excluded (414 beyond). */
  readonly maxRequestLine: number;
  /** Largest header block after the request line (431 beyond). */
  readonly maxHeaderBytes: number;
  readonly maxHeaderCount: number;
  /** Largest request body, by Content-Length or chunked total (413 beyond). */
  readonly maxBodyBytes: number;
}

export const DEFAULT_LIMITS: ParserLimits = {
  maxRequestLine: 8192,
  maxHeaderBytes: 16384,
  maxHeaderCount: 100,
  maxBodyBytes: 1024 * 1024,
};
