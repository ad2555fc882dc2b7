// The control host's registry: well-formed twins, in catalog order.
// One import and one list entry per endpoint, one per line.
import type { HttpContext, HttpEndpoint } from '../../../shared/http-service.js';
import { randomPool } from '../../../shared/random-pick.js';
import { Registry } from '../../../shared/registry.js';
import authRequired from './auth/auth-required.js';
import cacheCoherent from './headers/cache-coherent.js';
import etag from './headers/etag.js';
import headerFlood from './headers/header-flood.js';
import matchedContentType from './headers/matched-content-type.js';
import drip from './latency/drip.js';
import slow from './latency/slow.js';
import method from './method/method.js';
import bytes from './payload/bytes.js';
import compression from './payload/compression.js';
import json from './payload/json.js';
import partialStream from './payload/partial-stream.js';
import range from './payload/range.js';
import truncate from './payload/truncate.js';
import rateLimit from './rate-limiting/rate-limit.js';
import retryMismatch from './rate-limiting/retry-mismatch.js';
import redirectChain from './redirects/redirect-chain.js';
import flaky from './status/flaky.js';
import random from './status/random.js';
import status from './status/status.js';

export const controlEndpoints: readonly HttpEndpoint[] = [
  slow,
  drip,
  status,
  flaky,
  random,
  truncate,
  partialStream,
  bytes,
  compression,
  range,
  json,
  redirectChain,
  etag,
  matchedContentType,
  cacheCoherent,
  headerFlood,
  rateLimit,
  retryMismatch,
  authRequired,
  method,
];

export function createControlRegistry(): Registry<HttpContext> {
  const registry = new Registry('control', controlEndpoints);
  // Builds and checks the /random pool now, so a bad pool stops start-up.
  randomPool(registry);
  return registry;
}
