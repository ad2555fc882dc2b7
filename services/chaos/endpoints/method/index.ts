// The chaos host's method folder: its endpoints, listed once, in catalog order.
import type { ChaosEndpoint } from '../../endpoint.js';
import headLies from './head-lies.js';
import method from './method.js';

const endpoints: readonly ChaosEndpoint[] = [method, headLies];
export default endpoints;
