// Twin content, payload family: /truncate, /partial-stream, /bytes (their
// chaos endpoints and control twins).
// Bodies a chaos endpoint and its control twin share, so the twin serves the
// same resource and only the lie differs.
import { int, str } from '../../primitives/params.js';
import { seededBytes } from '../../primitives/seed.js';

const PATTERN = '0123456789';
/** The /truncate pattern for the largest `at` (1,000,000) and its promise (2×), built once. */
const PATTERN_BUFFER = Buffer.from(PATTERN.repeat(200_000), 'latin1');

/** `n` bytes of the repeating ASCII pattern 0123456789 (n ≤ 2,000,000). */
export function digitPattern(n: number): Buffer {
  if (n > PATTERN_BUFFER.length) throw new RangeError(`digitPattern(${n}) exceeds ${PATTERN_BUFFER.length}`);
  return PATTERN_BUFFER.subarray(0, n);
}

/**
 * The JSON document /partial-stream cuts: an object whose opening part (before
 * the closing `]}`) is at least `bytes` long, so its first `bytes` bytes are
 * never a complete JSON text. The control twin serves it whole.
 */
export function partialStreamDocument(bytes: number): Buffer {
  let text = '{"endpoint":"/partial-stream","note":"the chaos host cuts this document short","items":[';
  for (let i = 0; text.length < bytes; i++) {
    const id = String(i).padStart(5, '0');
    text += `${i === 0 ? '' : ','}{"id":${i},"name":"item-${id}","value":${(i * 37) % 1000}}`;
  }
  return Buffer.from(`${text}]}`, 'latin1');
}

/** Precomputed for the largest fragment; any shorter prefix is a prefix of it. */
const PARTIAL_MAX = partialStreamDocument(16_384);
export function partialStreamFragment(bytes: number): Buffer {
  return PARTIAL_MAX.subarray(0, bytes);
}

const BYTES_MAX_N = 4096;

// Parameter tables a chaos endpoint and its twin share, so switching host
// never changes what a URL means (the twin ignores what it does not need).
export const TRUNCATE_PARAMS = { at: int({ min: 1, max: 1_000_000, default: 512, description: 'bytes actually sent' }) };
export const PARTIAL_STREAM_PARAMS = {
  bytes: int({ min: 1, max: 16_384, default: 128, description: 'bytes of the JSON fragment the chaos host sends before closing' }),
};
export const BYTES_N = int({ min: 1, max: BYTES_MAX_N, default: 256, description: 'bytes in the actual body' });
export const BYTES_SEED = str({ maxLength: 256, default: '42', description: 'same seed, same bytes' });

/** Seeds whose longest stream is kept (about 1 MiB): most callers reuse a few seeds. */
const CACHED_SEEDS = 256;
const seededStreams = new Map<string, Buffer>();

/**
 * seededBytes(seed, n) for /bytes on both hosts. A seed's output at any length
 * is a prefix of its longest one, so a recent seed costs a slice instead of a
 * SHA-256 and n/4 generator draws. The bytes are shared: never write to them
 * (copy first, as /bytes?mode=wrong-content-type does).
 */
export function bytesForSeed(seed: string, n: number): Buffer {
  let stream = seededStreams.get(seed);
  if (stream === undefined) {
    if (seededStreams.size >= CACHED_SEEDS) seededStreams.clear();
    stream = seededBytes(seed, BYTES_MAX_N);
    seededStreams.set(seed, stream);
  }
  return stream.subarray(0, n);
}
