import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Database } from '../store/db.js';
import { DatabaseLimitStore } from './database-store.js';
import { MemoryLimitStore } from './memory-store.js';
import { RedisLimitStore } from './redis-store.js';
import type { LimitStore } from './store.js';

/**
 * Redis when the server has one (REDIS_URL: instances share the counts); the database when several
 * worker processes share them without Redis (never one process's memory); else this process's memory.
 */
export function createLimitStore(
  config: Config,
  redis: Redis | undefined,
  wallClock: Clock,
  database: Database,
): LimitStore {
  if (redis) return new RedisLimitStore(redis, config.limitsRedisPrefix);
  if (config.workers > 1) return new DatabaseLimitStore(database, () => wallClock.now());
  return new MemoryLimitStore(() => wallClock.now());
}
