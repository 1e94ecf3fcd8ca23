import type { Database } from '../store/db.js';
import {
  clearLimits,
  counterValue,
  countersWithPrefix,
  decrementCounter,
  deleteCountersWithPrefix,
  incrementCounters,
  releasePlace,
  sweepLimits,
  takePlace,
} from '../store/limits.js';
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
  type Outcome,
  RATE_EXCEEDED,
  storeUnavailable,
  type Usage,
} from './store.js';

/** Thrown inside a charge's transaction to roll its increments back. */
class Refused {
  constructor(readonly result: ChargeResult | AttemptResult) {}
}

/**
 * The limits in the database, for processes that share them without Redis (`serve --workers N`
 * without REDIS_URL): each charge is one transaction that counts first and checks after (the
 * counts come back from the increment itself, so two processes charging one user at once each see
 * an exact count), rolled back whole when any limit refuses, so a refused request spends nothing.
 * Keys carry their window like Redis's (the minute, the Berlin date). A write per request: with
 * REDIS_URL set, Redis is the cheaper store.
 */
export class DatabaseLimitStore implements LimitStore {
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly database: Database,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => {
      sweepLimits(this.database.db, this.now()).catch(() => {});
    }, 60_000);
    this.sweeper.unref();
  }

  async charge(c: Charge): Promise<ChargeResult> {
    const now = this.now();
    const user = `u:${c.idUser}:`;
    const rateKey = `${user}rate:${c.idApp}:${c.minute}`;
    const dayKey = `${user}day:${c.day}`;
    const marketplaceKey = `${user}mp:${c.day}`;
    const uses = [{ key: rateKey, expiresAt: now + Math.max(1, c.rateTtlMs) }];
    if (c.dayMax > 0) {
      uses.push({ key: dayKey, expiresAt: now + Math.max(1, c.dayTtlMs) });
      if (c.marketplaceMax > 0) uses.push({ key: marketplaceKey, expiresAt: now + Math.max(1, c.dayTtlMs) });
    }
    try {
      return await this.database.transaction(async (tx) => {
        const counts = await incrementCounters(tx, uses, now);
        const day = c.dayMax > 0 ? counts.get(dayKey)!.count : 0;
        const refuse = (outcome: Outcome) => new Refused({ outcome, dayCount: Math.max(0, day - 1) });
        if (counts.get(rateKey)!.count > c.rateMax) throw refuse(RATE_EXCEEDED);
        if (c.dayMax > 0) {
          if (day > c.dayMax) throw refuse(DAILY_QUOTA_EXCEEDED);
          if (c.marketplaceMax > 0 && counts.get(marketplaceKey)!.count > c.marketplaceMax) {
            throw refuse(MARKETPLACE_CAP_EXCEEDED);
          }
        }
        if (c.lockKey !== '' && !(await takePlace(tx, c.lockKey, c.lockToken, now + c.lockTtlMs, now))) {
          throw refuse(CONCURRENCY_BUSY);
        }
        return { outcome: ALLOWED, dayCount: day };
      });
    } catch (err) {
      if (err instanceof Refused) return err.result as ChargeResult;
      throw storeUnavailable('the database');
    }
  }

  async release(lockKey: string, token: string): Promise<void> {
    // A place left behind expires by its TTL; the (already answered) request has nothing to refuse.
    await releasePlace(this.database.db, lockKey, token).catch(() => {});
  }

  async usage(idUser: number, day: string, minute: number): Promise<Usage> {
    const user = `u:${idUser}:`;
    const rows = await countersWithPrefix(this.database.db, user, this.now()).catch(() => {
      throw storeUnavailable('the database');
    });
    const perMinute: Usage['perMinute'] = [];
    let dayCount = 0;
    let marketplaceCount = 0;
    for (const { key, count } of rows) {
      const rest = key.slice(user.length);
      if (rest === `day:${day}`) dayCount = count;
      else if (rest === `mp:${day}`) marketplaceCount = count;
      else if (rest.startsWith('rate:') && rest.endsWith(`:${minute}`)) {
        perMinute.push({ idApp: Number(rest.split(':')[1]), count });
      }
    }
    perMinute.sort((a, b) => a.idApp - b.idApp);
    return { day, dayCount, marketplaceCount, perMinute };
  }

  async reset(idUser: number): Promise<void> {
    await deleteCountersWithPrefix(this.database.db, `u:${idUser}:`);
  }

  async attempt(keys: readonly AttemptKey[], windowMs: number): Promise<AttemptResult> {
    const now = this.now();
    try {
      return await this.database.transaction(async (tx) => {
        const counts = await incrementCounters(
          tx,
          keys.map((k) => ({ key: `attempt:${k.key}`, expiresAt: now + Math.max(1, windowMs) })),
          now,
        );
        for (const { key, max } of keys) {
          const held = counts.get(`attempt:${key}`)!;
          if (held.count > max)
            throw new Refused({ allowed: false, retryAfterMs: Math.max(0, held.expiresAt - now) });
        }
        return { allowed: true, retryAfterMs: 0 };
      });
    } catch (err) {
      if (err instanceof Refused) return err.result as AttemptResult;
      throw storeUnavailable('the database');
    }
  }

  async forgetAttempt(key: string, all = false): Promise<void> {
    await decrementCounter(this.database.db, `attempt:${key}`, all).catch(() => {
      throw storeUnavailable('the database');
    });
  }

  async countAttempts(key: string): Promise<number> {
    return counterValue(this.database.db, `attempt:${key}`, this.now()).catch(() => {
      throw storeUnavailable('the database');
    });
  }

  /** Forgets every count (a snapshot replaced the data). */
  async clear(): Promise<void> {
    await clearLimits(this.database.db);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}
