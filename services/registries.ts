// All three registries of the service, built and cross-checked together
// (shared/registry/registries.ts). Each host's process starts from here, so a twin
// that does not resolve stops every start-up, not only the process it names;
// tests and scripts build theirs here too, adding their own probe endpoints
// through the same function when they need some.
import type { HttpContext, HttpEndpoint } from '../shared/http/http-service.js';
import { createRegistries, type EndpointLists, type Registries } from '../shared/registry/registries.js';
import { botsEndpoints } from './bots/endpoints/index.js';
import type { ChaosContext, ChaosEndpoint } from './chaos/endpoint.js';
import { chaosEndpoints } from './chaos/endpoints/index.js';
import { controlEndpoints } from './control/endpoints/index.js';

/** Each host's own endpoints, as its endpoints/index.ts lists them. */
export const serviceEndpoints: EndpointLists<ChaosContext, HttpContext> = { chaos: chaosEndpoints, control: controlEndpoints, bots: botsEndpoints };

/** Endpoints a test adds after a host's own (a probe with `counterpart: null`, or a twin pair). */
export interface ExtraEndpoints {
  readonly chaos?: readonly ChaosEndpoint[];
  readonly control?: readonly HttpEndpoint[];
  readonly bots?: readonly HttpEndpoint[];
}

export function serviceRegistries(extra: ExtraEndpoints = {}): Registries<ChaosContext, HttpContext> {
  return createRegistries({
    chaos: [...chaosEndpoints, ...(extra.chaos ?? [])],
    control: [...controlEndpoints, ...(extra.control ?? [])],
    bots: [...botsEndpoints, ...(extra.bots ?? [])],
  });
}
