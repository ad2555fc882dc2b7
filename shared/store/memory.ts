// The embedded default store (DESIGN §7): bounded, TTL-evicted, one process.
// It holds no timer: expired entries are swept as new ones are written, so
// close() only drops the state and refuses later calls.
import { MemoryLogs } from './logs-memory.js';
import { MemorySessions } from './memory-sessions.js';
import { StoreClosedError, type LogOpening, type LogRecord, type RateCheck, type RateDecision, type Store, type StoredEvent } from './types.js';

interface Entry {
  value: number;
  expiresAt: number;
}

export interface MemoryStoreOptions {
  /** Most keys kept per kind of record (windows, rate counters); the oldest go first (default 200,000). */
  readonly maxEntries?: number;
  /** Clock, for tests. */
  readonly now?: () => number;
  /** Most sessions kept (MCP); the oldest go first (default 2,000: each may keep 256 KiB of events). */
  readonly maxSessions?: number;
}

/** Most expired entries dropped per write: sweeping stays O(1) amortised. */
const SWEEP_PER_WRITE = 8;

interface Slot extends Entry {
  /** Write number of the latest write; older queue items for the key are stale. */
  seq: number;
}

/**
 * Keys with expiry, evicted in write order. One kind of record per table, so
 * write order is close to expiry order: expired entries are swept from the
 * front, and past the cap the oldest write goes first. The write order is a
 * queue of its own (a Map's front is slow to pop: deleted slots are skipped
 * one by one until the table is rebuilt).
 */
class ExpiringTable {
  readonly #slots = new Map<string, Slot>();
  #keys: string[] = [];
  #seqs: number[] = [];
  #head = 0;
  #seq = 0;
  constructor(readonly maxEntries: number) {}

  get size(): number {
    return this.#slots.size;
  }

  get(key: string, now: number): Entry | undefined {
    const slot = this.#slots.get(key);
    if (slot && slot.expiresAt <= now) {
      this.#slots.delete(key);
      return undefined;
    }
    return slot;
  }

  /**
   * Updates a live key in place (no new slot, no queue item: a counter written
   * on every request stays cheap), else writes it as new. In-place updates keep
   * the key's place in the eviction order: its first write.
   */
  set(key: string, value: number, expiresAt: number, now: number): void {
    const slot = this.#slots.get(key);
    if (slot && slot.expiresAt > now) {
      slot.value = value;
      slot.expiresAt = expiresAt;
      return;
    }
    this.put(key, { value, expiresAt }, now);
  }

  put(key: string, entry: Entry, now: number): void {
    const seq = ++this.#seq;
    this.#slots.set(key, { value: entry.value, expiresAt: entry.expiresAt, seq });
    this.#keys.push(key);
    this.#seqs.push(seq);
    for (let swept = 0; swept < SWEEP_PER_WRITE; swept++) {
      const front = this.#front();
      if (!front || front.slot.expiresAt > now) break;
      this.#pop(front.key);
    }
    while (this.#slots.size > this.maxEntries) {
      const front = this.#front();
      if (!front) break;
      this.#pop(front.key);
    }
    this.#compact();
  }

  /** The oldest live write, skipping queue items a later write made stale. */
  #front(): { key: string; slot: Slot } | undefined {
    while (this.#head < this.#keys.length) {
      const key = this.#keys[this.#head] as string;
      const slot = this.#slots.get(key);
      if (slot && slot.seq === this.#seqs[this.#head]) return { key, slot };
      this.#head++;
    }
    return undefined;
  }

  #pop(key: string): void {
    this.#slots.delete(key);
    this.#head++;
  }

  /** Keeps the queue within a small multiple of the live keys. */
  #compact(): void {
    const queued = this.#keys.length - this.#head;
    if (this.#head > 4096 && this.#head > queued) {
      this.#keys = this.#keys.slice(this.#head);
      this.#seqs = this.#seqs.slice(this.#head);
      this.#head = 0;
    }
    if (queued > 4 * this.#slots.size + 4096) {
      // Mostly stale items (keys rewritten often): rebuild from the live slots.
      const live = [...this.#slots].sort((a, b) => a[1].seq - b[1].seq);
      this.#keys = live.map(([k]) => k);
      this.#seqs = live.map(([, v]) => v.seq);
      this.#head = 0;
    }
  }

  clear(): void {
    this.#slots.clear();
    this.#keys = [];
    this.#seqs = [];
    this.#head = 0;
  }
}

/**
 * Bounded, TTL-evicted, single-process store. Each kind of record has its own
 * table, so a flood of one (retry ids, client addresses) never evicts another
 * (the day's AI budget).
 */
export class MemoryStore implements Store {
  readonly #windows: ExpiringTable;
  /** First-call times (elapsedSinceFirst). */
  readonly #firsts: ExpiringTable;
  readonly #rates: ExpiringTable;
  /** A few keys a day: small, never crowded out by the others. */
  readonly #budgets = new ExpiringTable(1000);
  /** Concurrent slots per client (held responses). */
  readonly #slotTable: ExpiringTable;
  /** Client exams' logs: few and large, bounded on their own. */
  readonly #logs = new MemoryLogs(10_000);
  readonly #now: () => number;
  readonly #sessions: MemorySessions;
  #closed = false;

  constructor(options: MemoryStoreOptions = {}) {
    const max = options.maxEntries ?? 200_000;
    this.#windows = new ExpiringTable(max);
    this.#firsts = new ExpiringTable(max);
    this.#rates = new ExpiringTable(max);
    this.#slotTable = new ExpiringTable(max);
    this.#now = options.now ?? Date.now;
    this.#sessions = new MemorySessions(options.maxSessions ?? 2000, this.#now);
  }

  /** Keys held, all kinds together (for tests and metrics). */
  get size(): number {
    return this.#windows.size + this.#firsts.size + this.#rates.size + this.#budgets.size + this.#slotTable.size + this.#sessions.size;
  }

  async countInWindow(key: string, ttlMs: number): Promise<number> {
    if (this.#closed) throw new StoreClosedError('countInWindow');
    const now = this.#now();
    const entry = this.#windows.get(key, now);
    if (!entry) {
      this.#windows.put(key, { value: 1, expiresAt: now + ttlMs }, now);
      return 1;
    }
    entry.value++;
    return entry.value;
  }

  async elapsedSinceFirst(key: string, ttlMs: number): Promise<number> {
    if (this.#closed) throw new StoreClosedError('elapsedSinceFirst');
    const now = this.#now();
    const entry = this.#firsts.get(key, now);
    if (!entry) {
      this.#firsts.put(key, { value: now, expiresAt: now + ttlMs }, now);
      return 0;
    }
    return Math.max(0, now - entry.value);
  }

  async checkRate(checks: readonly RateCheck[]): Promise<RateDecision> {
    return this.checkRateNow(checks);
  }

  checkRateNow(checks: readonly RateCheck[]): RateDecision {
    if (this.#closed) throw new StoreClosedError('checkRate');
    const now = this.#now();
    // GCRA: each request advances the theoretical arrival time (TAT) by one
    // emission interval; a burst of `limit` fits within one period. All checks
    // are decided before any is spent (a refused request consumes nothing), in
    // two passes rather than a list of plans: this runs on every request.
    for (const check of checks) {
      if (check.limit <= 0) continue;
      const interval = check.periodMs / check.limit;
      const tat = Math.max(this.#rates.get(check.key, now)?.value ?? now, now);
      const allowAt = tat + interval - check.periodMs;
      if (allowAt > now) {
        return {
          allowed: false,
          policy: check.policy,
          remaining: 0,
          retryAfterMs: Math.ceil(allowAt - now),
          resetMs: Math.ceil(tat - now),
        };
      }
    }
    let remaining = Number.POSITIVE_INFINITY;
    let resetMs = 0;
    for (const check of checks) {
      if (check.limit <= 0) continue;
      const interval = check.periodMs / check.limit;
      const newTat = Math.max(this.#rates.get(check.key, now)?.value ?? now, now) + interval;
      // The entry outlives its TAT by a period: a client under a large limit
      // (TAT a few µs ahead) keeps one entry updated in place rather than one
      // that expires, is deleted and written anew every millisecond.
      this.#rates.set(check.key, newTat, newTat + check.periodMs, now);
      remaining = Math.min(remaining, Math.floor((now + check.periodMs - newTat) / interval));
      resetMs = Math.max(resetMs, Math.ceil(newTat - now));
    }
    return { allowed: true, policy: undefined, remaining: Number.isFinite(remaining) ? remaining : 0, retryAfterMs: 0, resetMs };
  }

  async consumeBudget(key: string, budget: number, ttlMs: number): Promise<boolean> {
    if (this.#closed) throw new StoreClosedError('consumeBudget');
    const now = this.#now();
    const entry = this.#budgets.get(key, now);
    if (!entry) {
      if (budget <= 0) return false;
      this.#budgets.put(key, { value: 1, expiresAt: now + ttlMs }, now);
      return true;
    }
    if (entry.value >= budget) return false;
    entry.value++;
    return true;
  }

  async acquireSlot(key: string, limit: number, ttlMs: number): Promise<boolean> {
    if (this.#closed) throw new StoreClosedError('acquireSlot');
    const now = this.#now();
    const held = this.#slotTable.get(key, now)?.value ?? 0;
    if (held >= limit) return false;
    this.#slotTable.set(key, held + 1, now + ttlMs, now);
    return true;
  }

  async releaseSlot(key: string): Promise<void> {
    if (this.#closed) throw new StoreClosedError('releaseSlot');
    const now = this.#now();
    const entry = this.#slotTable.get(key, now);
    if (entry && entry.value > 0) this.#slotTable.set(key, entry.value - 1, entry.expiresAt, now);
  }

  async openSession(owner: string, value: string, limit: number, ttlMs: number): Promise<string | undefined> {
    if (this.#closed) throw new StoreClosedError('openSession');
    return this.#sessions.open(owner, value, limit, ttlMs);
  }

  async touchSession(id: string, ttlMs: number): Promise<string | undefined> {
    if (this.#closed) throw new StoreClosedError('touchSession');
    return this.#sessions.touch(id, ttlMs);
  }

  async closeSession(id: string): Promise<boolean> {
    if (this.#closed) throw new StoreClosedError('closeSession');
    return this.#sessions.close(id);
  }

  async appendEvents(id: string, stream: string, data: readonly string[], max: number): Promise<number> {
    if (this.#closed) throw new StoreClosedError('appendEvents');
    return this.#sessions.append(id, stream, data, max);
  }

  async eventsAfter(id: string, stream: string, after: number): Promise<readonly StoredEvent[]> {
    if (this.#closed) throw new StoreClosedError('eventsAfter');
    return this.#sessions.after(id, stream, after);
  }

  async openLog(key: string, head: string, ttlMs: number, owner: string, maxPerOwner: number): Promise<LogOpening> {
    if (this.#closed) throw new StoreClosedError('openLog');
    return this.#logs.open(key, head, ttlMs, owner, maxPerOwner, this.#now());
  }

  async appendLog(key: string, entry: string, maxEntries: number): Promise<boolean> {
    if (this.#closed) throw new StoreClosedError('appendLog');
    return this.#logs.append(key, entry, maxEntries, this.#now());
  }

  async readLog(key: string): Promise<LogRecord | undefined> {
    if (this.#closed) throw new StoreClosedError('readLog');
    return this.#logs.read(key, this.#now());
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#sessions.clear();
    this.#logs.clear();
    this.#slotTable.clear();
    this.#windows.clear();
    this.#firsts.clear();
    this.#rates.clear();
    this.#budgets.clear();
  }
}
