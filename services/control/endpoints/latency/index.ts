// The control host's latency folder: its endpoints, listed once, in catalog order (twins mirror services/chaos/endpoints/latency/).
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import drip from './drip.js';
import jitter from './jitter.js';
import slow from './slow.js';
import slowHeaders from './slow-headers.js';
import stall from './stall.js';

const endpoints: readonly HttpEndpoint[] = [slow, drip, stall, slowHeaders, jitter];
export default endpoints;
