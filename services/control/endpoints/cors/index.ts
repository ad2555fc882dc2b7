// The control host's cors folder: its endpoints, listed once, in catalog order (twins mirror services/chaos/endpoints/cors/).
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import cors from './cors.js';
import corsExpose from './cors-expose.js';
import corsPreflight from './cors-preflight.js';

const endpoints: readonly HttpEndpoint[] = [cors, corsPreflight, corsExpose];
export default endpoints;
