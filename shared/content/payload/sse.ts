// Twin content, payload family: /sse, a text/event-stream (WHATWG HTML §9.2)
// on both hosts. The twin sends five events per connection and resumes: a
// reconnection with `Last-Event-ID: N` continues with id N+1. Each chaos mode
// is the twin's stream with one defect, several of them in the resumption.
import { int, oneOf, str } from '../../primitives/params.js';
import { rngFromSeed } from '../../primitives/seed.js';

export const SSE_MODES = [
  'no-blank-lines', 'invalid-retry', 'id-backwards', 'cut-mid-event', 'wrong-content-type', 'heartbeat-only',
  'ignores-last-event-id', 'replays-from-start', 'skips-events', 'ids-not-monotonic', 'retry-absurd',
  'missing-data-prefix', 'event-without-listener', 'crlf-mix',
] as const;
export type SseMode = (typeof SSE_MODES)[number];

/** Events per connection: ids N+1..N+5 after `Last-Event-ID: N`, 1..5 without one. */
export const SSE_EVENTS = 5;
export const SSE_RETRY_MS = 3000;
export const SSE_HEARTBEAT = ': heartbeat\n\n';
export const SSE_MAX_MS = 3_600_000;
/** The largest Last-Event-ID the stream resumes after: ids are 1 to 9 decimal digits. */
export const SSE_MAX_LAST_ID = 999_999_999;
/** replays-from-start replays at most this many old events, so a response holds at most 100. */
export const SSE_REPLAY_MAX = 95;
/** retry-absurd's two reconnection times, picked by the seed: at once, or in 11.6 days. */
export const SSE_ABSURD_RETRIES = [0, 1_000_000_000] as const;

export const SSE_PARAMS = {
  mode: oneOf(SSE_MODES, { default: 'no-blank-lines', description: 'which lie (the twin always sends a valid stream, and resumes)' }),
  interval: int({ min: 10, max: 60_000, default: 1000, description: 'heartbeat-only: milliseconds between comment lines (the twin never waits)' }),
  ms: int({ min: 0, max: SSE_MAX_MS, default: 60_000, description: 'heartbeat-only: how long the heartbeats go on (lowered to MAX_RESPONSE_MS)' }),
  seed: str({ maxLength: 256, default: '42', description: 'skips-events, ids-not-monotonic, retry-absurd: same seed, same stream' }),
};

/** heartbeat-only never outlasts MAX_RESPONSE_MS: a longer `ms` is lowered, reported like any clamp. */
export function fitSse({ ms }: { readonly ms: number }, maxMs: number): { ms: number } | undefined {
  return ms > maxMs ? { ms: maxMs } : undefined;
}

/** What a request's Last-Event-ID asks for. */
export type Resumption =
  | { readonly kind: 'fresh' }
  | { readonly kind: 'resumed'; readonly after: number }
  /** Not an id this stream issues (not 1 to 9 ASCII digits): served as a fresh stream, and said so in a comment. */
  | { readonly kind: 'unrecognised' };

const LAST_ID_RE = /^[0-9]{1,9}$/;

/** Reads Last-Event-ID (absent or empty: a first connection). Never throws, whatever the value. */
export function readLastEventId(value: string | undefined): Resumption {
  if (value === undefined || value === '') return { kind: 'fresh' };
  return LAST_ID_RE.test(value) ? { kind: 'resumed', after: Number(value) } : { kind: 'unrecognised' };
}

/** A comment line (ignored by EventSource) saying how the request's Last-Event-ID was read; none on a first connection. */
export function resumptionNote(r: Resumption): string {
  if (r.kind === 'resumed') return `: resuming after id ${r.after}\n`;
  if (r.kind === 'unrecognised') return ': Last-Event-ID is not an id of this stream (1 to 9 decimal digits); starting from id 1\n';
  return '';
}

const firstId = (r: Resumption): number => (r.kind === 'resumed' ? r.after + 1 : 1);

function sseFields(id: number, n: number, eol = '\n', event = 'tick'): string {
  return `id: ${id}${eol}event: ${event}${eol}data: {"n":${n}}${eol}`;
}

/** The ids from `first`, one connection's worth. */
const window = (first: number): number[] => Array.from({ length: SSE_EVENTS }, (_, i) => first + i);
const RETRY_LINE = `retry: ${SSE_RETRY_MS}\n\n`;
const events = (ids: readonly number[]): string[] => ids.map((id) => `${sseFields(id, id)}\n`);

/** The valid stream: a reconnection time, then five events, ids increasing, each ended by a blank line. */
export function sseTwinText(r: Resumption): string {
  return resumptionNote(r) + RETRY_LINE + events(window(firstId(r))).join('');
}
/** The twin's stream on a first connection. */
export const SSE_VALID = sseTwinText({ kind: 'fresh' });

/** A chaos stream: the pieces written one chunk each, and X-Chaos-* extras the mode reports. */
export interface SseChaos {
  readonly pieces: readonly string[];
  readonly extra: Readonly<Record<string, number>>;
}

/** How many events skips-events leaves out on a resumption (1 to 5, by seed). */
export function sseSkipped(seed: string): number {
  return rngFromSeed(`sse:skips-events:${seed}`).intBetween(1, 5);
}
/** retry-absurd's reconnection time (0 or 10^9 ms, by seed). */
export function sseAbsurdRetry(seed: string): number {
  return SSE_ABSURD_RETRIES[rngFromSeed(`sse:retry-absurd:${seed}`).intBetween(0, 1)] as number;
}
/** ids-not-monotonic's order of the window's five ids: a seeded shuffle, never increasing nor decreasing. */
export function sseIdOrder(seed: string): number[] {
  const rng = rngFromSeed(`sse:ids-not-monotonic:${seed}`);
  const order = [0, 1, 2, 3, 4];
  for (let i = order.length - 1; i > 0; i--) {
    const j = rng.intBetween(0, i);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const sorted = order.every((v, i) => i === 0 || v > (order[i - 1] as number)) || order.every((v, i) => i === 0 || v < (order[i - 1] as number));
  if (sorted) [order[1], order[2]] = [order[2] as number, order[1] as number];
  return order;
}

/** Line endings crlf-mix gives the retry line and the five events in turn (all three are valid, WHATWG §9.2.5). */
const CRLF_MIX = ['\r\n', '\r\n', '\n', '\r', '\r\n', '\n'] as const;

/**
 * The chaos stream of a mode (heartbeat-only's comments are timed, so its
 * pieces are empty). cut-mid-event stops inside the third event; the endpoint
 * then closes without the last chunk. Without a Last-Event-ID every mode
 * from before issue 30 sends the bytes it always sent.
 */
export function sseChaos(mode: SseMode, r: Resumption, seed: string): SseChaos {
  const note = resumptionNote(r);
  const first = firstId(r);
  const ids = window(first);
  const withNote = (pieces: string[], extra: Readonly<Record<string, number>> = {}): SseChaos => ({ pieces: note === '' ? pieces : [note, ...pieces], extra });
  switch (mode) {
    case 'no-blank-lines':
      // Without the blank lines the five become one event: the data lines join, the last id wins.
      return withNote([...ids.map((i) => sseFields(i, i)), '\n']);
    case 'invalid-retry':
      // Only ASCII digits set the reconnection time: every one of these is ignored.
      return withNote(['retry: soon\nretry: -1\nretry: 2.5e3\n\n', ...events(ids)]);
    case 'id-backwards':
      return withNote([RETRY_LINE, ...ids.map((n, i) => `${sseFields(first + SSE_EVENTS - 1 - i, n)}\n`)]);
    case 'cut-mid-event':
      return withNote([RETRY_LINE, `${sseFields(first, first)}\n`, `${sseFields(first + 1, first + 1)}\n`, `id: ${first + 2}\nevent: tick\ndata: {"n":`]);
    case 'wrong-content-type':
      return { pieces: [sseTwinText(r)], extra: {} };
    case 'heartbeat-only':
      return { pieces: [], extra: {} };
    case 'ignores-last-event-id':
      // The header is never read: ids 1..5 on every connection, so a client never gets further.
      return { pieces: [RETRY_LINE, ...events(window(1))], extra: {} };
    case 'replays-from-start': {
      // Says it resumes, then sends every event from id 1 again (at most SSE_REPLAY_MAX of them) before the new ones.
      const replayed = r.kind === 'resumed' ? Array.from({ length: Math.min(r.after, SSE_REPLAY_MAX) }, (_, i) => i + 1) : [];
      return withNote([RETRY_LINE, ...events([...replayed, ...ids])]);
    }
    case 'skips-events': {
      // A first connection is honest; a resumption says it resumes after N and starts past N+1.
      const skipped = sseSkipped(seed);
      return withNote([RETRY_LINE, ...events(r.kind === 'resumed' ? window(first + skipped) : ids)], { 'Sse-Skipped': skipped });
    }
    case 'ids-not-monotonic': {
      const order = sseIdOrder(seed);
      return withNote([RETRY_LINE, ...ids.map((n, i) => `${sseFields(first + (order[i] as number), n)}\n`)]);
    }
    case 'retry-absurd': {
      const retry = sseAbsurdRetry(seed);
      return withNote([`retry: ${retry}\n\n`, ...events(ids)], { 'Sse-Retry': retry });
    }
    case 'missing-data-prefix':
      // `{"n":1}` parses as a field named `{"n"`, which is ignored: no data, so no event is dispatched (the ids still count).
      return withNote([RETRY_LINE, ...ids.map((i) => `id: ${i}\nevent: tick\n{"n":${i}}\n\n`)]);
    case 'event-without-listener':
      // The documented type is tick; these are `update`, which neither a tick listener nor onmessage receives.
      return withNote([RETRY_LINE, ...ids.map((i) => `${sseFields(i, i, '\n', 'update')}\n`)]);
    case 'crlf-mix': {
      const pieces = [`retry: ${SSE_RETRY_MS}${CRLF_MIX[0]}${CRLF_MIX[0]}`, ...ids.map((i, k) => `${sseFields(i, i, CRLF_MIX[k + 1])}${CRLF_MIX[k + 1]}`)];
      // The fourth event's closing CRLF is split between two chunks: CR ends one, LF opens the next (still one line end).
      pieces[4] = (pieces[4] as string).slice(0, -1);
      pieces[5] = `\n${pieces[5] as string}`;
      return withNote(pieces);
    }
  }
}

export function sseContentType(mode: SseMode): string {
  return mode === 'wrong-content-type' ? 'text/plain; charset=utf-8' : 'text/event-stream; charset=utf-8';
}
