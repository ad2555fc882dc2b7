// The control host's method folder: its endpoints, listed once, in catalog order (twins mirror services/chaos/endpoints/method/).
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import headLies from './head-lies.js';
import method from './method.js';

const endpoints: readonly HttpEndpoint[] = [method, headLies];
export default endpoints;
