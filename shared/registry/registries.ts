// The three hosts' registries, built together so that every declared twin is
// checked against the registry of the host it lives on (DESIGN §3): a twin
// that does not resolve stops start-up, with every problem listed.
import type { HostName } from '../config/config.js';
import { randomPool } from './random-pick.js';
import { counterpartOf, Registry, RegistryError, type AnyEndpoint } from './registry.js';

/** Each host's endpoint list, in catalog order: `C` the chaos context, `H` the node:http one. */
export interface EndpointLists<C, H> {
  readonly chaos: readonly AnyEndpoint<C>[];
  readonly control: readonly AnyEndpoint<H>[];
  readonly bots: readonly AnyEndpoint<H>[];
}

export interface Registries<C, H> {
  readonly chaos: Registry<C>;
  readonly control: Registry<H>;
  readonly bots: Registry<H>;
}

/**
 * Builds and checks all three registries: each definition, each /random pool,
 * and each counterpart (resolved with `match` on its twin host's registry, so
 * /status/{code} resolves by its template). Throws a RegistryError.
 */
export function createRegistries<C, H>(lists: EndpointLists<C, H>): Registries<C, H> {
  const registries: Registries<C, H> = {
    chaos: new Registry('chaos', lists.chaos),
    control: new Registry('control', lists.control),
    bots: new Registry('bots', lists.bots),
  };
  const all = [registries.chaos, registries.control, registries.bots] as Registry<unknown>[];
  for (const registry of all) randomPool(registry);
  checkCounterparts(registries as Registries<unknown, unknown>);
  for (const registry of all) registry.linkHosts(all);
  return registries;
}

/** Throws a RegistryError naming every endpoint whose declared twin is not served where it points. */
export function checkCounterparts(registries: Registries<unknown, unknown>): void {
  const problems: string[] = [];
  let first: HostName | undefined;
  for (const host of ['chaos', 'control', 'bots'] as const) {
    for (const endpoint of registries[host].endpoints) {
      const twin = counterpartOf(host, endpoint);
      if (twin === null || registries[twin.host].match(twin.path) !== undefined) continue;
      first ??= host;
      problems.push(
        `${host} endpoint ${JSON.stringify(endpoint.id)}: counterpart ${twin.path} is not served on the ${twin.host} host ` +
          '(declare the right path, or counterpart: null)',
      );
    }
  }
  if (first !== undefined) throw new RegistryError(first, problems);
}
