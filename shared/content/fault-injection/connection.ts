// Twin content, fault-injection family (connection faults): /reset, /empty,
// /garbage, /chunked, /keepalive-lie. The parameters and the honest bodies
// both hosts derive from: the chaos host breaks the delivery of these bodies,
// its control twin delivers them whole (or says in JSON what the chaos host
// would have done).
import { int, oneOf, str } from '../../primitives/params.js';
import { seededBytes } from '../../primitives/seed.js';

// ---- /reset ----------------------------------------------------------------

export const RESET_PARAMS = {
  phase: oneOf(['before-head', 'after-head', 'mid-body'], {
    default: 'before-head',
    description: 'where the TCP reset comes: before any byte, right after the head, or after `after` body bytes',
  }),
  after: int({ min: 0, max: 65_536, default: 512, description: 'mid-body: body bytes sent before the reset' }),
};

/** The declared body of /reset: `after` + RESET_BODY_TAIL bytes, so a mid-body reset always cuts it. */
export const RESET_BODY_TAIL = 1024;

export function resetBody(after: number): Buffer {
  return Buffer.alloc(after + RESET_BODY_TAIL, 'reset body line\n', 'latin1');
}

export function resetTwinBody(phase: string, after: number): Record<string, unknown> {
  const what: Record<string, string> = {
    'before-head': 'reset the connection before sending any byte',
    'after-head': 'send the complete head, then reset the connection instead of the body',
    'mid-body': `send the head and ${after} of the ${after + RESET_BODY_TAIL} body bytes, then reset the connection`,
  };
  return { endpoint: '/reset', phase, after, chaos_would: what[phase] };
}

// ---- /empty ----------------------------------------------------------------

export const EMPTY_TWIN_BODY = { endpoint: '/empty', chaos_would: 'read the request, then close the connection without sending a byte' };

// ---- /garbage --------------------------------------------------------------

export const GARBAGE_PARAMS = {
  n: int({ min: 1, max: 65_536, default: 1024, description: 'random bytes sent instead of a response' }),
  // No head carries a report on the chaos host, so the default seed is fixed
  // (as /bytes'): a call without a seed replays as it is.
  seed: str({ maxLength: 256, default: '42', description: 'same seed, same bytes' }),
};

/** The bytes /garbage sends and its twin frames honestly. */
export function garbageBytes(seed: string, n: number): Buffer {
  return seededBytes(`garbage:${seed}`, n);
}

// ---- /chunked --------------------------------------------------------------

export const CHUNKED_MODES = ['bad-size', 'size-too-large', 'missing-terminator', 'junk-extensions', 'junk-trailers', 'cl-and-te'] as const;
export type ChunkedMode = (typeof CHUNKED_MODES)[number];

export const CHUNKED_PARAMS = {
  mode: oneOf(CHUNKED_MODES, { default: 'bad-size', description: 'how the chunked framing lies' }),
};

/** The body of /chunked in the pieces that become its chunks: a JSON document in three chunks. */
export function chunkedParts(mode: string): readonly Buffer[] {
  return [`{"endpoint":"/chunked",`, `"mode":${JSON.stringify(mode)},`, `"chunks":3}\n`].map((s) => Buffer.from(s, 'latin1'));
}

// ---- /keepalive-lie --------------------------------------------------------

/** What the chaos host promises, and breaks by closing right after the response. */
export const KEEPALIVE_PROMISE = 'timeout=60';

export function keepaliveBody(honest: boolean): Record<string, unknown> {
  return honest
    ? { endpoint: '/keepalive-lie', keep_alive: true, chaos_would: 'promise Keep-Alive: timeout=60, then close the connection right after this response' }
    : { endpoint: '/keepalive-lie', keep_alive: true };
}
