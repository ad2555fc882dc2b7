// The composition root of shared state: the service runner builds one store
// per process from configuration, hands it to the service and closes it on
// shutdown (shared/run.ts). Services receive a Store and never pick one.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { MemoryStore } from './memory.js';
import type { Store } from './types.js';

export function createStore(config: Config, logger: Logger): Store {
  if (config.redisUrl !== undefined) {
    // Issue 8 plugs the Redis store in here (and its in-memory fallback).
    // Until then REDIS_URL is accepted but not used: the process serves from
    // its own memory, as DESIGN §7 has it do when Redis is unreachable, and
    // says so. Refusing to start would break `make up` for anyone with
    // REDIS_URL in their environment. The URL may hold a password: not logged.
    logger.warn('REDIS_URL is set but the Redis store is not built yet: using the in-memory store (state is not shared between processes)');
  }
  return new MemoryStore();
}
