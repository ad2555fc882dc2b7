// The chaos host's rate-limiting folder: its endpoints, listed once, in catalog order.
import type { ChaosEndpoint } from '../../endpoint.js';
import rateLimit from './rate-limit.js';
import retryAfterFormats from './retry-after-formats.js';
import throttle from './throttle.js';

const endpoints: readonly ChaosEndpoint[] = [rateLimit, retryAfterFormats, throttle];
export default endpoints;
