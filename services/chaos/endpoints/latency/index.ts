// The chaos host's latency folder: its endpoints, listed once, in catalog order.
import type { ChaosEndpoint } from '../../endpoint.js';
import drip from './drip.js';
import jitter from './jitter.js';
import slow from './slow.js';
import slowHeaders from './slow-headers.js';
import stall from './stall.js';

const endpoints: readonly ChaosEndpoint[] = [slow, drip, stall, slowHeaders, jitter];
export default endpoints;
