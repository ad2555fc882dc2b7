// What chaos endpoints declare about HTTP/2 (issue 28): an endpoint whose lie
// lives at the HTTP level (status, headers, body, delays) lists `h2` and is
// served over HTTP/2 through the stream's ResponseSink; a wire-only lie says
// why it has none (`noH2`: a real 501 over HTTP/2). Every chaos endpoint
// declares one or the other (tests/unit/http2-declarations.test.ts).
import type { TransportSpec } from '../../../shared/registry/transports.js';

/** HTTP/1.1 and HTTP/2: the lie is the same in both. */
export const HTTP1_AND_H2: TransportSpec = { protocols: ['http/1.1', 'h2'] };

/** The /h2/* lies: HTTP/2 frames only. */
export const H2_ONLY: TransportSpec = { protocols: ['h2'] };

/** HTTP/1.1 only, and why: over HTTP/2 a real 501 with this reason. */
export function noH2(reason: string): TransportSpec {
  return { protocols: ['http/1.1'], noH2: reason };
}

/** The reasons the wire-only lies give (docs/http2.md lists them). */
export const NO_H2 = {
  body: 'it reads the request body, which the HTTP/2 reader counts and drops',
  trickledHead: 'its lie is the response head trickled byte by byte; HTTP/2 sends a head as one HEADERS block',
  statusLine: 'its lie is the HTTP/1.1 status line text; HTTP/2 has only the :status number',
  garbage: 'its lie is bytes that are not HTTP, outside any HTTP/2 frame',
  chunked: 'its lie is HTTP/1.1 chunked transfer coding; HTTP/2 frames the body in DATA frames',
  keepAlive: 'its lie is the HTTP/1.1 Connection header and keep-alive; HTTP/2 forbids connection fields (RFC 9113 §8.2.2)',
  empty: 'its lie is a connection closed before any byte; on HTTP/2 see /h2/goaway?mode=zero or /h2/rst?at=0',
  rawRequest: 'it echoes the raw HTTP/1.1 request bytes, which an HTTP/2 request does not have',
} as const;
