// The control host's rate-limiting folder: its endpoints, listed once, in catalog order (twins mirror services/chaos/endpoints/rate-limiting/).
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import rateLimit from './rate-limit.js';
import retryAfterFormats from './retry-after-formats.js';
import throttle from './throttle.js';

const endpoints: readonly HttpEndpoint[] = [rateLimit, retryAfterFormats, throttle];
export default endpoints;
