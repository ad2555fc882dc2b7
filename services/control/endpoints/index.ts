// The control host's endpoints: well-formed twins. Each twin lives in the
// folder of its chaotic twin, under the same slug (chaos categories, then the
// bots host's crawler-file categories); its catalog category stays a field of
// its definition. Each folder lists its endpoints once (<folder>/index.ts); the
// host's list is their concatenation, chaos folders in CATEGORIES.chaos order,
// then the bots folders in CATEGORIES.bots order, then /infinite. The registry
// groups it by catalog category (shared/registry/registries.ts).
import type { HttpEndpoint } from '../../../shared/http/http-service.js';
import { CATEGORIES, type Category } from '../../../shared/registry/registry.js';
import agent from './agent/index.js';
import appLinking from './app-linking/index.js';
import auth from './auth/index.js';
import cors from './cors/index.js';
import crawlerFiles from './crawler-files/index.js';
import discovery from './discovery/index.js';
import faultInjection from './fault-injection/index.js';
import federatedIdentity from './federated-identity/index.js';
import headers from './headers/index.js';
import infinite from './infinite/index.js';
import inspection from './inspection/index.js';
import latency from './latency/index.js';
import method from './method/index.js';
import pagination from './pagination/index.js';
import payload from './payload/index.js';
import rateLimiting from './rate-limiting/index.js';
import redirects from './redirects/index.js';
import siteTrust from './site-trust/index.js';
import status from './status/index.js';
import websocket from './websocket/index.js';
import http2 from './http2/index.js';
import { HTTP1_AND_H2 } from '../http2/twin.js';

/** The folders that mirror a chaotic host's categories; the type makes every one of them exist. */
const twinFolders: { readonly [F in Category<'chaos'> | Category<'bots'>]: readonly HttpEndpoint[] } = {
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
  'crawler-files': crawlerFiles,
  'app-linking': appLinking,
  'federated-identity': federatedIdentity,
  'site-trust': siteTrust,
};

/**
 * Twins are well-formed HTTP, so each is served over HTTP/1.1 and prior-knowledge
 * HTTP/2 alike (node:http2's compatibility API runs its handler:
 * tests/integration/http2/control-twins.test.ts) unless it declares its own
 * transports: the WebSocket twins (an HTTP/1.1 upgrade) and the /h2/* twins.
 */
function overHttp2(endpoint: HttpEndpoint): HttpEndpoint {
  return endpoint.transports === undefined ? { ...endpoint, transports: HTTP1_AND_H2 } : endpoint;
}

export const controlEndpoints: readonly HttpEndpoint[] = [
  ...[...CATEGORIES.chaos, ...CATEGORIES.bots].flatMap((folder) => twinFolders[folder]),
  ...infinite,
].map(overHttp2);
