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

export const chaosEndpoints: readonly ChaosEndpoint[] = [
  slow,
  drip,
  truncate,
  partialStream,
  bytes,
  compression,
  etag,
  range,
];

export function createChaosRegistry(): Registry<ChaosContext> {
  return new Registry('chaos', chaosEndpoints);
}
