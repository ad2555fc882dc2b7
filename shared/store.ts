// Shared state behind one interface (DESIGN §7): retry-mismatch records,
// per-IP rate limits (GCRA) and the daily AI budget. The in-memory store is
// the embedded default; a Redis store with the same semantics joins later.
// Every operation is one call (one round trip for Redis).

export interface RateCheck {
  /** Policy name for metrics and errors, e.g. 'general' or 'infinite'. */
  readonly policy: string;
  /** Counter key, e.g. `general:<ip>`. */
  readonly key: string;
  /** Requests allowed per period; 0 disables the check. */
  readonly limit: number;
  readonly periodMs: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  /** The policy that refused (undefined when allowed). */
  readonly policy: string | undefined;
  /** Requests left in the tightest policy after this one. */
  readonly remaining: number;
  /** When refused: how long until one more request is allowed. */
  readonly retryAfterMs: number;
  /** How long until the tightest policy is fully replenished. */
  readonly resetMs: number;
}

export interface Store {
  /**
   * Counts calls for `key` within a window of `ttlMs` that starts at the first
   * call and is not extended by later ones. Returns the count including this
   * call: 1 for a fresh cycle.
   */
  countInWindow(key: string, ttlMs: number): Promise<number>;
  /**
   * GCRA over every check at once: allowed only if all allow, and then each
   * check consumes one unit; a refused request consumes nothing.
   */
  checkRate(checks: readonly RateCheck[]): Promise<RateDecision>;
  /** Takes one unit of `key`'s budget if fewer than `budget` were taken within `ttlMs`. */
  consumeBudget(key: string, budget: number, ttlMs: number): Promise<boolean>;
  close(): Promise<void>;
}

interface Entry {
  value: number;
  expiresAt: number;
}

export interface MemoryStoreOptions {
  /** Most keys kept; the oldest are evicted first (default 200,000). */
  readonly maxEntries?: number;
  /** Clock, for tests. */
  readonly now?: () => number;
}

/** Bounded, TTL-evicted, single-process store. */
export class MemoryStore implements Store {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: MemoryStoreOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 200_000;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  #live(key: string, now: number): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #put(key: string, entry: Entry): void {
    // Re-inserting moves the key to the end, so Map order is oldest-write first.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  async countInWindow(key: string, ttlMs: number): Promise<number> {
    const now = this.#now();
    const entry = this.#live(key, now);
    if (!entry) {
      this.#put(key, { value: 1, expiresAt: now + ttlMs });
      return 1;
    }
    entry.value++;
    return entry.value;
  }

  async checkRate(checks: readonly RateCheck[]): Promise<RateDecision> {
    const now = this.#now();
    const plans: { check: RateCheck; newTat: number; remaining: number; resetMs: number }[] = [];
    for (const check of checks) {
      if (check.limit <= 0) continue;
      // GCRA: each request advances the theoretical arrival time (TAT) by one
      // emission interval; a burst of `limit` fits within one period.
      const interval = check.periodMs / check.limit;
      const tat = Math.max(this.#live(check.key, now)?.value ?? now, now);
      const newTat = tat + interval;
      const allowAt = newTat - check.periodMs;
      if (allowAt > now) {
        return {
          allowed: false,
          policy: check.policy,
          remaining: 0,
          retryAfterMs: Math.ceil(allowAt - now),
          resetMs: Math.ceil(tat - now),
        };
      }
      plans.push({ check, newTat, remaining: Math.floor((now + check.periodMs - newTat) / interval), resetMs: Math.ceil(newTat - now) });
    }
    let remaining = Number.POSITIVE_INFINITY;
    let resetMs = 0;
    for (const plan of plans) {
      this.#put(plan.check.key, { value: plan.newTat, expiresAt: plan.newTat });
      remaining = Math.min(remaining, plan.remaining);
      resetMs = Math.max(resetMs, plan.resetMs);
    }
    return { allowed: true, policy: undefined, remaining: Number.isFinite(remaining) ? remaining : 0, retryAfterMs: 0, resetMs };
  }

  async consumeBudget(key: string, budget: number, ttlMs: number): Promise<boolean> {
    const now = this.#now();
    const entry = this.#live(key, now);
    if (!entry) {
      if (budget <= 0) return false;
      this.#put(key, { value: 1, expiresAt: now + ttlMs });
      return true;
    }
    if (entry.value >= budget) return false;
    entry.value++;
    return true;
  }

  async close(): Promise<void> {
    this.#entries.clear();
  }
}
