// Sessions and their resumption events in one process (MemoryStore's part of
// the Store contract): bounded in count, per owner, in events and in bytes
// per session; expired sessions are swept as new ones open, so no timer runs.
import { newSessionId, ownerTag, sessionTag, STREAM_NAME_RE, type StoredEvent } from './types.js';

interface Session {
  readonly value: string;
  readonly tag: string;
  expiresAt: number;
  seq: number;
  events: { readonly seq: number; readonly stream: string; readonly data: string }[];
  bytes: number;
}

/** Event bytes kept per session: past it the oldest go, whatever `max` allows. */
export const MAX_SESSION_EVENT_BYTES = 256 * 1024;
/** Expired sessions dropped per open: sweeping stays O(1) amortised. */
const SWEEP_PER_OPEN = 8;

export class MemorySessions {
  /** In opening order: the front is the oldest, evicted first past the cap. */
  readonly #sessions = new Map<string, Session>();
  readonly #owners = new Map<string, Set<string>>();

  constructor(
    readonly maxSessions: number,
    private readonly now: () => number,
  ) {}

  get size(): number {
    return this.#sessions.size;
  }

  open(owner: string, value: string, limit: number, ttlMs: number): string | undefined {
    const now = this.now();
    const tag = ownerTag(owner);
    const mine = this.#owners.get(tag);
    if (mine) for (const id of mine) this.#live(id, now);
    if ((this.#owners.get(tag)?.size ?? 0) >= limit) return undefined;
    let swept = 0;
    for (const [id, session] of this.#sessions) {
      if (swept++ >= SWEEP_PER_OPEN) break;
      if (session.expiresAt <= now) this.#drop(id);
    }
    while (this.#sessions.size >= this.maxSessions) {
      const oldest = this.#sessions.keys().next();
      if (oldest.done === true) break;
      this.#drop(oldest.value);
    }
    const id = newSessionId(owner);
    this.#sessions.set(id, { value, tag, expiresAt: now + ttlMs, seq: 0, events: [], bytes: 0 });
    let set = this.#owners.get(tag);
    if (!set) this.#owners.set(tag, (set = new Set()));
    set.add(id);
    return id;
  }

  touch(id: string, ttlMs: number): string | undefined {
    const now = this.now();
    const session = this.#live(id, now);
    if (!session) return undefined;
    session.expiresAt = now + ttlMs;
    return session.value;
  }

  close(id: string): boolean {
    const live = this.#live(id, this.now()) !== undefined;
    if (live) this.#drop(id);
    return live;
  }

  append(id: string, stream: string, data: readonly string[], max: number): number {
    if (!STREAM_NAME_RE.test(stream)) throw new RangeError(`bad stream name: ${stream}`);
    const session = this.#live(id, this.now());
    if (!session) return 0;
    const first = session.seq + 1;
    for (const text of data) {
      session.events.push({ seq: ++session.seq, stream, data: text });
      session.bytes += text.length;
    }
    let drop = 0;
    while (session.events.length - drop > max || (session.bytes > MAX_SESSION_EVENT_BYTES && drop < session.events.length)) {
      session.bytes -= (session.events[drop] as { data: string }).data.length;
      drop++;
    }
    if (drop > 0) session.events = session.events.slice(drop);
    return first;
  }

  after(id: string, stream: string, after: number): readonly StoredEvent[] {
    const session = this.#live(id, this.now());
    if (!session) return [];
    return session.events.filter((e) => e.stream === stream && e.seq > after).map(({ seq, data }) => ({ seq, data }));
  }

  clear(): void {
    this.#sessions.clear();
    this.#owners.clear();
  }

  #live(id: string, now: number): Session | undefined {
    if (sessionTag(id) === undefined) return undefined;
    const session = this.#sessions.get(id);
    if (session && session.expiresAt <= now) {
      this.#drop(id);
      return undefined;
    }
    return session;
  }

  #drop(id: string): void {
    const session = this.#sessions.get(id);
    if (!session) return;
    this.#sessions.delete(id);
    const set = this.#owners.get(session.tag);
    set?.delete(id);
    if (set?.size === 0) this.#owners.delete(session.tag);
  }
}
