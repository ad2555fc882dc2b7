// The chaos host's inspection folder: its endpoints, listed once, in catalog order.
import type { ChaosEndpoint } from '../../endpoint.js';
import anything from './anything.js';
import dump from './dump.js';
import headers from './headers.js';
import ip from './ip.js';
import userAgent from './user-agent.js';

const endpoints: readonly ChaosEndpoint[] = [anything, headers, ip, userAgent, dump];
export default endpoints;
