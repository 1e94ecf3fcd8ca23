import { Redis } from 'ioredis';

/**
 * One Redis connection for the shared short-lived state (nonces, limits). Commands fail fast while
 * Redis is away instead of queueing, so a request gets a clear 503 rather than hanging; ioredis
 * reconnects on its own and the next request succeeds again.
 */
export function openRedis(url: string): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 2000,
    connectTimeout: 2000,
    lazyConnect: false,
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
  // Connection errors are reported per command; an unhandled 'error' event would crash the process.
  redis.on('error', () => {});
  return redis;
}
