// The one module that imports pure-rand (DESIGN §6). The steps below are the
// permanent seed contract, pinned by golden vectors in tests/unit/seed.test.ts:
//   1. SHA-256 of the seed string's UTF-8 bytes;
//   2. the first 16 bytes read as four little-endian int32 are the state of
//      xoroshiro128plusFromState (never xoroshiro128plus(n): its first output is ~n);
//   3. bytes are successive next() values written little-endian.
// Changing any step changes every seeded output: don't.
import crypto, { createHash, randomBytes } from 'node:crypto';
import { xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';

export interface Rng {
  /** Next raw value, a signed 32-bit integer (pure-rand's next()). */
  nextInt32(): number;
  /** Next value as an unsigned 32-bit integer. */
  nextUint32(): number;
  /** Uniform float in [0, 1), from 53 bits of two draws. */
  nextFloat(): number;
  /** Uniform integer in [min, max] (inclusive); rejection sampling, no modulo bias. */
  intBetween(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** Fill `out` with the next bytes of the stream (4 per draw, little-endian). */
  fill(out: Buffer): Buffer;
}

class SeededRng implements Rng {
  readonly #gen: { next(): number };
  constructor(state: readonly number[]) {
    this.#gen = xoroshiro128plusFromState(state);
  }
  nextInt32(): number {
    return this.#gen.next();
  }
  nextUint32(): number {
    return this.#gen.next() >>> 0;
  }
  nextFloat(): number {
    const hi = this.nextUint32() >>> 5; // 27 bits
    const lo = this.nextUint32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }
  intBetween(min: number, max: number): number {
    const range = max - min + 1;
    if (!Number.isInteger(range) || range <= 0 || range > 0x1_0000_0000) {
      throw new RangeError(`intBetween(${min}, ${max}): range must be 1..2^32`);
    }
    const limit = 0x1_0000_0000 - (0x1_0000_0000 % range);
    let draw = this.nextUint32();
    while (draw >= limit) draw = this.nextUint32();
    return min + (draw % range);
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[this.intBetween(0, items.length - 1)] as T;
  }
  fill(out: Buffer): Buffer {
    const whole = out.length & ~3;
    let i = 0;
    for (; i < whole; i += 4) out.writeInt32LE(this.#gen.next(), i);
    if (i < out.length) {
      const last = this.#gen.next();
      for (let k = 0; i < out.length; i++, k++) out[i] = (last >>> (8 * k)) & 0xff;
    }
    return out;
  }
}

// crypto.hash (Node ≥ 20.12) is the one-shot form, about twice as fast for short
// seeds; the bytes are the same SHA-256 either way.
const sha256: (text: string) => Buffer =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'buffer')
    : (text) => createHash('sha256').update(text, 'utf8').digest();

/** The generator state for a seed string (contract steps 1 and 2). */
export function stateForSeed(seed: string): [number, number, number, number] {
  const digest = sha256(seed);
  return [digest.readInt32LE(0), digest.readInt32LE(4), digest.readInt32LE(8), digest.readInt32LE(12)];
}

/** A generator fully determined by the seed string. */
export function rngFromSeed(seed: string): Rng {
  return new SeededRng(stateForSeed(seed));
}

/** `n` bytes fully determined by the seed string (contract step 3). */
export function seededBytes(seed: string, n: number): Buffer {
  return rngFromSeed(seed).fill(Buffer.allocUnsafe(n));
}

/** An unguessable id (128 bits from the system's CSPRNG, base64url, 22 characters): exam ids. */
export function unguessableId(): string {
  return randomBytes(16).toString('base64url');
}

/** A fresh seed for unseeded calls: reported back so the call can be replayed. */
export function freshSeed(): string {
  return randomBytes(8).toString('hex');
}
