// The chaos host's fault-injection folder: its endpoints, listed once, in catalog order.
import type { ChaosEndpoint } from '../../endpoint.js';
import chunked from './chunked.js';
import empty from './empty.js';
import failFirst from './fail-first.js';
import flaky from './flaky.js';
import garbage from './garbage.js';
import keepaliveLie from './keepalive-lie.js';
import mix from './mix.js';
import random from './random.js';
import reset from './reset.js';
import retryMismatch from './retry-mismatch.js';

const endpoints: readonly ChaosEndpoint[] = [
  flaky,
  retryMismatch,
  failFirst,
  reset,
  empty,
  garbage,
  chunked,
  keepaliveLie,
  mix,
  random,
];
export default endpoints;
