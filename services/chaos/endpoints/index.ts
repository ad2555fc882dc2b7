// The chaos host's endpoints (STYLE §1): one folder per category, each listing
// its endpoints once, in catalog order (<category>/index.ts). The host's list is
// their concatenation in CATEGORIES order; services/registries.ts builds the
// registry from it.
import { CATEGORIES, type Category } from '../../../shared/registry/registry.js';
import type { ChaosEndpoint } from '../endpoint.js';
import agent from './agent/index.js';
import auth from './auth/index.js';
import cors from './cors/index.js';
import discovery from './discovery/index.js';
import faultInjection from './fault-injection/index.js';
import headers from './headers/index.js';
import inspection from './inspection/index.js';
import latency from './latency/index.js';
import method from './method/index.js';
import pagination from './pagination/index.js';
import payload from './payload/index.js';
import rateLimiting from './rate-limiting/index.js';
import redirects from './redirects/index.js';
import status from './status/index.js';
import websocket from './websocket/index.js';
import http2 from './http2/index.js';

/** Each category's folder; the type makes every category of CATEGORIES.chaos have one. */
const folders: { readonly [C in Category<'chaos'>]: readonly ChaosEndpoint[] } = {
  latency,
  status,
  payload,
  redirects,
  headers,
  'rate-limiting': rateLimiting,
  'fault-injection': faultInjection,
  inspection,
  auth,
  cors,
  agent,
  discovery,
  pagination,
  method,
  websocket,
  http2,
};

export const chaosEndpoints: readonly ChaosEndpoint[] = CATEGORIES.chaos.flatMap((category) => folders[category]);
