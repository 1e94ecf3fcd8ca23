import type { Redis } from 'ioredis';
import { ApiError } from '../errors.js';

/**
 * Remembers OAuth nonces for as long as their timestamp could still pass the window, so a captured
 * request cannot be replayed. In memory for one process; in Redis for several instances.
 */
export interface NonceStore {
  /** Records the nonce and answers whether it had been seen already (atomically). */
  seen(key: string, ttlMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export class MemoryNonceStore implements NonceStore {
  private readonly expiries = new Map<string, number>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async seen(key: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    if (now - this.lastSweep > 10_000) this.sweep(now);
    const expiry = this.expiries.get(key);
    if (expiry !== undefined && expiry > now) return true;
    this.expiries.set(key, now + ttlMs);
    return false;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, expiry] of this.expiries) if (expiry <= now) this.expiries.delete(key);
  }

  async close(): Promise<void> {
    this.expiries.clear();
  }
}

export class RedisNonceStore implements NonceStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'cardbazaar:nonce:',
  ) {}

  async seen(key: string, ttlMs: number): Promise<boolean> {
    let set: string | null;
    try {
      set = await this.redis.set(this.prefix + key, '1', 'PX', ttlMs, 'NX');
    } catch {
      // Letting the request through unchecked would allow replays; refusing it is the safe answer.
      throw new ApiError(
        503,
        'The shared state store (Redis) is unreachable, so requests cannot be verified. Try again shortly.',
      );
    }
    return set === null;
  }

  async close(): Promise<void> {}
}
