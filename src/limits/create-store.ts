import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { MemoryLimitStore } from './memory-store.js';
import { RedisLimitStore } from './redis-store.js';
import type { LimitStore } from './store.js';

/** Redis when the server has one (REDIS_URL: instances share the counts), else this process's memory. */
export function createLimitStore(config: Config, redis: Redis | undefined, wallClock: Clock): LimitStore {
  return redis
    ? new RedisLimitStore(redis, config.limitsRedisPrefix)
    : new MemoryLimitStore(() => wallClock.now());
}
