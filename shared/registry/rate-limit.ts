// The real per-IP limits (DESIGN §5, §7): each client's checks, the general
// policy plus those an endpoint declares, decided in one store call, failing
// open. The refusal itself is built with the other real failures (errors.ts).
import type { Config, HostName } from '../config/config.js';
import { rateLimitRefusal, type Refusal } from './errors.js';
import type { RateCheck, RateDecision, Store } from '../store/types.js';

export const RATE_PERIOD_MS = 60_000;

/** The per-IP policies an endpoint can declare beside the general one (each a RATE_LIMIT_* setting). */
export type RatePolicy = Exclude<keyof Config['rateLimit'], 'general'>;

/**
 * A per-IP policy for a client (`limit` per 60 s), or undefined when the limit
 * is 0 (off). The key names the host: each host gives a client its own budget
 * (DESIGN §7), also when every replica of every host shares one Redis.
 */
export function perIpCheck(host: HostName, policy: string, limit: number, clientAddress: string): RateCheck | undefined {
  // One group per host and client: all its policies are counted in one Redis Cluster slot.
  return limit > 0 ? { policy, key: `${host}:${policy}:${clientAddress}`, group: `${host}:${clientAddress}`, limit, periodMs: RATE_PERIOD_MS } : undefined;
}

const NO_CHECKS: readonly RateCheck[] = [];

/**
 * One client's checks: the general policy plus those an endpoint declares,
 * built once per client and policy list (a chaos connection keeps one for all
 * its requests), so the hot path allocates nothing for them.
 */
export class ClientChecks {
  readonly #byPolicies = new Map<readonly RatePolicy[] | undefined, readonly RateCheck[]>();

  constructor(
    private readonly config: Config,
    /** The host whose budget the checks count (each host gives a client its own). */
    readonly host: HostName,
    readonly clientAddress: string,
    /**
     * False for a trusted proxy speaking for itself (a PROXY v2 LOCAL header,
     * or no X-Forwarded-For): its health checks are not a client's requests,
     * and counting them would spend the budget of whoever shares its address.
     */
    readonly limited = true,
  ) {}

  /** The checks for a request to an endpoint declaring `policies`; empty when every limit is off. */
  for(policies: readonly RatePolicy[] | undefined): readonly RateCheck[] {
    if (!this.limited) return NO_CHECKS;
    let checks = this.#byPolicies.get(policies);
    if (checks === undefined) {
      const built: RateCheck[] = [];
      const general = perIpCheck(this.host, 'general', this.config.rateLimit.general, this.clientAddress);
      if (general) built.push(general);
      for (const policy of policies ?? []) {
        const check = perIpCheck(this.host, policy, this.config.rateLimit[policy], this.clientAddress);
        if (check) built.push(check);
      }
      checks = built.length === 0 ? NO_CHECKS : built;
      this.#byPolicies.set(policies, checks);
    }
    return checks;
  }
}

/** The refusal a store's decision stands for, or undefined when it allows. */
export function refusalOf(decision: RateDecision, checks: readonly RateCheck[]): Refusal | undefined {
  if (decision.allowed) return undefined;
  const check = checks.find((c) => c.policy === decision.policy) ?? (checks[0] as RateCheck);
  return rateLimitRefusal(decision, check);
}

/**
 * The refusal for a request over any of its limits, or undefined to serve it:
 * all checks are decided in one store call, and a refused request consumes
 * nothing. Fails open: a store that cannot answer never turns into an error
 * (DESIGN §7).
 */
export async function refusalFor(store: Store, checks: readonly RateCheck[]): Promise<Refusal | undefined> {
  try {
    return refusalOf(await store.checkRate(checks), checks);
  } catch {
    return undefined;
  }
}

/**
 * The same, decided at once when the store can (in-memory, or a lease the
 * Redis store holds for this client): `'ask'` means the caller must await
 * `refusalFor` instead.
 */
export function refusalNow(store: Store, checks: readonly RateCheck[]): Refusal | undefined | 'ask' {
  if (!store.checkRateNow) return store.checkRateLeased?.(checks) !== undefined ? undefined : 'ask';
  try {
    return refusalOf(store.checkRateNow(checks), checks);
  } catch {
    return undefined;
  }
}
