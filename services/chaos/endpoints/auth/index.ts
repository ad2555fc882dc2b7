// The chaos host's auth folder: its endpoints, listed once, in catalog order.
import type { ChaosEndpoint } from '../../endpoint.js';
import authChallenge from './auth-challenge.js';
import authLoop from './auth-loop.js';
import authRequired from './auth-required.js';
import jwt from './jwt.js';

const endpoints: readonly ChaosEndpoint[] = [authRequired, jwt, authChallenge, authLoop];
export default endpoints;
