// The control host's registry: well-formed twins, in catalog order.
import type { HttpContext, HttpEndpoint } from '../../../shared/http-service.js';
import { randomPool } from '../../../shared/random-pick.js';
import { Registry } from '../../../shared/registry.js';
import authRequired from './auth/auth-required.js';
import drip from './latency/drip.js';
import slow from './latency/slow.js';
import bytes from './payload/bytes.js';
import partialStream from './payload/partial-stream.js';
import truncate from './payload/truncate.js';
import rateLimit from './rate-limiting/rate-limit.js';
import retryMismatch from './rate-limiting/retry-mismatch.js';
import flaky from './status/flaky.js';
import random from './status/random.js';
import status from './status/status.js';

export const controlEndpoints: readonly HttpEndpoint[] = [
  slow, drip, truncate, partialStream, bytes,
  status, flaky, random, rateLimit, retryMismatch, authRequired,
];

export function createControlRegistry(): Registry<HttpContext> {
  const registry = new Registry('control', controlEndpoints);
  // Builds and checks the /random pool now, so a bad pool stops start-up.
  randomPool(registry);
  return registry;
}
