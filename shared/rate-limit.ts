// The real per-IP limit's answer (DESIGN §5): 429 with Retry-After, the IETF
// RateLimit-Policy / RateLimit fields and an application/problem+json body.
// It is a real failure, so it carries no X-Chaos-* header.
import type { HeaderList } from './headers.js';
import { jsonBody } from './json.js';
import type { Config } from './config.js';
import type { RateCheck, RateDecision, Store } from './store/types.js';

export const RATE_PERIOD_MS = 60_000;

export interface Refusal {
  readonly status: 429;
  readonly headers: HeaderList;
  readonly body: Buffer;
}

export function rateLimitRefusal(decision: RateDecision, check: RateCheck): Refusal {
  const retryAfter = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  const window = Math.round(check.periodMs / 1000);
  const body = jsonBody({
    type: 'about:blank',
    title: 'Too Many Requests',
    status: 429,
    detail: `The ${check.policy} limit of ${check.limit} requests per ${window} seconds per IP was exceeded; retry after ${retryAfter} s. This is a real limit, not chaos.`,
    policy: check.policy,
  });
  return {
    status: 429,
    headers: [
      ['Content-Type', 'application/problem+json'],
      ['Content-Length', String(body.length)],
      ['Retry-After', String(retryAfter)],
      ['RateLimit-Policy', `"${check.policy}";q=${check.limit};w=${window}`],
      ['RateLimit', `"${check.policy}";r=0;t=${retryAfter}`],
    ],
    body,
  };
}

/** A per-IP policy for a client (`limit` per 60 s), or undefined when the limit is 0 (off). */
export function perIpCheck(policy: string, limit: number, clientAddress: string): RateCheck | undefined {
  return limit > 0 ? { policy, key: `${policy}:${clientAddress}`, limit, periodMs: RATE_PERIOD_MS } : undefined;
}

/** The general per-IP policy for a client (RATE_LIMIT_GENERAL). */
export function generalCheck(config: Config, clientAddress: string): RateCheck | undefined {
  return perIpCheck('general', config.rateLimit.general, clientAddress);
}

/**
 * The refusal for a request over a limit, or undefined to serve it. Fails
 * open: a store that cannot answer never turns into an error (DESIGN §7).
 */
export async function refusalFor(store: Store, check: RateCheck): Promise<Refusal | undefined> {
  try {
    const decision = await store.checkRate([check]);
    return decision.allowed ? undefined : rateLimitRefusal(decision, check);
  } catch {
    return undefined;
  }
}

/**
 * The same, decided at once when the store can (in-memory): `'ask'` means the
 * caller must await `refusalFor` instead.
 */
export function refusalNow(store: Store, check: RateCheck): Refusal | undefined | 'ask' {
  if (!store.checkRateNow) return 'ask';
  const decision = store.checkRateNow([check]);
  return decision.allowed ? undefined : rateLimitRefusal(decision, check);
}
