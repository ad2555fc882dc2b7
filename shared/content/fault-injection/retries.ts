// Twin content, fault-injection family (what a retrying client meets):
// /fail-first. The parameters and bodies both hosts derive from.
import { int, str } from '../../primitives/params.js';
import { idKey } from '../../store/types.js';

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
