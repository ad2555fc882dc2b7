// The chaos host's registry: an explicit, ordered list (STYLE §1).
import { Registry } from '../../../shared/registry.js';
import type { ChaosContext, ChaosEndpoint } from '../endpoint.js';
import drip from './latency/drip.js';
import slow from './latency/slow.js';
import etag from './headers/etag.js';
import bytes from './payload/bytes.js';
import compression from './payload/compression.js';
import partialStream from './payload/partial-stream.js';
import range from './payload/range.js';
import truncate from './payload/truncate.js';
import json from './payload/json.js';
import wrongContentType from './headers/wrong-content-type.js';
import cacheConfused from './headers/cache-confused.js';
import headerFlood from './headers/header-flood.js';
import redirectChain from './redirects/redirect-chain.js';
import method from './method/method.js';

export const chaosEndpoints: readonly ChaosEndpoint[] = [
  slow,
  drip,
  truncate,
  partialStream,
  bytes,
  compression,
  range,
  json,
  etag,
  wrongContentType,
  cacheConfused,
  headerFlood,
  redirectChain,
  method,
];

export function createChaosRegistry(): Registry<ChaosContext> {
  return new Registry('chaos', chaosEndpoints);
}
