// The chaos host's cors folder: its endpoints, listed once, in catalog order.
import type { ChaosEndpoint } from '../../endpoint.js';
import cors from './cors.js';
import corsExpose from './cors-expose.js';
import corsPreflight from './cors-preflight.js';

const endpoints: readonly ChaosEndpoint[] = [cors, corsPreflight, corsExpose];
export default endpoints;
