// Twin content, fault-injection family (what a retrying client meets):
// /fail-first, /flaky, /retry-mismatch. The parameters, bodies and seeded
// draws both hosts derive from.
import { reasonPhrase } from '../../primitives/headers.js';
import { int, num, str, type Param } from '../../primitives/params.js';
import { rngFromSeed } from '../../primitives/seed.js';
import { idKey } from '../../store/types.js';
import { switchesProtocols } from '../status.js';

// ---- /fail-first -----------------------------------------------------------

export const FAIL_FIRST_PARAMS = {
  id: str({ minLength: 1, maxLength: 128, required: true, description: 'client-supplied token; calls are counted per id' }),
  n: int({ min: 1, max: 100, default: 3, description: 'calls that fail before the first success' }),
  status: int({ min: 400, max: 599, default: 503, description: 'status of the failing calls' }),
  ttl: int({ min: 1, max: 3600, default: 300, description: 'seconds from the first call until the count starts again' }),
};

/** The count of an id: a fixed-size digest, as for /retry-mismatch records. */
export function failFirstStoreKey(id: string): string {
  return idKey('fail-first', id);
}

export function failFirstBody(id: string, attempt: number | null, failed: boolean, status: number, n: number, ttl: number): Record<string, unknown> {
  return { endpoint: '/fail-first', id, attempt, failed, status, fail_first: n, ttl };
}

// ---- /flaky ---------------------------------------------------------------

/**
 * The failure status: an integer 100–599 (clamped), except 101, which would
 * switch protocols; it is refused as a bad parameter whatever the draw says,
 * so the same URL never answers 400 on one call and 200 on the next.
 */
function failureStatus(): Param<number> {
  const base = int({ min: 100, max: 599, default: 500, description: 'status returned on failure (101 is refused)' });
  return {
    ...base,
    accepted: 'integer from 100 to 599, except 101',
    parse(raw) {
      const outcome = base.parse(raw);
      if (outcome.ok && switchesProtocols(outcome.value)) return { ok: false, reason: 'must not be 101: it would switch protocols' };
      return outcome;
    },
  };
}

export const FLAKY_PARAMS = {
  p: num({ min: 0, max: 1, default: 0.5, description: 'failure probability' }),
  status: failureStatus(),
  seed: str({ maxLength: 256, description: 'same seed, same outcome; omitted: a fresh seed, reported in X-Chaos-Flaky-Seed' }),
};

/**
 * The seeded draw in [0, 1): a pure function of the seed alone, so for one
 * seed a call fails exactly when p is above the draw (p=0 never, p=1 always).
 */
export function flakyDraw(seed: string): number {
  return rngFromSeed(`flaky:${seed}`).nextFloat();
}

export function flakyBody(failed: boolean, status: number, p: number, seed: string | null): Record<string, unknown> {
  return { endpoint: '/flaky', failed, status, reason: reasonPhrase(status), probability: p, seed };
}

// ---- /retry-mismatch ------------------------------------------------------

export const RETRY_WINDOW_MS = 60_000;

export const RETRY_PARAMS = {
  id: str({ minLength: 1, maxLength: 128, required: true, description: 'client-supplied identity token; state is kept per id' }),
};

/** The record of an id: a fixed-size digest, so a long id costs no more store memory than a short one. */
export function retryStoreKey(id: string): string {
  return idKey('retry', id);
}

/** The same shape for both versions; items are a pure function of (id, version). */
export function retryBody(id: string, version: 1 | 2): Record<string, unknown> {
  const rng = rngFromSeed(`retry-mismatch:${version}:${id}`);
  const items: { sku: string; quantity: number; price_cents: number }[] = [];
  let total = 0;
  for (let i = 0; i < 3; i++) {
    const sku = `SKU-${rng.nextUint32().toString(16).padStart(8, '0').toUpperCase()}`;
    const quantity = rng.intBetween(1, 9);
    const price = rng.intBetween(100, 99_999);
    total += quantity * price;
    items.push({ sku, quantity, price_cents: price });
  }
  return { endpoint: '/retry-mismatch', id, data: { version, items, total_cents: total } };
}
