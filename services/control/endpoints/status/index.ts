// The control host's status folder: its endpoints, listed once, in catalog order (twins mirror services/chaos/endpoints/status/).
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import status from './status.js';
import statusLine from './status-line.js';
import weightedStatus from './weighted-status.js';

const endpoints: readonly HttpEndpoint[] = [status, statusLine, weightedStatus];
export default endpoints;
