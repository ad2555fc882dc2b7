// The control host's auth folder: its endpoints, listed once, in catalog order (twins mirror services/chaos/endpoints/auth/).
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import authChallenge from './auth-challenge.js';
import authLoop from './auth-loop.js';
import authRequired from './auth-required.js';
import jwt from './jwt.js';

const endpoints: readonly HttpEndpoint[] = [authRequired, jwt, authChallenge, authLoop];
export default endpoints;
