// Twin content, latency family: /slow, /stall, /drip, /slow-headers, /jitter
// (their chaos endpoints and control twins).
// Bodies a chaos endpoint and its control twin share, so the twin serves the
// same resource and only the lie differs.
import type { HeaderList } from '../primitives/headers.js';
import { jsonBody } from '../primitives/json.js';
import { int, oneOf, str } from '../primitives/params.js';
import { rngFromSeed, type Rng } from '../primitives/seed.js';
import { digitPattern } from './payload/index.js';

export const SLOW_MAX_MS = 15_000;

export function slowBody(delayedMs: number): { endpoint: '/slow'; delayed_ms: number; max_ms: number } {
  return { endpoint: '/slow', delayed_ms: delayedMs, max_ms: SLOW_MAX_MS };
}

/** /drip bodies are asterisks, as in httpbin's /drip. */
const DRIP_BUFFER = Buffer.alloc(100_000, '*');
export function dripBody(n: number): Buffer {
  return DRIP_BUFFER.subarray(0, n);
}

// Parameter tables a chaos endpoint and its twin share, so switching host
// never changes what a URL means (the twin ignores what it does not need).
export const SLOW_PARAMS = { ms: int({ min: 0, max: SLOW_MAX_MS, default: 1000, description: 'delay before responding (the twin never waits)' }) };
export const STALL_MAX_MS = 60_000;
export const STALL_PARAMS = {
  after: int({ min: 0, max: 65_536, default: 0, description: 'body bytes sent before the silence' }),
  ms: int({ min: 0, max: STALL_MAX_MS, default: 30_000, description: 'silence before the close (the twin never waits)' }),
};

/**
 * The /stall body: its Content-Length promises one byte more than the `after`
 * bytes the chaos host sends, so a client waits through the silence. The twin
 * sends all of it at once.
 */
export function stallBody(after: number): Buffer {
  return digitPattern(after + 1);
}

/** /stall never outlasts MAX_RESPONSE_MS: a longer silence is shortened, reported like any clamp. */
export function fitStall({ ms }: { readonly ms: number }, maxMs: number): { ms: number } | undefined {
  return ms > maxMs ? { ms: maxMs } : undefined;
}

export const DRIP_PARAMS = {
  bytes: int({ min: 1, max: 100_000, default: 1000, description: 'total bytes streamed' }),
  interval: int({ min: 10, max: 5000, default: 200, description: 'milliseconds between chunks (the twin never waits)' }),
  chunk: int({ min: 1, max: 4096, default: 100, description: 'bytes per chunk' }),
};
/**
 * The /drip schedule fitted into the longest response the service allows: the
 * first chunk leaves at once, so `ceil(bytes/chunk) - 1` intervals must fit in
 * `maxMs`; when they do not, the chunk is raised (both hosts report it).
 */
export function fitDrip(
  { bytes, interval, chunk }: { readonly bytes: number; readonly interval: number; readonly chunk: number },
  maxMs: number,
): { chunk: number } | undefined {
  const maxChunks = Math.floor(maxMs / interval) + 1;
  if (Math.ceil(bytes / chunk) <= maxChunks) return undefined;
  return { chunk: Math.ceil(bytes / maxChunks) };
}

// ---- /slow-headers --------------------------------------------------------

/** The longest head /slow-headers trickles, whatever MAX_RESPONSE_MS allows. */
export const SLOW_HEADERS_MAX_MS = 30_000;

export const SLOW_HEADERS_PARAMS = {
  ms: int({ min: 10, max: 5000, default: 500, description: 'milliseconds between header lines (the twin never waits)' }),
  lines: int({ min: 1, max: 100, default: 4, description: 'X-Slow-Header-NNN lines sent one at a time' }),
};

/** How long the trickled head may last: 30 s, or MAX_RESPONSE_MS when that is shorter. */
export function slowHeadersBoundMs(maxResponseMs: number): number {
  return Math.min(SLOW_HEADERS_MAX_MS, maxResponseMs);
}

/**
 * The head lasts `lines × ms`; when that is over the bound the interval is
 * lowered to fit (both hosts report it in X-Chaos-Clamped). MAX_RESPONSE_MS
 * is at least 1000, so the lowered interval is never under 10 ms.
 */
export function fitSlowHeaders(
  { ms, lines }: { readonly ms: number; readonly lines: number },
  maxResponseMs: number,
): { ms: number } | undefined {
  const bound = slowHeadersBoundMs(maxResponseMs);
  return lines * ms > bound ? { ms: Math.floor(bound / lines) } : undefined;
}

/** `X-Slow-Header-001: line 1 of n` …: the lines the chaos host sends `ms` apart (the twin sends them at once). */
export function slowHeaderLines(lines: number): HeaderList {
  const out: HeaderList = [];
  for (let i = 1; i <= lines; i++) out.push([`X-Slow-Header-${String(i).padStart(3, '0')}`, `line ${i} of ${lines}`]);
  return out;
}

/** `head_ms`: how long the head took on purpose (0 on the twin). */
export function slowHeadersBody(ms: number, lines: number, headMs: number): Buffer {
  return jsonBody({ endpoint: '/slow-headers', interval_ms: ms, lines, head_ms: headMs });
}

// ---- /jitter --------------------------------------------------------------

export const JITTER_MAX_MS = 15_000;
export const JITTER_DISTS = ['uniform', 'normal', 'lognormal'] as const;
export type JitterDist = (typeof JITTER_DISTS)[number];

export const JITTER_PARAMS = {
  dist: oneOf(JITTER_DISTS, { default: 'uniform', description: 'uniform: ms ± spread; normal: mean ms, standard deviation spread; lognormal: median ms, σ = spread / ms' }),
  ms: int({ min: 0, max: JITTER_MAX_MS, default: 500, description: 'the centre of the distribution (ms)' }),
  spread: int({ min: 0, max: JITTER_MAX_MS, default: 200, description: 'how far the delay strays (ms)' }),
  seed: str({ maxLength: 256, description: 'same seed, same delay; omitted: a fresh seed, reported in X-Chaos-Jitter-Seed' }),
};

/** A standard normal draw (Box–Muller over two uniform draws; 1 − u keeps the logarithm finite). */
function standardNormal(rng: Rng): number {
  const u1 = 1 - rng.nextFloat();
  const u2 = rng.nextFloat();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/**
 * The delay of one /jitter call: a pure function of its parameters and seed,
 * rounded to whole milliseconds and bounded to 0–15000 (a draw outside is
 * pinned to the bound; the body says when).
 */
export function jitterDraw(dist: JitterDist, ms: number, spread: number, seed: string): number {
  const rng = rngFromSeed(`jitter:${seed}`);
  let value: number;
  switch (dist) {
    case 'uniform':
      value = ms - spread + rng.nextFloat() * 2 * spread;
      break;
    case 'normal':
      value = ms + spread * standardNormal(rng);
      break;
    case 'lognormal':
      // A median of 0 has no spread: exp(…) × 0 would be NaN for an infinite exp.
      value = ms === 0 ? 0 : ms * Math.exp((spread / ms) * standardNormal(rng));
      break;
  }
  return Math.min(JITTER_MAX_MS, Math.max(0, Math.round(value)));
}

export function jitterBody(dist: JitterDist, ms: number, spread: number, seed: string, drawnMs: number, delayedMs: number): Buffer {
  return jsonBody({ endpoint: '/jitter', dist, ms, spread, seed, drawn_ms: drawnMs, delayed_ms: delayedMs, max_ms: JITTER_MAX_MS });
}
