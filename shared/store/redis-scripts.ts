// The Lua scripts of the Redis store (each one round trip, atomic on the server) and how keys
// are bounded; RedisStore registers them with defineCommand.
import { createHash } from 'node:crypto';

/** A caller's key longer than this is replaced by its hash: a client-chosen id never makes a key unbounded. */
const MAX_KEY_PART = 200;

/** A key part as stored: hashed when too long or when a brace in it would end its hash tag early. */
export function boundedPart(key: string): string {
  if (key.length <= MAX_KEY_PART && !key.includes('{') && !key.includes('}')) return key;
  return `sha256:${createHash('sha256').update(key).digest('base64url')}`;
}

/**
 * countInWindow: INCR, and the expiry set by the call that created the key
 * only, so the window runs from the first call and later calls never extend it.
 */
export const WINDOW_LUA = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count
`;

/**
 * elapsedSinceFirst: the first call stores the server's clock (ms) with an
 * expiry of ARGV[1] ms; every call answers how long ago that was. The clock is
 * Redis TIME, so replicas whose clocks disagree still agree on the elapsed time.
 */
export const FIRST_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local first = redis.call('GET', KEYS[1])
if not first then
  redis.call('SET', KEYS[1], now, 'PX', ARGV[1])
  return 0
end
local elapsed = now - tonumber(first)
if elapsed < 0 then return 0 end
return elapsed
`;

/**
 * checkRate for a batch of ARGV[1] identical requests (one client, the same
 * checks, arriving in the same event-loop turn): GCRA over every key at once
 * (KEYS[i] with ARGV[2i] = limit and ARGV[2i+1] = periodMs, limits > 0 only),
 * the same arithmetic as MemoryStore with the server's clock, request after
 * request as if each had its own call at the same instant. The first refusal
 * ends the batch: a refused request consumes nothing, so every later one is
 * refused alike. The theoretical arrival time (TAT) is kept in milliseconds
 * with 3 decimals and outlives itself by a period: under a large limit (TAT a
 * few µs ahead) the key is overwritten rather than expired and created anew
 * every millisecond.
 * Reply: {allowed count k, index of the refusing check or 0, retryAfterMs,
 * resetMs of the refusal, then `now` and each key's starting TAT as exact
 * decimal strings (%.17g)}. Each allowed request's remaining and resetMs are
 * replayed from those by settleRates with the same double arithmetic, rather
 * than computed here and sent two numbers a request.
 */
export const RATE_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local n = tonumber(ARGV[1])
local tats, intervals, periods, starts = {}, {}, {}, {}
for i = 1, #KEYS do
  periods[i] = tonumber(ARGV[2 * i + 1])
  intervals[i] = periods[i] / tonumber(ARGV[2 * i])
  local tat = tonumber(redis.call('GET', KEYS[i]) or '0') or 0
  if tat < now then tat = now end
  tats[i] = tat
  starts[i] = string.format('%.17g', tat)
end
local allowed = 0
local refused = 0
local retry_after = 0
local refusal_reset = 0
while allowed < n and refused == 0 do
  for i = 1, #KEYS do
    local allow_at = tats[i] + intervals[i] - periods[i]
    if allow_at > now then
      refused = i
      retry_after = math.ceil(allow_at - now)
      refusal_reset = math.ceil(tats[i] - now)
      break
    end
  end
  if refused == 0 then
    allowed = allowed + 1
    for i = 1, #KEYS do tats[i] = tats[i] + intervals[i] end
  end
end
if allowed > 0 then
  for i = 1, #KEYS do
    redis.call('SET', KEYS[i], string.format('%.3f', tats[i]), 'PX', math.ceil(tats[i] - now + periods[i]))
  end
end
local reply = {allowed, refused, retry_after, refusal_reset, string.format('%.17g', now)}
for i = 1, #KEYS do reply[5 + i] = starts[i] end
return reply
`;

/** consumeBudget: one unit if fewer than ARGV[1] were taken; the period (ARGV[2] ms) runs from the first. */
export const BUDGET_LUA = `
local budget = tonumber(ARGV[1])
if budget <= 0 then return 0 end
local used = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if used >= budget then return 0 end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
`;

/**
 * openLog's owner count: KEYS[1] is the owner's sorted set of live logs
 * (member ARGV[1], score its expiry on the server's clock). Expired members
 * are dropped; at ARGV[2] live ones the open is refused with the time until
 * the oldest expires. Reply {1, 0} or {0, retryAfterMs}.
 */
export const LOG_ADMIT_LUA = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local wait = tonumber(oldest[2]) - now
  if wait < 1 then wait = 1 end
  return {0, wait}
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, 0}
`;

/**
 * appendLog: KEYS[1] the log's head, KEYS[2] its entries (one hash tag). Only
 * a live log takes an entry, up to ARGV[2] of them; the entries expire with
 * the head. Reply 1 when appended, else 0.
 */
export const LOG_APPEND_LUA = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return 0 end
if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[2]) then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
`;

/** readLog: the head then every entry, or nil when the log is not live. */
export const LOG_READ_LUA = `
local head = redis.call('GET', KEYS[1])
if not head then return nil end
local entries = redis.call('LRANGE', KEYS[2], 0, -1)
table.insert(entries, 1, head)
return entries
`;

type Reply = Promise<unknown>;

/** The scripts, as defineCommand adds them to the client. */
export interface ScriptCommands {
  chaosWindow(key: string, ttlMs: number): Reply;
  chaosFirst(key: string, ttlMs: number): Reply;
  chaosRate(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Reply;
  chaosBudget(key: string, budget: number, ttlMs: number): Reply;
  chaosSlotAcquire(key: string, replica: string, heldBefore: number, limit: number, leaseIfGranted: number, leaseIfRefused: number): Reply;
  chaosSlotSet(key: string, replica: string, held: number, lease: number): Reply;
  chaosLogAdmit(ownerKey: string, member: string, maxPerOwner: number, ttlMs: number): Reply;
  chaosLogAppend(headKey: string, entriesKey: string, entry: string, maxEntries: number): Reply;
  chaosLogRead(headKey: string, entriesKey: string): Reply;
}
