// The control host's inspection folder: its endpoints, listed once, in catalog order (twins mirror services/chaos/endpoints/inspection/).
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import anything from './anything.js';
import dump from './dump.js';
import headers from './headers.js';
import ip from './ip.js';
import userAgent from './user-agent.js';

const endpoints: readonly HttpEndpoint[] = [anything, headers, ip, userAgent, dump];
export default endpoints;
