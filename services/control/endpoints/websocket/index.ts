// The control host's websocket folder: the well-formed twins of the chaos WebSockets, listed once, in catalog order.
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';

const endpoints: readonly HttpEndpoint[] = [];
export default endpoints;
