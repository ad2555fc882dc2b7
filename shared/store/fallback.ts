// Redis lost, slow or back (DESIGN §7): the service keeps serving. Every
// operation goes to the shared store while it answers; when it fails (refused,
// timed out, not ready) the same operation is answered by a local MemoryStore,
// and so are the following ones until a probe finds the shared store again:
// limits fail open to a per-process limiter, retry records and the AI budget
// to local state. No operation waits longer than the shared store's command
// timeout, and none fails because of it. An episode is logged once when it
// starts (warn) and once when it ends (info); each locally answered operation
// is reported to `onFallback` (the metrics issue counts them).
import type { Logger } from '../config/log.js';
import { MemoryStore } from './memory.js';
import { StoreClosedError, type LogOpening, type LogRecord, type RateCheck, type RateDecision, type RateWaiter, type Store, type StoredEvent } from './types.js';

/** Why an operation was answered locally: the label of chaos_store_fallback_total. */
export type FallbackReason = 'unavailable' | 'timeout' | 'error';

/** A shared store that can say whether it is reachable (RedisStore). */
export interface ProbedStore extends Store {
  /** Resolves when the backend answers a trivial command (bounded by its timeout); rejects otherwise. */
  ping(): Promise<void>;
  /** Resolves true once connected, false when the first attempt failed or `timeoutMs` passed. Never rejects. */
  whenReady(timeoutMs: number): Promise<boolean>;
  /**
   * Held slots decided by this process while the shared store is away, kept
   * where the shared store will learn of them (RedisStore's leases): the
   * count is per process then, and exact again once resync has run.
   */
  acquireSlotLocally?(key: string, limit: number, ttlMs: number): boolean;
  releaseSlotLocally?(key: string): void;
  /** The shared store answers again: it rewrites what this process holds there. */
  resync?(): void;
}

export interface FallbackStoreOptions {
  readonly shared: ProbedStore;
  readonly logger: Logger;
  /** Answers while the shared store cannot (default: a new MemoryStore). */
  readonly local?: Store;
  /** Called for every operation answered locally. */
  readonly onFallback?: (reason: FallbackReason) => void;
  /** How often a lost shared store is probed (default 500 ms). */
  readonly probeIntervalMs?: number;
  /** How long start-up waits for the first connection before it says it runs degraded (default 2000 ms). */
  readonly startTimeoutMs?: number;
}

type State = 'starting' | 'up' | 'down';

const DOWN_MESSAGE = 'Redis unavailable: serving from local memory (limits per process) until it is back';

/** The reason an error from the shared store stands for. */
export function fallbackReason(error: unknown): FallbackReason {
  const message = error instanceof Error ? error.message : String(error);
  if (/timed out|timeout/i.test(message)) return 'timeout';
  if (/writeable|connection is closed|ECONNREFUSED|ECONNRESET|EPIPE|ENOENT|max retries|MaxRetriesPerRequest|not connected|LOADING/i.test(message)) {
    return 'unavailable';
  }
  return 'error';
}

export class FallbackStore implements Store {
  readonly #shared: ProbedStore;
  readonly #local: Store;
  readonly #logger: Logger;
  readonly #onFallback: ((reason: FallbackReason) => void) | undefined;
  readonly #probeIntervalMs: number;
  #state: State = 'starting';
  #reason: FallbackReason = 'unavailable';
  #downSince = 0;
  #probe: NodeJS.Timeout | undefined;
  #probing = false;
  #closed = false;
  /** Settles once start-up knows whether the shared store is reachable (state 'up' or 'down'). */
  readonly started: Promise<void>;

  constructor(options: FallbackStoreOptions) {
    this.#shared = options.shared;
    this.#local = options.local ?? new MemoryStore();
    this.#logger = options.logger;
    this.#onFallback = options.onFallback;
    this.#probeIntervalMs = options.probeIntervalMs ?? 500;
    // Until the first connection the local store answers; an unreachable Redis at start is not fatal.
    this.started = this.#shared.whenReady(options.startTimeoutMs ?? 2000).then((ready) => {
      if (this.#closed || this.#state !== 'starting') return;
      if (ready) {
        this.#state = 'up';
        this.#shared.resync?.();
        this.#logger.info('Redis store connected: state is shared with the other replicas');
      } else {
        this.#goDown('unavailable', undefined, 'Redis unreachable at start: serving from local memory (limits per process) and retrying');
      }
    });
  }

  /** 'up' while the shared store answers, 'down' during an episode, 'starting' before the first connection. */
  get state(): State {
    return this.#state;
  }

  countInWindow(key: string, ttlMs: number): Promise<number> {
    return this.#run('countInWindow', (store) => store.countInWindow(key, ttlMs));
  }

  // A first call recorded on Redis and repeated while it is away starts afresh locally.
  elapsedSinceFirst(key: string, ttlMs: number): Promise<number> {
    return this.#run('elapsedSinceFirst', (store) => store.elapsedSinceFirst(key, ttlMs));
  }

  checkRate(checks: readonly RateCheck[]): Promise<RateDecision> {
    return this.#run('checkRate', (store) => store.checkRate(checks));
  }

  /**
   * checkRate without a promise while the shared store is up and offers it
   * (the hot path on Redis); otherwise, and after a failure, as #run answers.
   */
  checkRateFor(checks: readonly RateCheck[], waiter: RateWaiter): void {
    if (!this.#closed && this.#state === 'up' && this.#shared.checkRateFor) {
      this.#shared.checkRateFor(checks, new SharedRateWaiter(this, checks, waiter));
      return;
    }
    deliver(this.checkRate(checks), waiter);
  }

  /** The shared store's leased decision while it is up (none while it is away: the local store decides then). */
  checkRateLeased(checks: readonly RateCheck[]): RateDecision | undefined {
    return !this.#closed && this.#state === 'up' ? this.#shared.checkRateLeased?.(checks) : undefined;
  }

  /** A shared decision that failed: the episode starts, as in #run, and then #run answers from the local store. */
  sharedRateFailed(checks: readonly RateCheck[], waiter: RateWaiter, error: unknown): void {
    if (!this.#closed) this.#goDown(fallbackReason(error), error, DOWN_MESSAGE);
    deliver(this.checkRate(checks), waiter);
  }

  consumeBudget(key: string, budget: number, ttlMs: number): Promise<boolean> {
    return this.#run('consumeBudget', (store) => store.consumeBudget(key, budget, ttlMs));
  }

  // An exam opened on Redis and read while it is away is unknown locally (a 404 until Redis is back).
  openLog(key: string, head: string, ttlMs: number, owner: string, maxPerOwner: number): Promise<LogOpening> {
    return this.#run('openLog', (store) => store.openLog(key, head, ttlMs, owner, maxPerOwner));
  }

  appendLog(key: string, entry: string, maxEntries: number): Promise<boolean> {
    return this.#run('appendLog', (store) => store.appendLog(key, entry, maxEntries));
  }

  readLog(key: string): Promise<LogRecord | undefined> {
    return this.#run('readLog', (store) => store.readLog(key));
  }

  // Held-response slots fall back to a per-process count. Over RedisStore it
  // is the count its leases carry, so holds taken or given back while Redis is
  // away reach it when it returns (resync), and a release always reaches the
  // count its acquire went to.
  acquireSlot(key: string, limit: number, ttlMs: number): Promise<boolean> {
    const shared = this.#shared;
    if (!shared.acquireSlotLocally) return this.#run('acquireSlot', (store) => store.acquireSlot(key, limit, ttlMs));
    return this.#run(
      'acquireSlot',
      (store) => store.acquireSlot(key, limit, ttlMs),
      () => Promise.resolve(shared.acquireSlotLocally?.(key, limit, ttlMs) ?? false),
    );
  }

  async releaseSlot(key: string): Promise<void> {
    const shared = this.#shared;
    if (!shared.releaseSlotLocally) return this.#run('releaseSlot', (store) => store.releaseSlot(key));
    if (this.#closed) throw new StoreClosedError('releaseSlot');
    if (this.#state === 'up') {
      // The lease is given back before the write: a failed write is only told to Redis later.
      try {
        await shared.releaseSlot(key);
        return;
      } catch (error) {
        if (this.#closed) throw new StoreClosedError('releaseSlot');
        this.#goDown(fallbackReason(error), error, DOWN_MESSAGE);
        this.#onFallback?.(this.#reason);
        return;
      }
    }
    this.#onFallback?.(this.#reason);
    shared.releaseSlotLocally(key);
  }

  // Sessions opened on Redis are unknown to the local store while it is away:
  // their clients get 404 and open new ones, as after an expiry.
  openSession(owner: string, value: string, limit: number, ttlMs: number): Promise<string | undefined> {
    return this.#run('openSession', (store) => store.openSession(owner, value, limit, ttlMs));
  }

  touchSession(id: string, ttlMs: number): Promise<string | undefined> {
    return this.#run('touchSession', (store) => store.touchSession(id, ttlMs));
  }

  closeSession(id: string): Promise<boolean> {
    return this.#run('closeSession', (store) => store.closeSession(id));
  }

  appendEvents(id: string, stream: string, data: readonly string[], max: number): Promise<number> {
    return this.#run('appendEvents', (store) => store.appendEvents(id, stream, data, max));
  }

  eventsAfter(id: string, stream: string, after: number): Promise<readonly StoredEvent[]> {
    return this.#run('eventsAfter', (store) => store.eventsAfter(id, stream, after));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#probe);
    this.#probe = undefined;
    await Promise.all([this.#shared.close(), this.#local.close()]);
  }

  /** The shared store's answer while it is up; otherwise `local`'s (by default the same call on the local store). */
  async #run<T>(operation: string, call: (store: Store) => Promise<T>, local?: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreClosedError(operation);
    if (this.#state === 'up') {
      try {
        return await call(this.#shared);
      } catch (error) {
        if (this.#closed) throw new StoreClosedError(operation);
        this.#goDown(fallbackReason(error), error, DOWN_MESSAGE);
      }
    }
    this.#onFallback?.(this.#reason);
    return local ? local() : call(this.#local);
  }

  #goDown(reason: FallbackReason, error: unknown, message: string): void {
    if (this.#state === 'down') return;
    this.#state = 'down';
    this.#reason = reason;
    this.#downSince = Date.now();
    // The error's message only: it never holds the URL (which may carry a password).
    const cause = error instanceof Error ? error.message : undefined;
    this.#logger.warn({ store: 'redis', reason, ...(cause ? { cause } : {}) }, message);
    this.#probe = setInterval(() => void this.#tryShared(), this.#probeIntervalMs);
    this.#probe.unref();
  }

  async #tryShared(): Promise<void> {
    if (this.#probing || this.#closed) return;
    this.#probing = true;
    try {
      await this.#shared.ping();
    } catch {
      return;
    } finally {
      this.#probing = false;
    }
    if (this.#closed || this.#state !== 'down') return;
    clearInterval(this.#probe);
    this.#probe = undefined;
    this.#state = 'up';
    this.#shared.resync?.();
    this.#logger.info({ store: 'redis', downMs: Date.now() - this.#downSince }, 'Redis is back: state is shared again');
  }
}

/** Hands a decision (or the failure) to its waiter. */
function deliver(decision: Promise<RateDecision>, waiter: RateWaiter): void {
  decision.then(
    (d) => waiter.rateDecided(d),
    (error: unknown) => waiter.rateFailed(error),
  );
}

/** A shared store's rate decision on its way to the caller's waiter; a failure goes through the fallback. */
class SharedRateWaiter implements RateWaiter {
  constructor(
    private readonly fallback: FallbackStore,
    private readonly checks: readonly RateCheck[],
    private readonly waiter: RateWaiter,
  ) {}

  rateDecided(decision: RateDecision): void {
    this.waiter.rateDecided(decision);
  }

  rateFailed(error: unknown): void {
    this.fallback.sharedRateFailed(this.checks, this.waiter, error);
  }
}
