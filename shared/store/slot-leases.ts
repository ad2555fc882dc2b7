// Held-response slots on Redis as per-replica leases (issue 25, defect 8).
// A client's key is a hash of replica id → "count:expiry" (Redis's clock, ms):
// each replica writes only its own field, and always the absolute number of
// that client's responses it holds, never +1 or -1. A write that was lost
// (Redis paused, killed, failed over) or that ran late is therefore undone by
// the replica's next write, and when Redis answers again each replica
// rewrites every field it owns (resync). A replica that dies takes its field
// with it when the lease runs out. The decision stays one round trip: the
// acquire script sums the live fields of the other replicas and this one's
// count as the caller knows it.

/**
 * acquireSlot. KEYS[1] the client's hash; ARGV: replica id, this replica's
 * holds before this one, the cap, the lease (ms) if granted, the lease if
 * refused. Other replicas' fields past their expiry are dropped. The key
 * lives as long as its longest lease.
 * Reply: 1 granted, 0 refused.
 */
export const SLOT_ACQUIRE_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local leases = redis.call('HGETALL', KEYS[1])
local others = 0
for i = 1, #leases, 2 do
  if leases[i] ~= ARGV[1] then
    local value = leases[i + 1]
    local sep = string.find(value, ':', 1, true)
    local expires = sep and tonumber(string.sub(value, sep + 1)) or 0
    if expires > now then
      others = others + (tonumber(string.sub(value, 1, sep - 1)) or 0)
    else
      redis.call('HDEL', KEYS[1], leases[i])
    end
  end
end
local mine = tonumber(ARGV[2])
local granted = 0
local lease = tonumber(ARGV[5])
if others + mine < tonumber(ARGV[3]) then
  mine = mine + 1
  granted = 1
  lease = tonumber(ARGV[4])
end
if mine > 0 then
  redis.call('HSET', KEYS[1], ARGV[1], string.format('%d:%.0f', mine, now + lease))
  if redis.call('PTTL', KEYS[1]) < lease then redis.call('PEXPIRE', KEYS[1], lease) end
else
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return granted
`;

/**
 * releaseSlot and resync: this replica holds ARGV[2] of the client's slots
 * (0 removes its field; the hash goes with its last field), for ARGV[3] ms.
 */
export const SLOT_SET_LUA = `
local mine = tonumber(ARGV[2])
if mine > 0 then
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local lease = tonumber(ARGV[3])
  redis.call('HSET', KEYS[1], ARGV[1], string.format('%d:%.0f', mine, now + lease))
  if redis.call('PTTL', KEYS[1]) < lease then redis.call('PEXPIRE', KEYS[1], lease) end
else
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return mine
`;

/** What this process holds of one client's slots: the truth its writes carry to Redis. */
export interface SlotLease {
  /** Responses held now, acquires on their way to Redis included. */
  count: number;
  /** When the holds lapse should their releases be lost (this process's clock, ms). */
  expiresAt: number;
  /** Writes sent for this key: a reply can tell whether a later write has overtaken it. */
  writes: number;
  /** Redis may not hold `count`: a write failed, or the fallback decided while Redis was away. */
  dirty: boolean;
}

/** This process's held slots per client key, whichever store decided them. */
export class SlotLedger {
  readonly #leases = new Map<string, SlotLease>();

  /** The key's lease, created empty or emptied when it has lapsed. */
  lease(key: string, now: number): SlotLease {
    let lease = this.#leases.get(key);
    if (lease === undefined) {
      lease = { count: 0, expiresAt: now, writes: 0, dirty: false };
      this.#leases.set(key, lease);
    } else if (lease.expiresAt <= now && lease.count > 0) {
      // Its releases were lost: the holds lapse here as they do on Redis.
      lease.count = 0;
      lease.dirty = true;
    }
    return lease;
  }

  /** The key's lease if it holds anything. */
  held(key: string, now: number): SlotLease | undefined {
    const lease = this.#leases.get(key);
    return lease !== undefined && lease.count > 0 && lease.expiresAt > now ? lease : undefined;
  }

  /** Forgets a lease that holds nothing and that Redis knows holds nothing. */
  settle(key: string, lease: SlotLease): void {
    if (lease.count === 0 && !lease.dirty && this.#leases.get(key) === lease) this.#leases.delete(key);
  }

  /** Every lease Redis must be told about: those that hold something, and those it may have wrong. */
  *toResync(now: number): IterableIterator<[string, SlotLease]> {
    for (const [key, lease] of this.#leases) {
      if (lease.count > 0 && lease.expiresAt <= now) {
        lease.count = 0;
        lease.dirty = true;
      }
      if (lease.count > 0 || lease.dirty) yield [key, lease];
      else this.#leases.delete(key);
    }
  }

  get size(): number {
    return this.#leases.size;
  }

  clear(): void {
    this.#leases.clear();
  }
}

/** A lease's remaining life in whole milliseconds, at least 1 (PEXPIRE refuses 0). */
export function leaseMs(expiresAt: number, now: number): number {
  return Math.max(1, Math.ceil(expiresAt - now));
}
