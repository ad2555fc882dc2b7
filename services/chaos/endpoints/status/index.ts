// The chaos host's status folder: its endpoints, listed once, in catalog order.
import type { ChaosEndpoint } from '../../endpoint.js';
import status from './status.js';
import statusLine from './status-line.js';
import weightedStatus from './weighted-status.js';

const endpoints: readonly ChaosEndpoint[] = [status, statusLine, weightedStatus];
export default endpoints;
