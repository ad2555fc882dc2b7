// SPEC §4.1's /method table, as the tests expect it: GET and HEAD answered;
// OPTIONS a non-GET method like the others except in options-mismatch (DESIGN §8).
import { ALLOW_SIX, ALLOW_TRUE, type MethodMode } from '../../shared/content/method.js';

export interface MethodAnswer {
  readonly status: number;
  /** The Allow line, null when there is none. */
  readonly allow: string | null;
  readonly body: 'json' | 'empty' | 'none';
}

export function methodExpectation(mode: MethodMode, method: string): MethodAnswer {
  if (method === 'GET' || method === 'HEAD') return { status: 200, allow: null, body: 'json' };
  if (method === 'OPTIONS' && mode === 'options-mismatch') return { status: 204, allow: ALLOW_SIX, body: 'none' };
  switch (mode) {
    case 'lying-allow':
      return { status: 405, allow: ALLOW_SIX, body: 'json' };
    case 'silent-on-wrong-method':
      return { status: 200, allow: null, body: 'empty' };
    case '405-without-allow':
      return { status: 405, allow: null, body: 'json' };
    case 'options-mismatch':
      return { status: 405, allow: ALLOW_TRUE, body: 'json' };
  }
}
