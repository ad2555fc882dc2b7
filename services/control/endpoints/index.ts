// The control host's registry: well-formed twins, in catalog order.
import type { HttpContext, HttpEndpoint } from '../../../shared/http-service.js';
import { Registry } from '../../../shared/registry.js';
import drip from './latency/drip.js';
import slow from './latency/slow.js';
import etag from './headers/etag.js';
import bytes from './payload/bytes.js';
import compression from './payload/compression.js';
import partialStream from './payload/partial-stream.js';
import range from './payload/range.js';
import truncate from './payload/truncate.js';

export const controlEndpoints: readonly HttpEndpoint[] = [
  slow,
  drip,
  truncate,
  partialStream,
  bytes,
  compression,
  etag,
  range,
];

export function createControlRegistry(): Registry<HttpContext> {
  return new Registry('control', controlEndpoints);
}
