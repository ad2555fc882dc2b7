// The shared store (DESIGN §7): the Store contract on Redis through ioredis,
// so every replica of every host sees one set of retry records, per-IP
// counters and AI budget. Each operation is one round trip: a Lua script
// registered with defineCommand (EVALSHA), atomic on the server. The rate
// script reads the clock with Redis TIME, so replicas whose clocks disagree
// still decide as one. The client fails fast (no offline queue, a short
// command timeout, no resend after a reconnect): FallbackStore
// (fallback.ts) answers from local memory while Redis cannot.
import { Cluster, type Redis } from 'ioredis';
import { freshSeed } from '../primitives/seed.js';
import { connect, type RedisStoreOptions } from './redis-connect.js';
import { boundedPart, BUDGET_LUA, FIRST_LUA, LOG_ADMIT_LUA, LOG_APPEND_LUA, LOG_READ_LUA, RATE_LUA, WINDOW_LUA, type ScriptCommands } from './redis-scripts.js';
import { RedisSessions } from './redis-sessions.js';
import { RateLeases, releaseWaiters, settleRates, type RateBatch } from './rate-batches.js';
import { leaseMs, SLOT_ACQUIRE_LUA, SLOT_SET_LUA, SlotLedger, type SlotLease } from './slot-leases.js';
import { StoreClosedError, type LogOpening, type LogRecord, type RateCheck, type RateDecision, type RateWaiter, type Store, type StoredEvent } from './types.js';

export type { RedisNode, RedisStoreOptions } from './redis-connect.js';

/** Most requests decided by one script call (its reply carries two numbers per request). */
const MAX_RATE_BATCH = 256;

const ALLOWED_NONE: RateDecision = Object.freeze({ allowed: true, policy: undefined, remaining: 0, retryAfterMs: 0, resetMs: 0 });

export class RedisStore implements Store {
  /** The ioredis client, one Redis (direct or through sentinels) or a cluster (the probe reads its status). */
  readonly client: Redis | Cluster;
  readonly prefix: string;
  /** This process's field in each client's held-slot hash (slot-leases.ts). */
  readonly replicaId = freshSeed();
  readonly #scripts: ScriptCommands;
  readonly #sessions: RedisSessions;
  /** The held slots this process holds, whichever store decided them: what its writes tell Redis. */
  readonly #slots = new SlotLedger();
  #closed = false;
  /** Rate checks waiting for this turn's script calls, one batch per checks list (see checkRate). */
  #rateBatches = new Map<readonly RateCheck[], RateBatch>();
  #rateQueue: RateBatch[] = [];
  #rateFlushScheduled = false;
  /** Rate script calls sent and not answered yet: while there are any, new checks wait for them (see checkRateFor). */
  #ratesInFlight = 0;
  /** Units of clients far from their limits, reserved by their last call and used without one (rate-batches.ts). */
  readonly #leases = new RateLeases();

  constructor(options: RedisStoreOptions) {
    this.prefix = options.prefix ?? 'chaos:';
    this.client = connect(options);
    // Errors are reported by the operations that meet them; an 'error' event with no listener
    // would be printed by ioredis on every reconnect attempt.
    this.client.on('error', () => undefined);
    this.client.defineCommand('chaosWindow', { numberOfKeys: 1, lua: WINDOW_LUA });
    this.client.defineCommand('chaosFirst', { numberOfKeys: 1, lua: FIRST_LUA });
    this.client.defineCommand('chaosRate', { lua: RATE_LUA });
    this.client.defineCommand('chaosBudget', { numberOfKeys: 1, lua: BUDGET_LUA });
    this.client.defineCommand('chaosSlotAcquire', { numberOfKeys: 1, lua: SLOT_ACQUIRE_LUA });
    this.client.defineCommand('chaosSlotSet', { numberOfKeys: 1, lua: SLOT_SET_LUA });
    this.client.defineCommand('chaosLogAdmit', { numberOfKeys: 1, lua: LOG_ADMIT_LUA });
    this.client.defineCommand('chaosLogAppend', { numberOfKeys: 2, lua: LOG_APPEND_LUA });
    this.client.defineCommand('chaosLogRead', { numberOfKeys: 2, lua: LOG_READ_LUA });
    this.#scripts = this.client as unknown as ScriptCommands;
    this.#sessions = new RedisSessions(this.client, this.prefix);
    // A connection made again may reach a Redis that restarted empty or a
    // promoted replica that missed the last writes: tell it what this process holds.
    let connectedBefore = false;
    this.client.on('ready', () => {
      if (connectedBefore) this.resync();
      connectedBefore = true;
    });
  }

  /** True while commands can be sent (connected and past the ready check). */
  get ready(): boolean {
    return this.client.status === 'ready';
  }

  /**
   * Resolves true once the client is ready, false when the connection attempt
   * failed first or `timeoutMs` passed. Never rejects.
   */
  whenReady(timeoutMs: number): Promise<boolean> {
    const client = this.client;
    if (client instanceof Cluster) {
      // Ready once every master answers: a cluster is ready when one node has given the slot map,
      // and a command meeting another node's connection still being opened would fail.
      const deadline = Date.now() + timeoutMs;
      return this.#whenClientReady(timeoutMs).then(async (ready) => {
        if (!ready) return false;
        const masters = client.nodes('master').map((node) => node.ping());
        const timeout = new Promise<'timeout'>((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now()), 'timeout').unref());
        return (await Promise.race([Promise.all(masters).then(() => 'ok' as const, () => 'failed' as const), timeout])) === 'ok';
      });
    }
    return this.#whenClientReady(timeoutMs);
  }

  #whenClientReady(timeoutMs: number): Promise<boolean> {
    if (this.ready) return Promise.resolve(true);
    if (this.#closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        this.client.off('error', onFail);
        this.client.off('close', onFail);
        resolve(ok);
      };
      const onReady = (): void => done(true);
      const onFail = (): void => done(false);
      const timer = setTimeout(onFail, timeoutMs);
      timer.unref();
      this.client.once('ready', onReady);
      // A cluster reports each node's trouble while it reads the slot map and may still get ready.
      if (!(this.client instanceof Cluster)) {
        this.client.once('error', onFail);
        this.client.once('close', onFail);
      }
    });
  }

  /** One PING: resolves when Redis answers within the command timeout. */
  async ping(): Promise<void> {
    if (this.#closed) throw new StoreClosedError('ping');
    await this.client.ping();
  }

  /**
   * The Redis key of a caller's key of one kind (the in-memory store keeps one
   * table per kind): `<prefix><kind>:{<key>}`. The braces are a hash tag: on a
   * Redis Cluster only they choose the slot, so keys decided together in one
   * script (a request's rate checks) name the same `group` and are stored as
   * `<prefix><kind>:{<group>}:<key>`.
   */
  keyOf(kind: 'window' | 'first' | 'rate' | 'budget' | 'slot' | 'log' | 'owner', key: string, group?: string): string {
    const part = boundedPart(key);
    if (group === undefined || group === key) return `${this.prefix}${kind}:{${part}}`;
    return `${this.prefix}${kind}:{${boundedPart(group)}}:${part}`;
  }

  async countInWindow(key: string, ttlMs: number): Promise<number> {
    if (this.#closed) throw new StoreClosedError('countInWindow');
    return Number(await this.#scripts.chaosWindow(this.keyOf('window', key), Math.max(1, Math.ceil(ttlMs))));
  }

  async elapsedSinceFirst(key: string, ttlMs: number): Promise<number> {
    if (this.#closed) throw new StoreClosedError('elapsedSinceFirst');
    return Number(await this.#scripts.chaosFirst(this.keyOf('first', key), Math.max(1, Math.ceil(ttlMs))));
  }

  /**
   * Requests with the very same checks (a client's cached list) that ask in
   * the same event-loop turn share one script call: a burst from one client
   * costs one round trip, decided exactly as one call each (see RATE_LUA).
   */
  checkRate(checks: readonly RateCheck[]): Promise<RateDecision> {
    return new Promise((resolve, reject) => this.checkRateFor(checks, { rateDecided: resolve, rateFailed: reject }));
  }

  /** An allowed decision from the client's lease, at once; undefined when it has none (checkRateFor asks Redis). */
  checkRateLeased(checks: readonly RateCheck[]): RateDecision | undefined {
    return this.#closed ? undefined : this.#leases.take(checks, performance.now());
  }

  /** checkRate's batch, with the decision handed to `waiter` (no promise per request). */
  checkRateFor(checks: readonly RateCheck[], waiter: RateWaiter): void {
    if (this.#closed) {
      queueMicrotask(() => waiter.rateFailed(new StoreClosedError('checkRate')));
      return;
    }
    const live = checks.length === 1 && (checks[0] as RateCheck).limit > 0 ? checks : checks.filter((c) => c.limit > 0);
    if (live.length === 0) {
      queueMicrotask(() => waiter.rateDecided(ALLOWED_NONE));
      return;
    }
    let batch = this.#rateBatches.get(checks);
    if (batch === undefined || batch.waiters.length >= MAX_RATE_BATCH) {
      batch = { checks, live, waiters: [] };
      this.#rateBatches.set(checks, batch);
      this.#rateQueue.push(batch);
    }
    batch.waiters.push(waiter);
    // One flush at a time: what arrives while the last one's calls are out is
    // sent when they are answered, as one batch per client. Under load a call
    // then carries every request of a round trip (the benchmark's batches
    // went from about 22 requests to about 30) instead of one turn's; idle,
    // nothing is out and the call leaves at the end of this turn, as before.
    if (this.#ratesInFlight === 0) this.#scheduleRateFlush();
  }

  #scheduleRateFlush(): void {
    if (this.#rateFlushScheduled) return;
    this.#rateFlushScheduled = true;
    // After the poll phase: every request read in this turn joins its batch first.
    setImmediate(() => this.#flushRates());
  }

  /** A rate call was answered (or failed): the checks that waited for it go out. */
  #rateSettled(): void {
    this.#ratesInFlight--;
    if (this.#ratesInFlight === 0 && this.#rateQueue.length > 0) this.#scheduleRateFlush();
  }

  /**
   * A rate call failed: the checks queued behind it fail with it, at once,
   * rather than each waiting out a command timeout of its own (the fallback
   * answers them locally).
   */
  #failQueuedRates(error: unknown): void {
    const batches = this.#rateQueue;
    this.#rateQueue = [];
    this.#rateBatches.clear();
    for (const batch of batches) {
      for (const waiter of batch.waiters) waiter.rateFailed(error);
      releaseWaiters(batch);
    }
  }

  #flushRates(): void {
    const batches = this.#rateQueue;
    this.#rateQueue = [];
    this.#rateBatches.clear();
    this.#rateFlushScheduled = false;
    for (const batch of batches) {
      if (this.#closed) {
        for (const waiter of batch.waiters) waiter.rateFailed(new StoreClosedError('checkRate'));
        continue;
      }
      // Units leased by the call these waited behind go to them first: only the rest need this call.
      this.#leases.serve(batch.checks, batch.waiters, performance.now());
      if (batch.waiters.length === 0) continue;
      const args: (string | number)[] = [];
      for (const check of batch.live) args.push(this.keyOf('rate', check.key, check.group));
      // The client's requests, then the units leased ahead when it is far from its limits (allowed after them).
      const requests = batch.waiters.length;
      args.push(requests + this.#leases.ahead(batch.checks));
      for (const check of batch.live) args.push(check.limit, check.periodMs);
      this.#ratesInFlight++;
      this.#scripts.chaosRate(batch.live.length, ...args).then(
        (reply) => {
          const { granted, unitsLeft } = settleRates(batch, reply as unknown[]);
          this.#leases.settled(batch.checks, requests, granted, unitsLeft, performance.now());
          releaseWaiters(batch);
          this.#rateSettled();
        },
        (error: unknown) => {
          for (const waiter of batch.waiters) waiter.rateFailed(error);
          releaseWaiters(batch);
          this.#failQueuedRates(error);
          this.#rateSettled();
        },
      );
    }
  }

  async consumeBudget(key: string, budget: number, ttlMs: number): Promise<boolean> {
    if (this.#closed) throw new StoreClosedError('consumeBudget');
    return Number(await this.#scripts.chaosBudget(this.keyOf('budget', key), budget, Math.max(1, Math.ceil(ttlMs)))) === 1;
  }

  /** The owner's count, then the head (two keys, two slots on a cluster: two round trips). */
  async openLog(key: string, head: string, ttlMs: number, owner: string, maxPerOwner: number): Promise<LogOpening> {
    if (this.#closed) throw new StoreClosedError('openLog');
    const ttl = Math.max(1, Math.ceil(ttlMs));
    const reply = (await this.#scripts.chaosLogAdmit(this.keyOf('owner', owner), boundedPart(key), maxPerOwner, ttl)) as unknown[];
    if (Number(reply[0]) !== 1) return { opened: false, retryAfterMs: Number(reply[1]) };
    await this.client.set(this.keyOf('log', key), head, 'PX', ttl);
    return { opened: true, retryAfterMs: 0 };
  }

  async appendLog(key: string, entry: string, maxEntries: number): Promise<boolean> {
    if (this.#closed) throw new StoreClosedError('appendLog');
    const head = this.keyOf('log', key);
    return Number(await this.#scripts.chaosLogAppend(head, `${head}:entries`, entry, maxEntries)) === 1;
  }

  async readLog(key: string): Promise<LogRecord | undefined> {
    if (this.#closed) throw new StoreClosedError('readLog');
    const head = this.keyOf('log', key);
    const reply = (await this.#scripts.chaosLogRead(head, `${head}:entries`)) as string[] | null;
    if (reply === null || reply.length === 0) return undefined;
    return { head: reply[0] as string, entries: reply.slice(1) };
  }

  /**
   * One round trip, as before leases: the script is told how many of the
   * client's slots this process holds (this acquire not counted) and writes
   * that number, plus one when it grants. The lease is extended first, so
   * that no write sent meanwhile shortens it; a refusal puts it back.
   */
  async acquireSlot(key: string, limit: number, ttlMs: number): Promise<boolean> {
    if (this.#closed) throw new StoreClosedError('acquireSlot');
    if (limit <= 0) return false;
    const now = Date.now();
    const lease = this.#slots.lease(key, now);
    const heldBefore = lease.count;
    const expiredBefore = lease.expiresAt;
    lease.count++;
    lease.expiresAt = Math.max(expiredBefore, now + ttlMs);
    const write = ++lease.writes;
    let reply: unknown;
    try {
      reply = await this.#scripts.chaosSlotAcquire(this.keyOf('slot', key), this.replicaId, heldBefore, limit, leaseMs(lease.expiresAt, now), leaseMs(expiredBefore, now));
    } catch (error) {
      lease.count--;
      lease.dirty = true;
      throw error;
    }
    if (Number(reply) === 1) return true;
    lease.count--;
    if (lease.writes === write) {
      lease.expiresAt = expiredBefore;
      this.#slots.settle(key, lease);
    } else {
      // A write sent after this one counted it as held: tell Redis the truth.
      this.#writeLease(key, lease);
    }
    return false;
  }

  async releaseSlot(key: string): Promise<void> {
    if (this.#closed) throw new StoreClosedError('releaseSlot');
    const lease = this.#slots.held(key, Date.now());
    if (lease === undefined) return;
    lease.count--;
    await this.#writeLease(key, lease);
  }

  /**
   * The fallback's acquire while Redis is away: this process's own count
   * against the cap (limits per process), written to Redis by resync.
   */
  acquireSlotLocally(key: string, limit: number, ttlMs: number): boolean {
    if (this.#closed) throw new StoreClosedError('acquireSlot');
    const now = Date.now();
    const lease = this.#slots.lease(key, now);
    if (lease.count >= limit) return false;
    lease.count++;
    lease.expiresAt = Math.max(lease.expiresAt, now + ttlMs);
    lease.dirty = true;
    return true;
  }

  /** The fallback's release while Redis is away: written by resync. */
  releaseSlotLocally(key: string): void {
    if (this.#closed) throw new StoreClosedError('releaseSlot');
    const lease = this.#slots.held(key, Date.now());
    if (lease === undefined) return;
    lease.count--;
    lease.dirty = true;
  }

  /**
   * Rewrites every held-slot field this process owns: after Redis was away
   * (releases lost, writes that ran late, a restart that emptied it, a
   * failover to a replica that missed writes) the counts are the truth again.
   * One write per client this process holds for; errors leave them dirty for
   * the next resync.
   */
  resync(): void {
    if (this.#closed || !this.ready) return;
    for (const [key, lease] of this.#slots.toResync(Date.now())) this.#writeLease(key, lease).catch(() => undefined);
  }

  /** Writes this process's count for `key` as it stands now; the lease is clean once the last write is in. */
  async #writeLease(key: string, lease: SlotLease): Promise<void> {
    const now = Date.now();
    const write = ++lease.writes;
    try {
      await this.#scripts.chaosSlotSet(this.keyOf('slot', key), this.replicaId, lease.count, leaseMs(lease.expiresAt, now));
    } catch (error) {
      lease.dirty = true;
      throw error;
    }
    if (lease.writes === write) {
      lease.dirty = false;
      this.#slots.settle(key, lease);
    }
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

  /** QUIT (bounded by the command timeout), then drop the connection and any reconnect timer. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#slots.clear();
    if (this.ready) await this.client.quit().catch(() => undefined);
    this.client.disconnect();
  }
}
