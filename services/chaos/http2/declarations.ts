// What chaos endpoints declare about HTTP/2 (issue 28): an endpoint whose lie
// lives at the HTTP level (status, headers, body, delays) lists `h2` and is
// served over HTTP/2 through the stream's ResponseSink; one that does not is
// refused over HTTP/2 by the pipeline with a real 421 naming what it serves.
import type { TransportSpec } from '../../../shared/registry/transports.js';

/** HTTP/1.1 and HTTP/2: the lie is the same in both. */
export const HTTP1_AND_H2: TransportSpec = { protocols: ['http/1.1', 'h2'] };

/** The /h2/* lies: HTTP/2 frames only. */
export const H2_ONLY: TransportSpec = { protocols: ['h2'] };
