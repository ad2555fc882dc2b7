// The Store contract (DESIGN §7): retry-mismatch records, per-IP rate limits
// (GCRA) and the daily AI budget, behind one interface that the in-memory
// store implements today and a Redis store with the same semantics later.
// Every operation is one call (one round trip for Redis). The semantics any
// implementation must pass are one case list: tests/helpers/store-cases.ts.
import { createHash } from 'node:crypto';
import { freshSeed } from '../primitives/seed.js';

export interface RateCheck {
  /** Policy name for metrics and errors, e.g. 'general' or 'infinite'. */
  readonly policy: string;
  /** Counter key, e.g. `chaos:general:<ip>` (host, policy, client). */
  readonly key: string;
  /**
   * What the checks of one request have in common, e.g. `chaos:<ip>` (host,
   * client). A clustered Redis keeps one group's counters in one slot, so one
   * script decides them together; checks without a group each stand alone
   * and cannot share a call there. Default: the key.
   */
  readonly group?: string;
  /** Requests allowed per period; 0 disables the check. */
  readonly limit: number;
  readonly periodMs: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  /** The policy that refused (undefined when allowed). */
  readonly policy: string | undefined;
  /** Requests left in the tightest policy after this one. */
  readonly remaining: number;
  /** When refused: how long until one more request is allowed. */
  readonly retryAfterMs: number;
  /** How long until the tightest policy is fully replenished. */
  readonly resetMs: number;
}

/**
 * Who waits for a rate decision delivered by checkRateFor: the hot path's
 * form of checkRate on a store that needs a round trip, with no promise per
 * request (each one, kept alive across the round trip, was promoted by the
 * young generation's scavenges and cost the Redis path about a fifth).
 */
export interface RateWaiter {
  /** The decision, exactly as checkRate would resolve. */
  rateDecided(decision: RateDecision): void;
  /** The store could not decide: checkRate would have rejected with `error`. */
  rateFailed(error: unknown): void;
}

/** openLog's answer: opened, or refused because the owner holds its limit of live logs. */
export interface LogOpening {
  readonly opened: boolean;
  /** When refused: until the owner's oldest live log expires (a slot frees). */
  readonly retryAfterMs: number;
}

/** A log as read back (readLog): its head and its entries, in append order. */
export interface LogRecord {
  readonly head: string;
  readonly entries: readonly string[];
}

export interface Store {
  /**
   * Counts calls for `key` within a window of `ttlMs` that starts at the first
   * call and is not extended by later ones. Returns the count including this
   * call: 1 for a fresh cycle.
   */
  countInWindow(key: string, ttlMs: number): Promise<number>;
  /**
   * Milliseconds since the first call for `key`: 0 for the first call, which
   * opens a record kept `ttlMs` from it and not extended by later calls; a
   * call after that opens a new one.
   */
  elapsedSinceFirst(key: string, ttlMs: number): Promise<number>;
  /**
   * GCRA over every check at once: allowed only if all allow, and then each
   * check consumes one unit; a refused request consumes nothing.
   */
  checkRate(checks: readonly RateCheck[]): Promise<RateDecision>;
  /**
   * The same decision at once, for a store that holds its state in-process;
   * absent where an answer needs a round trip (Redis). Saves the hot path a
   * promise per request.
   */
  checkRateNow?(checks: readonly RateCheck[]): RateDecision;
  /**
   * An allowed decision at once when the store holds units reserved for this
   * checks list (RedisStore's leases, for clients far from their limits);
   * undefined means ask (checkRateFor or checkRate). Never refuses.
   */
  checkRateLeased?(checks: readonly RateCheck[]): RateDecision | undefined;
  /**
   * The same decision as checkRate, handed to `waiter` exactly once and never
   * before this call returns. Optional: a caller falls back to checkRate.
   */
  checkRateFor?(checks: readonly RateCheck[], waiter: RateWaiter): void;
  /** Takes one unit of `key`'s budget if fewer than `budget` were taken within `ttlMs`. */
  consumeBudget(key: string, budget: number, ttlMs: number): Promise<boolean>;
  /**
   * Takes one of `limit` concurrent slots of `key` (a client's held
   * responses). A slot is given back by releaseSlot; all of a key's slots lapse
   * `ttlMs` after its last take, so a lost release cannot leak them for ever.
   * False, and nothing taken, when all are in use.
   */
  acquireSlot(key: string, limit: number, ttlMs: number): Promise<boolean>;
  /** Gives back one slot of `key`; nothing when none is held. */
  releaseSlot(key: string): Promise<void>;
  /**
   * Opens a session (MCP's Mcp-Session-Id): `value` kept under a fresh id
   * that expires `ttlMs` after its last use. An owner (a client address) holds
   * at most `limit` live sessions: undefined, and nothing opened, past it.
   */
  openSession(owner: string, value: string, limit: number, ttlMs: number): Promise<string | undefined>;
  /** A live session's value, its expiry pushed `ttlMs` from now; undefined when unknown, expired or closed. */
  touchSession(id: string, ttlMs: number): Promise<string | undefined>;
  /** Ends a session and drops its events; false when it was not live. */
  closeSession(id: string): Promise<boolean>;
  /**
   * Appends events to one of a live session's streams (a stream name is
   * letters, digits, `-` and `_`). Sequence numbers rise by one per event
   * across the session's streams; at most `max` events are kept per session,
   * the oldest dropped. Returns the first event's number, or 0 when the
   * session is not live (nothing appended).
   */
  appendEvents(id: string, stream: string, data: readonly string[], max: number): Promise<number>;
  /** The kept events of one stream of a session numbered above `after`, in order (empty when the session is gone). */
  eventsAfter(id: string, stream: string, after: number): Promise<readonly StoredEvent[]>;
  /**
   * Opens a log at `key` (a head, entries appended later) living `ttlMs`,
   * if `owner` (a client address) holds fewer than `maxPerOwner` live logs;
   * the log counts against its owner until it expires. Client exams
   * (docs/exam.md). At most two round trips (the owner's count and the log
   * live in different cluster slots).
   */
  openLog(key: string, head: string, ttlMs: number, owner: string, maxPerOwner: number): Promise<LogOpening>;
  /**
   * Appends `entry` to the live log at `key` if it holds fewer than
   * `maxEntries`; false (nothing written) when it is full, expired or was
   * never opened, so a made-up key stores nothing.
   */
  appendLog(key: string, entry: string, maxEntries: number): Promise<boolean>;
  /** The live log at `key`, or undefined. */
  readLog(key: string): Promise<LogRecord | undefined>;
  /**
   * Releases the store (timers, connections, memory). Idempotent. Afterwards
   * every operation fails with StoreClosedError: a late caller learns the store
   * is gone instead of reading state that no longer exists.
   */
  close(): Promise<void>;
}

/** An operation on a store after its close(). */
export class StoreClosedError extends Error {
  readonly code = 'ERR_CHAOS_STORE_CLOSED';
  constructor(readonly operation: string) {
    super(`store is closed: ${operation} after close()`);
    this.name = 'StoreClosedError';
  }
}

/**
 * The store key of a record named by a client-chosen id: a fixed-size digest,
 * so a key's memory (in-process or in Redis) never depends on the id's length
 * and no id can collide with another kind's keys.
 */
export function idKey(kind: string, id: string): string {
  return `${kind}:${createHash('sha256').update(id).digest('base64url')}`;
}

/** One event of a session's stream, as kept for resumption. */
export interface StoredEvent {
  readonly seq: number;
  readonly data: string;
}

/**
 * A session id: the owner's tag, a dot, 128 random bits in hex. The tag (a
 * digest of the owner) lets a store find the owner's records from the id
 * alone, and on a Redis Cluster keeps them in one slot. Visible ASCII only,
 * as MCP requires of a session id.
 */
export function newSessionId(owner: string): string {
  return `${ownerTag(owner)}.${freshSeed()}${freshSeed()}`;
}

export function ownerTag(owner: string): string {
  return createHash('sha256').update(owner).digest('base64url').slice(0, 11);
}

const SESSION_ID_RE = /^[A-Za-z0-9_-]{11}\.[0-9a-f]{32}$/;

/** The owner tag of a well-formed session id; undefined for anything else (never a store key from client text). */
export function sessionTag(id: string): string | undefined {
  return SESSION_ID_RE.test(id) ? id.slice(0, 11) : undefined;
}

/** A stream name as stored: letters, digits, `-`, `_`, at most 64. */
export const STREAM_NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;
