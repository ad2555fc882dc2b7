// The composition root of shared state: the service runner builds one store
// per process from configuration, hands it to the service and closes it on
// shutdown (shared/runtime/run.ts). Services receive a Store and never pick one.
import { usesRedis, type Config } from '../config/config.js';
import type { Logger } from '../config/log.js';
import { FallbackStore, type FallbackReason } from './fallback.js';
import { MemoryStore } from './memory.js';
import type { Store } from './types.js';

export interface StoreHooks {
  /** Called for every operation the local store answered because Redis could not (chaos_store_fallback_total). */
  readonly onFallback?: (reason: FallbackReason) => void;
}

/**
 * No Redis configured: the in-memory store. REDIS_URL, REDIS_SENTINELS or
 * REDIS_CLUSTER_NODES set: Redis, behind the local fallback,
 * so an unreachable Redis (at start or later) never stops the service. The
 * URL may hold a password: it is never logged. ioredis is loaded only when
 * used (it costs a process about 0.2 s of start-up).
 */
export async function createStore(config: Config, logger: Logger, hooks: StoreHooks = {}): Promise<Store> {
  if (!usesRedis(config)) return new MemoryStore();
  const { RedisStore } = await import('./redis.js');
  const shared = new RedisStore({
    ...(config.redisUrl !== undefined ? { url: config.redisUrl } : {}),
    ...(config.redisSentinel !== undefined ? { sentinel: config.redisSentinel } : {}),
    ...(config.redisClusterNodes !== undefined ? { clusterNodes: config.redisClusterNodes } : {}),
    prefix: config.redisPrefix,
  });
  return new FallbackStore({ shared, logger, ...(hooks.onFallback ? { onFallback: hooks.onFallback } : {}) });
}
