// The in-memory side of the Store's logs (client exams, docs/exam.md): a log
// per key with its head, entries and expiry, and per owner the expiry times
// of its live logs. Bounded in count; expired logs are swept as new ones open.
import type { LogOpening, LogRecord } from './types.js';

interface Log {
  readonly head: string;
  readonly entries: string[];
  readonly expiresAt: number;
}

export class MemoryLogs {
  readonly #logs = new Map<string, Log>();
  /** Owner → expiry times of its live logs. */
  readonly #owners = new Map<string, number[]>();

  constructor(private readonly maxLogs: number) {}

  open(key: string, head: string, ttlMs: number, owner: string, maxPerOwner: number, now: number): LogOpening {
    const live = (this.#owners.get(owner) ?? []).filter((expiresAt) => expiresAt > now);
    if (live.length >= maxPerOwner) {
      this.#owners.set(owner, live);
      return { opened: false, retryAfterMs: Math.max(1, Math.min(...live) - now) };
    }
    live.push(now + ttlMs);
    this.#owners.set(owner, live);
    this.#sweep(now);
    this.#logs.set(key, { head, entries: [], expiresAt: now + ttlMs });
    return { opened: true, retryAfterMs: 0 };
  }

  append(key: string, entry: string, maxEntries: number, now: number): boolean {
    const log = this.#live(key, now);
    if (log === undefined || log.entries.length >= maxEntries) return false;
    log.entries.push(entry);
    return true;
  }

  read(key: string, now: number): LogRecord | undefined {
    const log = this.#live(key, now);
    return log === undefined ? undefined : { head: log.head, entries: [...log.entries] };
  }

  clear(): void {
    this.#logs.clear();
    this.#owners.clear();
  }

  #live(key: string, now: number): Log | undefined {
    const log = this.#logs.get(key);
    if (log !== undefined && log.expiresAt <= now) {
      this.#logs.delete(key);
      return undefined;
    }
    return log;
  }

  /** Drops expired logs and owners with none live; past the cap, the oldest logs go first (Map order is opening order). */
  #sweep(now: number): void {
    for (const [key, log] of this.#logs) if (log.expiresAt <= now) this.#logs.delete(key);
    for (const [owner, times] of this.#owners) if (times.every((t) => t <= now)) this.#owners.delete(owner);
    for (const key of this.#logs.keys()) {
      if (this.#logs.size < this.maxLogs) break;
      this.#logs.delete(key);
    }
  }
}
