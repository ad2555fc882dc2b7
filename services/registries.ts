// All three registries of the service, built and cross-checked together
// (shared/registry/registries.ts). Each host's process starts from here, so a twin
// that does not resolve stops every start-up, not only the process it names.
import type { HttpContext } from '../shared/http/http-service.js';
import { createRegistries, type Registries } from '../shared/registry/registries.js';
import { botsEndpoints } from './bots/endpoints/index.js';
import type { ChaosContext } from './chaos/endpoint.js';
import { chaosEndpoints } from './chaos/endpoints/index.js';
import { controlEndpoints } from './control/endpoints/index.js';

export function serviceRegistries(): Registries<ChaosContext, HttpContext> {
  return createRegistries({ chaos: chaosEndpoints, control: controlEndpoints, bots: botsEndpoints });
}
