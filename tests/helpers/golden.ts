// Golden-byte cases: a request, the exact response (Date value masked) or its
// digest, how the connection ends, and where pinned the sizes of the separate
// arrivals. Shared by the golden tests recorded before a rewrite.
import { createHash } from 'node:crypto';
import type { Test } from 'tap';
import type { RawResult } from './raw.js';

export interface GoldenCase {
  readonly request: string;
  /** The whole response, Date value masked as DATE; or its SHA-256 (hex) when long. */
  readonly bytes?: string;
  readonly sha256?: string;
  readonly end: 'fin' | 'reset' | 'stopped';
  /** Sizes of the separate arrivals, where they are part of what is pinned. */
  readonly arrivals?: readonly number[];
}

export function maskDate(data: Buffer): string {
  return data.toString('latin1').replace(/\r\nDate: [^\r\n]*/g, '\r\nDate: DATE');
}

/** One subtest per case: `capture` sends the request, the answer must match the case. */
export async function checkGolden(
  t: Test,
  cases: readonly GoldenCase[],
  capture: (request: string) => Promise<RawResult>,
  name: (request: string) => string,
  arrivalsMean: string,
): Promise<void> {
  for (const c of cases) {
    await t.test(name(c.request), async (t) => {
      const r = await capture(c.request);
      const text = maskDate(r.data);
      if (c.bytes !== undefined) t.equal(text, c.bytes, 'exact bytes');
      if (c.sha256 !== undefined) t.equal(createHash('sha256').update(text, 'latin1').digest('hex'), c.sha256, 'exact bytes (digest)');
      t.equal(r.end, c.end, 'ends the same way');
      if (c.arrivals) t.same(r.arrivals.map((a) => a.bytes), c.arrivals, arrivalsMean);
    });
  }
}
