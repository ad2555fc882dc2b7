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
import json from './payload/json.js';
import matchedContentType from './headers/matched-content-type.js';
import cacheCoherent from './headers/cache-coherent.js';
import headerFlood from './headers/header-flood.js';
import redirectChain from './redirects/redirect-chain.js';
import method from './method/method.js';

export const controlEndpoints: readonly HttpEndpoint[] = [
  slow,
  drip,
  truncate,
  partialStream,
  bytes,
  compression,
  range,
  json,
  etag,
  matchedContentType,
  cacheCoherent,
  headerFlood,
  redirectChain,
  method,
];

export function createControlRegistry(): Registry<HttpContext> {
  return new Registry('control', controlEndpoints);
}
