// The control host's infinite folder: its endpoints, listed once, in catalog order.
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import infinite from './infinite.js';

const endpoints: readonly HttpEndpoint[] = [infinite];
export default endpoints;
