// The /random pool and pick (DESIGN §3: the pool derives from the registry).
// An endpoint joins the pool with `random: 'seeded' | 'unseeded'`; the pick,
// the values it fills in and the seed it forwards are a pure function of the
// seed, so the same seed picks the same endpoint with the same parameters.
import { createHash } from 'node:crypto';
import { parseParams, type Param } from '../primitives/params.js';
import { RegistryError, type AnyEndpoint, type Registry } from './registry.js';
import { rngFromSeed, type Rng } from '../primitives/seed.js';

/** The id of /random itself, which must never pick itself (it would recurse). */
const RANDOM_ID = 'random';

/**
 * Endpoints /random must never pick: those that stall or hold the connection
 * by design (`holdsConnection`: SPEC §4.1 names /slow, /drip and
 * /partial-stream; /bytes is picked with its defaults, and its default holds
 * the connection waiting for bytes that never come), and /random itself.
 */
export function neverRandom(endpoint: { readonly id: string; readonly holdsConnection?: boolean }): boolean {
  return endpoint.holdsConnection === true || endpoint.id === RANDOM_ID;
}

/** Stands in /random's summary for the paths it never picks (filled in by namingNeverPicked). */
export const NEVER_PICKED = '{never-picked}';

/**
 * The list with /random's summary naming the paths of the list it never picks
 * (the endpoints that hold the connection, in list order), so the summary
 * follows the registry instead of a hand-typed list. createRegistries applies it.
 */
export function namingNeverPicked<E extends { readonly id: string; readonly path: string; readonly summary: string; readonly holdsConnection?: boolean }>(
  endpoints: readonly E[],
): E[] {
  const random = endpoints.find((e) => e.id === RANDOM_ID && e.summary.includes(NEVER_PICKED));
  if (random === undefined) return [...endpoints];
  const never = endpoints.filter((e) => neverRandom(e) && e.id !== RANDOM_ID).map((e) => e.path);
  const named = never.length < 2 ? never.join('') : `${never.slice(0, -1).join(', ')} or ${never.at(-1) as string}`;
  return endpoints.map((e) => (e === random ? { ...e, summary: e.summary.replace(NEVER_PICKED, named) } : e));
}

export interface RandomPick<Ctx> {
  readonly endpoint: AnyEndpoint<Ctx>;
  /** Parsed parameters: defaults, plus the forwarded seed and any filled-in path or required values. */
  readonly values: Readonly<Record<string, unknown>>;
  /** The concrete path (templates filled in), for X-Chaos-Random-From. */
  readonly path: string;
  /** The equivalent direct request target, for replaying the pick. */
  readonly target: string;
}

const pools = new WeakMap<object, readonly AnyEndpoint<unknown>[]>();

/**
 * The endpoints /random picks from, in registry order; built once per
 * registry. Throws a RegistryError (at start-up, from createRegistries) when a
 * forbidden endpoint is in the pool or a pick could not be filled in.
 */
export function randomPool<Ctx>(registry: Registry<Ctx>): readonly AnyEndpoint<Ctx>[] {
  const cached = pools.get(registry);
  if (cached) return cached as readonly AnyEndpoint<Ctx>[];
  const pool = registry.endpoints.filter((e) => e.random !== undefined);
  const problems: string[] = [];
  for (const endpoint of pool) {
    const where = `endpoint ${JSON.stringify(endpoint.id)}`;
    if (neverRandom(endpoint)) problems.push(`${where}: ${endpoint.path} must never be picked by /random`);
    // A dry run: every pool member must accept what a pick fills in.
    for (const seed of ['0', 'x'.repeat(256), 'é✓ seed']) {
      try {
        fill(endpoint, seed, rngFromSeed(`random-check:${seed}`));
      } catch (error) {
        problems.push(`${where}: /random cannot call it (${error instanceof Error ? error.message : String(error)})`);
        break;
      }
    }
  }
  if (problems.length > 0) throw new RegistryError(registry.host, problems);
  const frozen = Object.freeze(pool);
  pools.set(registry, frozen as readonly AnyEndpoint<unknown>[]);
  return frozen;
}

/** The pick for a seed: same seed, same endpoint, same parameters. */
export function pickFor<Ctx>(pool: readonly AnyEndpoint<Ctx>[], seed: string): RandomPick<Ctx> {
  const rng = rngFromSeed(`random:${seed}`);
  return fill(rng.pick(pool), seed, rng);
}

/** Default parameters, plus the seed forwarded as `seed`, plus drawn path and required values. */
function fill<Ctx>(endpoint: AnyEndpoint<Ctx>, seed: string, rng: Rng): RandomPick<Ctx> {
  const query = new Map<string, string>();
  const pathValues = new Map<string, string>();
  for (const [name, spec] of Object.entries(endpoint.params)) {
    if (name === 'seed' && spec.in === 'query') {
      const forwarded = forwardableSeed(spec, seed);
      if (forwarded !== undefined) query.set(name, encodeURIComponent(forwarded));
      continue;
    }
    if (spec.in === 'path') pathValues.set(name, encodeURIComponent(draw(spec, rng)));
    else if (spec.required) query.set(name, encodeURIComponent(draw(spec, rng)));
  }
  const parsed = parseParams(endpoint.path, endpoint.params, query, pathValues);
  if (!parsed.ok) throw new Error(`${parsed.error.reason} (${parsed.error.requested ?? 'missing'})`);
  const path = endpoint.path.replace(/\{([a-z_][a-z0-9_]*)\*?\}/g, (_, name: string) => pathValues.get(name) ?? '');
  const search = [...query].map(([name, value]) => `${name}=${value}`).join('&');
  return { endpoint, values: parsed.values, path, target: search ? `${path}?${search}` : path };
}

/** The seed itself when the endpoint accepts it, else a short digest of it (still deterministic). */
function forwardableSeed(spec: Param<unknown>, seed: string): string | undefined {
  if (spec.parse(seed).ok) return seed;
  const short = createHash('sha256').update(seed, 'utf8').digest('hex').slice(0, 16);
  return spec.parse(short).ok ? short : undefined;
}

function draw(spec: Param<unknown>, rng: Rng): string {
  if (spec.picks) return String(rng.pick(spec.picks));
  switch (spec.kind) {
    case 'int':
      return String(rng.intBetween(spec.min ?? 0, spec.max ?? 1000));
    case 'number': {
      const min = spec.min ?? 0;
      return String(min + rng.nextFloat() * ((spec.max ?? 1) - min));
    }
    case 'enum':
      return rng.pick(spec.accepted as readonly string[]);
    case 'boolean':
      return rng.pick(['true', 'false']);
    case 'string':
      return `r${rng.nextUint32().toString(16).padStart(8, '0')}`;
    case 'list':
      // No item is drawn: a required list makes its endpoint fail the pool check.
      return '';
  }
}
