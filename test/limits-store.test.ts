import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { ApiError } from '../src/errors.js';
import { MemoryLimitStore } from '../src/limits/memory-store.js';
import { RedisLimitStore } from '../src/limits/redis-store.js';
import {
  ALLOWED,
  type Charge,
  CONCURRENCY_BUSY,
  DAILY_QUOTA_EXCEEDED,
  type LimitStore,
  lockKey,
  MARKETPLACE_CAP_EXCEEDED,
  RATE_EXCEEDED,
} from '../src/limits/store.js';
import { openRedis } from '../src/store/redis.js';
import { DatabaseLimitStore } from '../src/limits/database-store.js';
import { type Database, openDatabase } from '../src/store/db.js';
import { clearLimits } from '../src/store/limits.js';
import { migrateToLatest } from '../src/store/migrate.js';
import { describeUnless, NO_POSTGRES, NO_REDIS, postgresSchemaUrl } from './helpers.js';

/**
 * The contract the limit stores keep: the same answers to the same charges, whether the counters
 * live in this process, in Redis or in the database (several workers without Redis). The Redis run joins when TEST_REDIS_URL is set (`.ci/run` sets
 * it); every test uses its own key prefix, so parallel test files never share counters.
 */

const STORES = ['memory', 'redis', 'database (sqlite)', 'database (postgres)'];

let userIds = 1000;
const base = (overrides: Partial<Charge> = {}): Charge => ({
  idUser: 1,
  idApp: 1,
  minute: 1000,
  rateMax: 600,
  rateTtlMs: 60_000,
  day: '2026-11-21',
  dayMax: 0,
  marketplaceMax: 0,
  dayTtlMs: 3_600_000,
  lockKey: '',
  lockToken: '',
  lockTtlMs: 60_000,
  ...overrides,
});

async function chargeTimes(store: LimitStore, n: number, c: Charge) {
  const outcomes: number[] = [];
  for (let i = 0; i < n; i++) outcomes.push((await store.charge(c)).outcome);
  return outcomes;
}

for (const kind of STORES) {
  const skip = kind === 'redis' ? NO_REDIS : kind === 'database (postgres)' ? NO_POSTGRES : undefined;
  describeUnless(skip, `the limit store contract (${kind})`, () => {
    let redis: Redis | undefined;
    let database: Database | undefined;
    let dropSchema: (() => Promise<void>) | undefined;
    let store: LimitStore;
    let idUser: number;
    before(async () => {
      if (kind === 'redis') {
        redis = openRedis(process.env.TEST_REDIS_URL!);
        await new Promise((resolve) => redis!.once('ready', resolve));
      }
      if (kind.startsWith('database')) {
        let url = ':memory:';
        if (kind === 'database (postgres)') {
          const schema = await postgresSchemaUrl();
          url = schema.url;
          dropSchema = schema.drop;
        }
        database = openDatabase(url);
        await migrateToLatest(database);
      }
    });
    // As a fresh memory store per test: no counts left by the test before (some use idUser + 1).
    beforeEach(async () => {
      if (database) await clearLimits(database.db);
    });
    after(async () => {
      redis?.disconnect();
      await store?.close();
      await database?.close();
      await dropSchema?.();
    });

    // A fresh store (and, for Redis, a fresh key prefix) and a fresh user per test.
    const fresh = () => {
      idUser = ++userIds;
      void store?.close();
      store =
        kind === 'redis'
          ? new RedisLimitStore(redis!, `test:limits:${randomBytes(6).toString('hex')}:`)
          : database
            ? new DatabaseLimitStore(database)
            : new MemoryLimitStore();
      return store;
    };

    it('allows exactly rateMax requests in a minute, then refuses without counting', async () => {
      fresh();
      const c = base({ idUser, rateMax: 5, dayMax: 100 });
      assert.deepEqual(await chargeTimes(store, 5, c), [0, 0, 0, 0, 0]);
      assert.deepEqual(await store.charge(c), { outcome: RATE_EXCEEDED, dayCount: 5 });
      assert.deepEqual(await store.charge(c), { outcome: RATE_EXCEEDED, dayCount: 5 });
      const usage = await store.usage(idUser, c.day, c.minute);
      assert.equal(usage.dayCount, 5, 'refused requests do not spend the daily budget');
      assert.deepEqual(usage.perMinute, [{ idApp: 1, count: 5 }]);
      // The next minute starts from zero.
      assert.deepEqual(await store.charge({ ...c, minute: c.minute + 1 }), { outcome: ALLOWED, dayCount: 6 });
    });

    it('counts the rate per app token and per user', async () => {
      fresh();
      const c = base({ idUser, rateMax: 2 });
      assert.deepEqual(await chargeTimes(store, 3, c), [0, 0, RATE_EXCEEDED]);
      assert.equal((await store.charge({ ...c, idApp: 2 })).outcome, ALLOWED, 'another app of the user');
      assert.equal((await store.charge({ ...c, idUser: idUser + 50_000 })).outcome, ALLOWED, 'another user');
      const usage = await store.usage(idUser, c.day, c.minute);
      assert.deepEqual(usage.perMinute, [
        { idApp: 1, count: 2 },
        { idApp: 2, count: 1 },
      ]);
    });

    it('allows exactly dayMax requests a day, then refuses without spending the minute', async () => {
      fresh();
      const c = base({ idUser, dayMax: 3 });
      const results = [];
      for (let i = 0; i < 3; i++) results.push(await store.charge({ ...c, minute: c.minute + i }));
      assert.deepEqual(
        results.map((r) => r.dayCount),
        [1, 2, 3],
      );
      assert.deepEqual(await store.charge({ ...c, minute: 2000 }), {
        outcome: DAILY_QUOTA_EXCEEDED,
        dayCount: 3,
      });
      const usage = await store.usage(idUser, c.day, 2000);
      assert.deepEqual(usage.perMinute, [], 'the refused request took nothing from its minute');
      // The next Berlin day starts from zero.
      assert.deepEqual(await store.charge({ ...c, day: '2026-11-22', minute: 2000 }), {
        outcome: ALLOWED,
        dayCount: 1,
      });
    });

    it('caps the marketplace group while other requests use the rest of the quota', async () => {
      fresh();
      const market = base({ idUser, dayMax: 10, marketplaceMax: 2 });
      const other = { ...market, marketplaceMax: 0 };
      assert.deepEqual(await chargeTimes(store, 2, market), [0, 0]);
      assert.deepEqual(await store.charge(market), { outcome: MARKETPLACE_CAP_EXCEEDED, dayCount: 2 });
      assert.deepEqual(await store.charge(other), { outcome: ALLOWED, dayCount: 3 });
      const usage = await store.usage(idUser, market.day, market.minute);
      assert.equal(usage.marketplaceCount, 2);
      assert.equal(usage.dayCount, 3);
      assert.deepEqual(usage.perMinute, [{ idApp: 1, count: 3 }]);
    });

    it('checks the minute first, then the day, then the marketplace cap, then the concurrency place', async () => {
      fresh();
      const key = lockKey('stockFile', `10.0.0.${idUser % 250}`);
      await store.charge(base({ idUser: idUser + 1, lockKey: key, lockToken: 'other' }));
      const c = base({ idUser, rateMax: 1, dayMax: 1, marketplaceMax: 1, lockKey: key, lockToken: 'mine' });
      assert.equal((await store.charge({ ...c, lockKey: '' })).outcome, ALLOWED);
      assert.equal((await store.charge(c)).outcome, RATE_EXCEEDED);
      assert.equal((await store.charge({ ...c, rateMax: 10 })).outcome, DAILY_QUOTA_EXCEEDED);
      assert.equal((await store.charge({ ...c, rateMax: 10, dayMax: 10 })).outcome, MARKETPLACE_CAP_EXCEEDED);
      assert.equal(
        (await store.charge({ ...c, rateMax: 10, dayMax: 10, marketplaceMax: 10 })).outcome,
        CONCURRENCY_BUSY,
      );
    });

    it('does not count apps without a quota against any day', async () => {
      fresh();
      const c = base({ idUser, dayMax: 0, marketplaceMax: 0 });
      assert.deepEqual(await store.charge(c), { outcome: ALLOWED, dayCount: 0 });
      const usage = await store.usage(idUser, c.day, c.minute);
      assert.equal(usage.dayCount, 0);
      assert.deepEqual(usage.perMinute, [{ idApp: 1, count: 1 }]);
    });

    it('gives a concurrency place to one holder at a time, and counts nothing when busy', async () => {
      fresh();
      const key = lockKey('exports', `192.0.2.${idUser % 250}`);
      const c = base({ idUser, dayMax: 100, lockKey: key, lockToken: 'a' });
      assert.deepEqual(await store.charge(c), { outcome: ALLOWED, dayCount: 1 });
      assert.deepEqual(await store.charge({ ...c, lockToken: 'b' }), {
        outcome: CONCURRENCY_BUSY,
        dayCount: 1,
      });
      // Another IP, or another group from the same IP, has its own place.
      assert.equal(
        (await store.charge({ ...c, lockKey: lockKey('exports', '198.51.100.1'), lockToken: 'c' })).outcome,
        ALLOWED,
      );
      assert.equal(
        (
          await store.charge({
            ...c,
            lockKey: lockKey('stockFile', `192.0.2.${idUser % 250}`),
            lockToken: 'd',
          })
        ).outcome,
        ALLOWED,
      );
      // A release with another token (a place that expired and was taken again) frees nothing.
      await store.release(key, 'b');
      assert.equal((await store.charge({ ...c, lockToken: 'e' })).outcome, CONCURRENCY_BUSY);
      await store.release(key, 'a');
      assert.deepEqual(await store.charge({ ...c, lockToken: 'f' }), { outcome: ALLOWED, dayCount: 4 });
      await store.release(key, 'f');
    });

    it('frees a place whose release was missed once its TTL has passed', async () => {
      fresh();
      const key = lockKey('stockFile', `203.0.113.${idUser % 250}`);
      const c = base({ idUser, lockKey: key, lockToken: 'lost', lockTtlMs: 50 });
      assert.equal((await store.charge(c)).outcome, ALLOWED);
      assert.equal((await store.charge({ ...c, lockToken: 'next' })).outcome, CONCURRENCY_BUSY);
      const deadline = Date.now() + 5000;
      let outcome: number = CONCURRENCY_BUSY;
      while (outcome === CONCURRENCY_BUSY && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        outcome = (await store.charge({ ...c, lockToken: 'next' })).outcome;
      }
      assert.equal(outcome, ALLOWED);
    });

    it('is exact under many parallel charges', async () => {
      fresh();
      const c = base({ idUser, rateMax: 1000, dayMax: 37 });
      const results = await Promise.all(Array.from({ length: 100 }, () => store.charge(c)));
      assert.equal(results.filter((r) => r.outcome === ALLOWED).length, 37);
      assert.deepEqual(
        results
          .filter((r) => r.outcome === ALLOWED)
          .map((r) => r.dayCount)
          .sort((a, b) => a - b),
        Array.from({ length: 37 }, (_, i) => i + 1),
      );
      assert.equal((await store.usage(idUser, c.day, c.minute)).dayCount, 37);
    });

    it('resets one user and leaves the others', async () => {
      fresh();
      const c = base({ idUser, rateMax: 2, dayMax: 2, marketplaceMax: 2 });
      const other = { ...c, idUser: idUser + 70_000 };
      await chargeTimes(store, 2, c);
      await chargeTimes(store, 2, other);
      assert.equal((await store.charge(c)).outcome, RATE_EXCEEDED);
      await store.reset(idUser);
      assert.deepEqual(await store.usage(idUser, c.day, c.minute), {
        day: c.day,
        dayCount: 0,
        marketplaceCount: 0,
        perMinute: [],
      });
      assert.deepEqual(await store.charge(c), { outcome: ALLOWED, dayCount: 1 });
      assert.equal((await store.charge(other)).outcome, RATE_EXCEEDED, 'the other user keeps their counts');
    });

    // Sign-in attempts (src/web sign-in): per username and per address, all or nothing.
    it('counts attempts per key up to their max, then refuses without counting any key', async () => {
      fresh();
      const user = { key: `u:${idUser}`, max: 3 };
      const address = { key: `ip:${idUser}`, max: 5 };
      const results = [];
      for (let i = 0; i < 4; i++) results.push((await store.attempt([user, address], 60_000)).allowed);
      assert.deepEqual(results, [true, true, true, false]);
      const refused = await store.attempt([user, address], 60_000);
      assert.equal(refused.allowed, false);
      assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= 60_000, String(refused.retryAfterMs));
      // The refusals did not count against the address: 2 more attempts for another username pass.
      const other = { key: `u2:${idUser}`, max: 3 };
      assert.equal((await store.attempt([other, address], 60_000)).allowed, true);
      assert.equal((await store.attempt([other, address], 60_000)).allowed, true);
      assert.equal((await store.attempt([other, address], 60_000)).allowed, false, 'the address has had 5');
    });

    it('takes an attempt back, or all of them, and holds under parallel attempts', async () => {
      fresh();
      const user = { key: `u:${idUser}`, max: 2 };
      await store.attempt([user], 60_000);
      await store.attempt([user], 60_000);
      assert.equal((await store.attempt([user], 60_000)).allowed, false);
      await store.forgetAttempt(user.key);
      assert.equal((await store.attempt([user], 60_000)).allowed, true);
      await store.forgetAttempt(user.key, true);
      assert.equal((await store.attempt([user], 60_000)).allowed, true);
      assert.equal((await store.attempt([user], 60_000)).allowed, true);
      assert.equal((await store.attempt([user], 60_000)).allowed, false);
      await store.forgetAttempt(`never-used:${idUser}`); // nothing to take back: no error

      const busy = { key: `p:${idUser}`, max: 7 };
      const all = await Promise.all(Array.from({ length: 40 }, () => store.attempt([busy], 60_000)));
      assert.equal(all.filter((r) => r.allowed).length, 7);
    });

    it('starts a key again once its window has passed', async () => {
      fresh();
      const user = { key: `w:${idUser}`, max: 1 };
      assert.equal((await store.attempt([user], 150)).allowed, true);
      assert.equal((await store.attempt([user], 150)).allowed, false);
      await new Promise((r) => setTimeout(r, 250));
      assert.equal((await store.attempt([user], 150)).allowed, true);
    });

    it('tells how many attempts a key holds in its window (the sign-in slowdown reads it)', async () => {
      fresh();
      const key = `c:${idUser}`;
      assert.equal(await store.countAttempts(key), 0);
      for (let i = 0; i < 3; i++) await store.attempt([{ key, max: Number.MAX_SAFE_INTEGER }], 150);
      assert.equal(await store.countAttempts(key), 3);
      await store.forgetAttempt(key);
      assert.equal(await store.countAttempts(key), 2);
      await new Promise((r) => setTimeout(r, 250));
      assert.equal(await store.countAttempts(key), 0);
    });
  });
}

describe('the Redis limit store without Redis', () => {
  it('refuses quickly with a 503 that says why, instead of hanging or letting requests through', async () => {
    // Nothing listens on port 1; the client fails fast (no offline queue).
    const redis = openRedis('redis://127.0.0.1:1');
    try {
      const store = new RedisLimitStore(redis, 'test:limits:down:');
      const started = Date.now();
      await assert.rejects(store.charge(base()), (err: unknown) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.status, 503);
        assert.equal(err.code, 'limits_unavailable');
        assert.match(err.message, /Redis\) is unreachable/);
        return true;
      });
      await assert.rejects(store.usage(1, '2026-11-21', 1), ApiError);
      await assert.rejects(store.reset(1), ApiError);
      await assert.rejects(store.attempt([{ key: 'k', max: 1 }], 1000), ApiError);
      await store.release('x', 'y'); // a release never throws: the TTL frees the place
      assert.ok(Date.now() - started < 3000, 'fails within the command timeout');
    } finally {
      redis.disconnect();
    }
  });
});
