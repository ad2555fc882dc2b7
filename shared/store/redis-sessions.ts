// Sessions and their resumption events on Redis (RedisStore's part of the
// Store contract), each operation one script: a session is a hash (its value
// and its event counter), its events a list, and its owner a sorted set of
// session ids scored by expiry, which bounds the owner's live sessions. All of
// an owner's keys share the hash tag {<owner tag>}, so a cluster keeps them in
// one slot and a script may touch them together.
import type { Cluster, Redis } from 'ioredis';
import { newSessionId, ownerTag, sessionTag, STREAM_NAME_RE, type StoredEvent } from './types.js';

const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS: owner set, session hash. ARGV: limit, ttlMs, value, id. 1 when opened, 0 when the owner holds `limit`. */
const OPEN_LUA = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[2], 'v', ARGV[3], 'n', 0)
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
`;

/** KEYS: owner set, session hash, events. ARGV: ttlMs, id. The value, expiry pushed on; false when not live. */
const TOUCH_LUA = `
local v = redis.call('HGET', KEYS[2], 'v')
if not v then return false end
${NOW}
redis.call('PEXPIRE', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[3], ARGV[1])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return v
`;

/** KEYS: owner set, session hash, events. ARGV: id. 1 when it was live. */
const CLOSE_LUA = `
local n = redis.call('DEL', KEYS[2])
redis.call('DEL', KEYS[3])
redis.call('ZREM', KEYS[1], ARGV[1])
return n
`;

/**
 * KEYS: session hash, events. ARGV: max, stream, data… Each event is stored
 * as "<seq> <stream> <data>"; the list lives as long as the session.
 */
const APPEND_LUA = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return 0 end
local count = #ARGV - 2
local last = redis.call('HINCRBY', KEYS[1], 'n', count)
local first = last - count + 1
for i = 1, count do redis.call('RPUSH', KEYS[2], (first + i - 1) .. ' ' .. ARGV[2] .. ' ' .. ARGV[2 + i]) end
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[1]), -1)
redis.call('PEXPIRE', KEYS[2], ttl)
return first
`;

interface SessionCommands {
  chaosSessionOpen(owner: string, session: string, limit: number, ttlMs: number, value: string, id: string): Promise<unknown>;
  chaosSessionTouch(owner: string, session: string, events: string, ttlMs: number, id: string): Promise<unknown>;
  chaosSessionClose(owner: string, session: string, events: string, id: string): Promise<unknown>;
  chaosSessionAppend(session: string, events: string, max: number, stream: string, ...data: string[]): Promise<unknown>;
}

export class RedisSessions {
  readonly #commands: SessionCommands;

  constructor(
    private readonly client: Redis | Cluster,
    private readonly prefix: string,
  ) {
    client.defineCommand('chaosSessionOpen', { numberOfKeys: 2, lua: OPEN_LUA });
    client.defineCommand('chaosSessionTouch', { numberOfKeys: 3, lua: TOUCH_LUA });
    client.defineCommand('chaosSessionClose', { numberOfKeys: 3, lua: CLOSE_LUA });
    client.defineCommand('chaosSessionAppend', { numberOfKeys: 2, lua: APPEND_LUA });
    this.#commands = client as unknown as SessionCommands;
  }

  /** The owner's set, the session's hash and its events: `<prefix>mcp…:{<tag>}…`. */
  #keys(tag: string, id: string): { owner: string; session: string; events: string } {
    return { owner: `${this.prefix}sessions:{${tag}}`, session: `${this.prefix}session:{${tag}}:${id}`, events: `${this.prefix}events:{${tag}}:${id}` };
  }

  async open(owner: string, value: string, limit: number, ttlMs: number): Promise<string | undefined> {
    if (limit <= 0) return undefined;
    const id = newSessionId(owner);
    const keys = this.#keys(ownerTag(owner), id);
    const opened = await this.#commands.chaosSessionOpen(keys.owner, keys.session, limit, Math.max(1, Math.ceil(ttlMs)), value, id);
    return Number(opened) === 1 ? id : undefined;
  }

  async touch(id: string, ttlMs: number): Promise<string | undefined> {
    const tag = sessionTag(id);
    if (tag === undefined) return undefined;
    const keys = this.#keys(tag, id);
    const value = await this.#commands.chaosSessionTouch(keys.owner, keys.session, keys.events, Math.max(1, Math.ceil(ttlMs)), id);
    return typeof value === 'string' ? value : undefined;
  }

  async close(id: string): Promise<boolean> {
    const tag = sessionTag(id);
    if (tag === undefined) return false;
    const keys = this.#keys(tag, id);
    return Number(await this.#commands.chaosSessionClose(keys.owner, keys.session, keys.events, id)) === 1;
  }

  async append(id: string, stream: string, data: readonly string[], max: number): Promise<number> {
    if (!STREAM_NAME_RE.test(stream)) throw new RangeError(`bad stream name: ${stream}`);
    const tag = sessionTag(id);
    if (tag === undefined || data.length === 0) return 0;
    const keys = this.#keys(tag, id);
    return Number(await this.#commands.chaosSessionAppend(keys.session, keys.events, Math.max(1, max), stream, ...data));
  }

  async after(id: string, stream: string, after: number): Promise<readonly StoredEvent[]> {
    const tag = sessionTag(id);
    if (tag === undefined) return [];
    const items = await this.client.lrange(this.#keys(tag, id).events, 0, -1);
    const found: StoredEvent[] = [];
    for (const item of items) {
      const space = item.indexOf(' ');
      const second = item.indexOf(' ', space + 1);
      const seq = Number(item.slice(0, space));
      if (item.slice(space + 1, second) === stream && seq > after) found.push({ seq, data: item.slice(second + 1) });
    }
    return found;
  }
}
