import {
  ALLOWED,
  type AttemptKey,
  type AttemptResult,
  type Charge,
  type ChargeResult,
  CONCURRENCY_BUSY,
  DAILY_QUOTA_EXCEEDED,
  type LimitStore,
  MARKETPLACE_CAP_EXCEEDED,
  RATE_EXCEEDED,
  type Usage,
} from './store.js';

interface MinuteCounter {
  minute: number;
  count: number;
}

/** One user's counters; the day's counts start again when `day` changes. */
interface UserCounters {
  day: string;
  dayCount: number;
  marketplaceCount: number;
  /** Per app token (idApp). */
  rates: Map<number, MinuteCounter>;
}

interface Place {
  token: string;
  expiresAt: number;
}

const SWEEP_ABOVE = 10_000;

/**
 * The counters of one process. A charge runs synchronously from start to end, so it is atomic
 * without locks. Counters are mutated in place, keyed by numbers, so the hot path allocates no keys.
 * Concurrency places expire by real time (`now`), like Redis keys, as a backstop for a missed release.
 */
export class MemoryLimitStore implements LimitStore {
  private readonly users = new Map<number, UserCounters>();
  private readonly places = new Map<string, Place>();
  private readonly attempts = new Map<string, { count: number; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async charge(c: Charge): Promise<ChargeResult> {
    return this.chargeNow(c);
  }

  chargeNow(c: Charge): ChargeResult {
    let user = this.users.get(c.idUser);
    if (!user) {
      user = { day: c.day, dayCount: 0, marketplaceCount: 0, rates: new Map() };
      this.users.set(c.idUser, user);
    }
    let rate = user.rates.get(c.idApp);
    if (!rate) {
      rate = { minute: c.minute, count: 0 };
      user.rates.set(c.idApp, rate);
    }
    const rateCount = rate.minute === c.minute ? rate.count : 0;
    const sameDay = user.day === c.day;
    const dayCount = c.dayMax > 0 && sameDay ? user.dayCount : 0;

    if (rateCount >= c.rateMax) return { outcome: RATE_EXCEEDED, dayCount };
    if (c.dayMax > 0) {
      if (dayCount >= c.dayMax) return { outcome: DAILY_QUOTA_EXCEEDED, dayCount };
      if (c.marketplaceMax > 0 && (sameDay ? user.marketplaceCount : 0) >= c.marketplaceMax) {
        return { outcome: MARKETPLACE_CAP_EXCEEDED, dayCount };
      }
    }
    if (c.lockKey !== '') {
      const now = this.now();
      const held = this.places.get(c.lockKey);
      if (held && held.expiresAt > now) return { outcome: CONCURRENCY_BUSY, dayCount };
      if (!held && this.places.size >= SWEEP_ABOVE) this.sweep(now);
      this.places.set(c.lockKey, { token: c.lockToken, expiresAt: now + c.lockTtlMs });
    }

    if (rate.minute !== c.minute) {
      rate.minute = c.minute;
      rate.count = 0;
    }
    rate.count++;
    if (c.dayMax === 0) return { outcome: ALLOWED, dayCount: 0 };
    if (!sameDay) {
      user.day = c.day;
      user.dayCount = 0;
      user.marketplaceCount = 0;
    }
    user.dayCount++;
    if (c.marketplaceMax > 0) user.marketplaceCount++;
    return { outcome: ALLOWED, dayCount: user.dayCount };
  }

  async release(lockKey: string, token: string): Promise<void> {
    if (this.places.get(lockKey)?.token === token) this.places.delete(lockKey);
  }

  async usage(idUser: number, day: string, minute: number): Promise<Usage> {
    const user = this.users.get(idUser);
    const sameDay = user?.day === day;
    const perMinute: Usage['perMinute'] = [];
    for (const [idApp, rate] of user?.rates ?? []) {
      if (rate.minute === minute && rate.count > 0) perMinute.push({ idApp, count: rate.count });
    }
    perMinute.sort((a, b) => a.idApp - b.idApp);
    return {
      day,
      dayCount: sameDay ? user!.dayCount : 0,
      marketplaceCount: sameDay ? user!.marketplaceCount : 0,
      perMinute,
    };
  }

  async reset(idUser: number): Promise<void> {
    this.users.delete(idUser);
  }

  async attempt(keys: readonly AttemptKey[], windowMs: number): Promise<AttemptResult> {
    const now = this.now();
    for (const { key, max } of keys) {
      const held = this.attempts.get(key);
      if (held && held.until > now && held.count >= max) {
        return { allowed: false, retryAfterMs: held.until - now };
      }
    }
    if (this.attempts.size >= SWEEP_ABOVE) {
      for (const [key, a] of this.attempts) if (a.until <= now) this.attempts.delete(key);
    }
    for (const { key } of keys) {
      const held = this.attempts.get(key);
      if (held && held.until > now) held.count++;
      else this.attempts.set(key, { count: 1, until: now + windowMs });
    }
    return { allowed: true, retryAfterMs: 0 };
  }

  async forgetAttempt(key: string, all = false): Promise<void> {
    const held = this.attempts.get(key);
    if (!held) return;
    if (all || held.count <= 1) this.attempts.delete(key);
    else held.count--;
  }

  async countAttempts(key: string): Promise<number> {
    const held = this.attempts.get(key);
    return held && held.until > this.now() ? held.count : 0;
  }

  private sweep(now: number): void {
    for (const [key, place] of this.places) if (place.expiresAt <= now) this.places.delete(key);
  }

  async close(): Promise<void> {
    this.users.clear();
    this.places.clear();
    this.attempts.clear();
  }
}
