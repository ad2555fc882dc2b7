// The chaos host's registry: an explicit, ordered list (STYLE §1).
import { randomPool } from '../../../shared/random-pick.js';
import { Registry } from '../../../shared/registry.js';
import type { ChaosContext, ChaosEndpoint } from '../endpoint.js';
import authRequired from './auth/auth-required.js';
import flaky from './fault-injection/flaky.js';
import random from './fault-injection/random.js';
import retryMismatch from './fault-injection/retry-mismatch.js';
import drip from './latency/drip.js';
import slow from './latency/slow.js';
import bytes from './payload/bytes.js';
import partialStream from './payload/partial-stream.js';
import truncate from './payload/truncate.js';
import rateLimit from './rate-limiting/rate-limit.js';
import status from './status/status.js';

export const chaosEndpoints: readonly ChaosEndpoint[] = [
  slow, drip, truncate, partialStream, bytes,
  status, flaky, random, rateLimit, retryMismatch, authRequired,
];

export function createChaosRegistry(): Registry<ChaosContext> {
  const registry = new Registry('chaos', chaosEndpoints);
  // Builds and checks the /random pool now, so a bad pool stops start-up.
  randomPool(registry);
  return registry;
}
