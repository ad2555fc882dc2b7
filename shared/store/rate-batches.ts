// The Redis store's rate calls (redis.ts): a batch of one client's requests
// decided by one script call (RATE_LUA), each waiter's decision replayed from
// the reply, and leases: units a client far from its limit is granted ahead
// by that same call, reserved in Redis like any other, so its next requests
// are admitted at once, without a round trip each (docs/redis.md, "Rate
// leases").
import type { RateCheck, RateDecision, RateWaiter } from './types.js';

/** Requests with the very same checks (a client's cached list) decided by one script call. */
export interface RateBatch {
  /** The client's checks list: the batch's key, and its lease's. */
  readonly checks: readonly RateCheck[];
  /** Its checks with a limit above 0: the script's keys. */
  readonly live: readonly RateCheck[];
  readonly waiters: RateWaiter[];
}

/**
 * A lease is asked for only while the tightest policy has at least this many
 * units left per leased unit: a client near its limit (under 1000 left, or
 * under any limit below 1000 per period) is decided one call per request, as
 * before leases.
 */
export const UNITS_LEFT_PER_LEASED = 1000;
/** The most units leased ahead at once. */
export const MAX_LEASE = 256;
/**
 * Leased units not used within this long are dropped: a unit is reserved in
 * Redis when it is leased, so one used later counts at the time it was
 * leased; this bounds by how much (and a client that stopped wastes at most
 * one lease, MAX_LEASE units).
 */
export const LEASE_MS = 1000;

const ALLOWED_LEASED: RateDecision = Object.freeze({ allowed: true, policy: undefined, remaining: 0, retryAfterMs: 0, resetMs: 0 });

interface Lease {
  /** Units reserved in Redis and not used yet. */
  units: number;
  /** performance.now() past which the units are dropped. */
  expiresAt: number;
  /** Units used since the last call: with the call's own requests, the demand the next lease is sized by. */
  used: number;
  /** What the next call asks for ahead (0 until a reply showed room for it). */
  next: number;
}

/** Each client's leased units, by its checks list (dropped with it). */
export class RateLeases {
  readonly #byChecks = new WeakMap<readonly RateCheck[], Lease>();

  /** An allowed decision from `checks`' lease, using one unit; undefined when it has none left (ask Redis). */
  take(checks: readonly RateCheck[], now: number): RateDecision | undefined {
    const lease = this.#byChecks.get(checks);
    if (lease === undefined || lease.units === 0) return undefined;
    if (now > lease.expiresAt) {
      lease.units = 0;
      return undefined;
    }
    lease.units--;
    lease.used++;
    return ALLOWED_LEASED;
  }

  /**
   * Allows the first of `waiters` (queued for a call) from `checks`' lease, as
   * many as it has units for, and removes them: requests that queued while
   * the call leasing those units was out need no call of their own. How many.
   */
  serve(checks: readonly RateCheck[], waiters: RateWaiter[], now: number): number {
    let served = 0;
    while (served < waiters.length && this.take(checks, now) !== undefined) served++;
    if (served > 0) for (const waiter of waiters.splice(0, served)) waiter.rateDecided(ALLOWED_LEASED);
    return served;
  }

  /** Units the next call for `checks` asks for beyond its requests. */
  ahead(checks: readonly RateCheck[]): number {
    return this.#byChecks.get(checks)?.next ?? 0;
  }

  /**
   * A call for `checks` was answered: `granted` units beyond its `requests` are
   * leased (any left from the last lease are dropped: the new ones follow them
   * in Redis), and the next lease is sized by the demand seen (twice this
   * call's requests and the units used since the last one) within the room left.
   */
  settled(checks: readonly RateCheck[], requests: number, granted: number, unitsLeft: number, now: number): void {
    let lease = this.#byChecks.get(checks);
    if (lease === undefined) {
      if (unitsLeft < UNITS_LEFT_PER_LEASED) return;
      this.#byChecks.set(checks, (lease = { units: 0, expiresAt: 0, used: 0, next: 0 }));
    }
    lease.next = Math.max(0, Math.min(MAX_LEASE, Math.floor(unitsLeft / UNITS_LEFT_PER_LEASED), 2 * (requests + lease.used)));
    lease.units = granted;
    lease.expiresAt = now + LEASE_MS;
    lease.used = 0;
  }
}

/**
 * Each waiter's decision from a batch reply (see RATE_LUA), in the order they
 * asked. The allowed ones are replayed as the script advanced them: from each
 * key's starting TAT, one interval a request, in the same order of the same
 * double operations, so remaining and resetMs are what a call each would give.
 * Returns the units the script allowed beyond the waiters (a lease) and the
 * tightest policy's units left after all of them.
 */
export function settleRates(batch: RateBatch, reply: readonly unknown[]): { granted: number; unitsLeft: number } {
  const allowed = Number(reply[0]);
  const refusing = Number(reply[1]);
  const refusal: RateDecision | undefined =
    refusing > 0
      ? { allowed: false, policy: (batch.live[refusing - 1] as RateCheck).policy, remaining: 0, retryAfterMs: Number(reply[2]), resetMs: Number(reply[3]) }
      : undefined;
  const now = Number(reply[4]);
  const tats = batch.live.map((_, i) => Number(reply[5 + i]));
  batch.waiters.forEach((waiter, i) => {
    if (i >= allowed) {
      waiter.rateDecided(refusal ?? { allowed: false, policy: batch.live[0]?.policy, remaining: 0, retryAfterMs: 0, resetMs: 0 });
      return;
    }
    let remaining = -1;
    let resetMs = 0;
    batch.live.forEach((check, k) => {
      const interval = check.periodMs / check.limit;
      const tat = (tats[k] as number) + interval;
      tats[k] = tat;
      const left = Math.floor((now + check.periodMs - tat) / interval);
      if (remaining < 0 || left < remaining) remaining = left;
      const untilReset = Math.ceil(tat - now);
      if (untilReset > resetMs) resetMs = untilReset;
    });
    waiter.rateDecided({ allowed: true, policy: undefined, remaining, retryAfterMs: 0, resetMs });
  });
  const granted = Math.max(0, allowed - batch.waiters.length);
  let unitsLeft = Number.POSITIVE_INFINITY;
  batch.live.forEach((check, k) => {
    const interval = check.periodMs / check.limit;
    const tat = (tats[k] as number) + granted * interval;
    unitsLeft = Math.min(unitsLeft, Math.floor((now + check.periodMs - tat) / interval));
  });
  return { granted, unitsLeft: Number.isFinite(unitsLeft) ? unitsLeft : 0 };
}

/**
 * Lets go of a settled batch's waiters. Something on ioredis's side of a
 * command (its promise, once promoted to the old generation) keeps the batch
 * reachable until the next mark-compact, and with it every waiting request's
 * objects, which scavenges then copied and promoted: 168 MB promoted in 4 s
 * of wrk before this, 5 MB after, and about a fifth more requests served.
 */
export function releaseWaiters(batch: RateBatch): void {
  batch.waiters.length = 0;
}
