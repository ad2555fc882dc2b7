// The bots host's registry: chaotic crawler and federated files (issue 4 fills it).
import type { HttpContext, HttpEndpoint } from '../../../shared/http-service.js';
import { Registry } from '../../../shared/registry.js';

export const botsEndpoints: readonly HttpEndpoint[] = [];

export function createBotsRegistry(): Registry<HttpContext> {
  return new Registry('bots', botsEndpoints);
}
