// The seeded fuzzing both protocol readers face (tests/unit/*-reader-fuzz.test.ts):
// random bytes, mutations of plausible streams, and every input read whole,
// split in two at every byte and byte by byte, which must all read alike.
import type { Test } from 'tap';
import { rngFromSeed } from '../../shared/primitives/seed.js';

/** A seeded source of floats in [0, 1): a failure names a case that replays. */
export type Draw = () => number;

export function drawer(seed: string): Draw {
  const rng = rngFromSeed(seed);
  return () => rng.nextFloat();
}

export const pick = (draw: Draw, n: number): number => Math.floor(draw() * n);

export function bytes(draw: Draw, n: number): Buffer {
  const out = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) out[i] = pick(draw, 256);
  return out;
}

/** A few bytes of `input` replaced, dropped or duplicated; the first `keep` bytes mostly left alone. */
export function mutate(draw: Draw, input: Buffer, keep = 0): Buffer {
  let out = Buffer.from(input);
  const edits = 1 + pick(draw, 4);
  for (let i = 0; i < edits && out.length > 0; i++) {
    const at = keep + pick(draw, Math.max(1, out.length - keep));
    const how = pick(draw, 3);
    if (how === 0) out[Math.min(at, out.length - 1)] = pick(draw, 256);
    else if (how === 1) out = Buffer.concat([out.subarray(0, at), out.subarray(at + 1)]);
    else out = Buffer.concat([out.subarray(0, at), bytes(draw, 1 + pick(draw, 9)), out.subarray(at)]);
  }
  return out;
}

/**
 * Reads each round's input whole, split at every byte (two pieces) and byte by
 * byte; `feed` reads the input cut at the given offsets and returns what it read,
 * which must be the same every way. Returns how many split inputs were read.
 */
export function splitEverywhere(t: Test, rounds: number, input: (round: number) => Buffer, feed: (input: Buffer, cuts: readonly number[], label: string) => string): number {
  let splits = 0;
  for (let round = 0; round < rounds; round++) {
    const bytesIn = input(round);
    const label = `round ${round}`;
    const whole = feed(bytesIn, [], label);
    for (let cut = 1; cut < bytesIn.length; cut++) {
      splits++;
      if (feed(bytesIn, [cut], label) !== whole) {
        t.fail(`${label}: split at ${cut} reads differently`);
        break;
      }
    }
    const singles = Array.from({ length: Math.max(0, bytesIn.length - 1) }, (_, i) => i + 1);
    if (feed(bytesIn, singles, label) !== whole) t.fail(`${label}: byte by byte reads differently`);
  }
  return splits;
}
