// The three hosts' registries, built together so that every declared twin is
// checked against the registry of the host it lives on (DESIGN §3): a twin
// that does not resolve stops start-up, with every problem listed. This is the
// one way to build them, for production, tests and scripts
// (services/registries.ts passes the service's lists, plus a test's extras).
import type { HostName } from '../config/config.js';
import { namingNeverPicked, randomPool } from './random-pick.js';
import { CATEGORIES, counterpartOf, Registry, RegistryError, type AnyEndpoint } from './registry.js';

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
 * Builds and checks all three registries (each list grouped by catalog
 * category, /random's summary naming what it never picks): each definition, each /random pool,
 * and each counterpart (resolved with `match` on its twin host's registry, so
 * /status/{code} resolves by its template). Throws a RegistryError.
 */
export function createRegistries<C, H>(lists: EndpointLists<C, H>): Registries<C, H> {
  const registries: Registries<C, H> = {
    chaos: new Registry('chaos', namingNeverPicked(inCatalogOrder('chaos', lists.chaos))),
    control: new Registry('control', namingNeverPicked(inCatalogOrder('control', lists.control))),
    bots: new Registry('bots', namingNeverPicked(inCatalogOrder('bots', lists.bots))),
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

/**
 * A host's list grouped by catalog category, in CATEGORIES order, keeping the
 * list's order within a category (a stable sort). A folder may hold endpoints
 * of several catalog categories (a control twin sits in its chaos twin's
 * folder), so the catalog, the README tables, OpenAPI and the /random pool
 * all read one order. An unknown category sorts last (the Registry reports it).
 */
export function inCatalogOrder<E extends { readonly category: string }>(host: HostName, endpoints: readonly E[]): E[] {
  const categories: readonly string[] = CATEGORIES[host];
  const rank = (e: E): number => {
    const i = categories.indexOf(e.category);
    return i === -1 ? categories.length : i;
  };
  return endpoints.map((e, i) => ({ e, i, r: rank(e) })).sort((a, b) => a.r - b.r || a.i - b.i).map(({ e }) => e);
}
