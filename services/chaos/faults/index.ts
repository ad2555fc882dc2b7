// The wire faults by slug (one file each, named by its slug): what `/mix`
// turns a list of names into, and the one place a new fault is registered.
// Each factory takes the shared options and fills in its own defaults.
import type { HeaderList } from '../../../shared/primitives/headers.js';
import { chunkedCorrupt, type ChunkedCorruption } from './chunked-corrupt.js';
import { closeEarly } from './close-early.js';
import { delayFirstByte } from './delay-first-byte.js';
import { drip } from './drip.js';
import { garbage } from './garbage.js';
import { headerInject } from './header-inject.js';
import { resetAt, type ResetPhase } from './reset-at.js';
import { slowHead } from './slow-head.js';
import type { Fault } from './stage.js';
import { truncateAt } from './truncate-at.js';

export { compose, Stage, type Fault } from './stage.js';

/** What a fault may be tuned by; each ignores what it does not use. */
export interface FaultOptions {
  /** delay-first-byte: the wait (ms). */
  readonly ms?: number;
  /** drip, slow-head: bytes per piece. */
  readonly chunk?: number;
  /** drip, slow-head: ms between pieces. */
  readonly interval?: number;
  /** truncate-at, reset-at (mid-body), close-early: body bytes let through. */
  readonly at?: number;
  /** garbage: how many bytes. */
  readonly bytes?: number;
  /** garbage: the seed of its bytes. */
  readonly seed?: string;
  /** reset-at: where the reset comes. */
  readonly phase?: ResetPhase;
  /** header-inject: the lines added. */
  readonly lines?: HeaderList;
  /** chunked-corrupt: how the framing breaks. */
  readonly corruption?: ChunkedCorruption;
}

export const FAULTS = {
  'delay-first-byte': (o: FaultOptions) => delayFirstByte(o.ms ?? 1000),
  'slow-head': (o: FaultOptions) => slowHead(o.chunk ?? 1, o.interval ?? 100),
  drip: (o: FaultOptions) => drip(o.chunk ?? 100, o.interval ?? 200),
  'truncate-at': (o: FaultOptions) => truncateAt(o.at ?? 512),
  'reset-at': (o: FaultOptions) => resetAt(o.phase ?? 'mid-body', o.at ?? 0),
  garbage: (o: FaultOptions) => garbage(o.bytes ?? 256, o.seed ?? '42'),
  'close-early': (o: FaultOptions) => closeEarly(o.at),
  'header-inject': (o: FaultOptions) => headerInject(o.lines ?? []),
  'chunked-corrupt': (o: FaultOptions) => chunkedCorrupt(o.corruption ?? 'bad-size'),
} as const satisfies Readonly<Record<string, (options: FaultOptions) => Fault>>;

export type FaultSlug = keyof typeof FAULTS;

export const FAULT_SLUGS = Object.keys(FAULTS) as readonly FaultSlug[];

/** The chain for a list of slugs, in order (the first sees the response first). */
export function faultsFor(slugs: readonly FaultSlug[], options: FaultOptions = {}): Fault[] {
  return slugs.map((slug) => FAULTS[slug](options));
}
