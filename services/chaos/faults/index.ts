// The wire faults by slug (one file each, named by its slug), and the one
// place a fault is registered. Each fault is named, with the argument /mix
// takes for it, in shared/content/fault-injection/mix.ts (FAULT_TERMS: both /mix
// twins parse that grammar, and only the chaos host has the faults); FAULTS
// binds an implementation to every name there and to no other, or this file
// does not compile.
import {
  type ChunkedCorruption, type FaultArgumentOf, type FaultName, type MixFault, MIX_PIECES, type ResetPhase,
} from '../../../shared/content/fault-injection/index.js';
import type { HeaderList } from '../../../shared/primitives/headers.js';
import { chunkedCorrupt } from './chunked-corrupt.js';
import { closeEarly } from './close-early.js';
import { delayFirstByte } from './delay-first-byte.js';
import { drip } from './drip.js';
import { garbage } from './garbage.js';
import { headerInject } from './header-inject.js';
import { resetAt } from './reset-at.js';
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

/** The /mix answer a fault goes under: what sizes its pieces and cuts. */
export interface MixAnswer {
  readonly bodyLength: number;
  readonly headLength: number;
}

export interface FaultDefinition<Argument> {
  /** The fault from the shared options, each filling in its own defaults. */
  readonly make: (options: FaultOptions) => Fault;
  /** The fault /mix puts under its answer for `fault=name[:argument]`. */
  readonly mix: (argument: Argument, answer: MixAnswer) => Fault;
}

/** MIX_PIECES pieces of `length` bytes: the size of each (at least 1). */
function pieceOf(length: number): number {
  return Math.max(1, Math.ceil(length / MIX_PIECES));
}

export const FAULTS: { readonly [N in FaultName]: FaultDefinition<FaultArgumentOf<N>> } = {
  'delay-first-byte': { make: (o) => delayFirstByte(o.ms ?? 1000), mix: (ms) => delayFirstByte(ms) },
  'slow-head': { make: (o) => slowHead(o.chunk ?? 1, o.interval ?? 100), mix: (ms, answer) => slowHead(pieceOf(answer.headLength), ms) },
  drip: { make: (o) => drip(o.chunk ?? 100, o.interval ?? 200), mix: (ms, answer) => drip(pieceOf(answer.bodyLength), ms) },
  'truncate-at': { make: (o) => truncateAt(o.at ?? 512), mix: (at) => truncateAt(at) },
  'reset-at': {
    make: (o) => resetAt(o.phase ?? 'mid-body', o.at ?? 0),
    mix: (phase, answer) => resetAt(phase, phase === 'mid-body' ? Math.floor(answer.bodyLength / 2) : 0),
  },
  // /mix's garbage is seeded by 'mix': the same bytes on every call.
  garbage: { make: (o) => garbage(o.bytes ?? 256, o.seed ?? '42'), mix: (n) => garbage(n, 'mix') },
  'close-early': { make: (o) => closeEarly(o.at), mix: (n) => closeEarly(n) },
  'header-inject': { make: (o) => headerInject(o.lines ?? []), mix: (line) => headerInject([line]) },
  'chunked-corrupt': { make: (o) => chunkedCorrupt(o.corruption ?? 'bad-size'), mix: (kind) => chunkedCorrupt(kind) },
};

export type FaultSlug = FaultName;

/** The registered faults (the same names as FAULT_NAMES, which the type of FAULTS demands). */
export const FAULT_SLUGS = Object.keys(FAULTS) as readonly FaultSlug[];

/** The chain for a list of slugs, in order (the first sees the response first). */
export function faultsFor(slugs: readonly FaultSlug[], options: FaultOptions = {}): Fault[] {
  return slugs.map((slug) => FAULTS[slug].make(options));
}

/** The stage of a /mix `fault` part. */
export function mixFault(fault: MixFault, answer: MixAnswer): Fault {
  // The name and its argument's type travel together in MixFault; TypeScript cannot follow that through the index.
  const definition = FAULTS[fault.name] as FaultDefinition<MixFault['argument']>;
  return definition.mix(fault.argument, answer);
}
