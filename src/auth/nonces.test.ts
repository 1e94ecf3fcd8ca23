import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { openRedis } from '../store/redis.js';
import { DatabaseNonceStore, type NonceStore, RedisNonceStore } from './nonces.js';

// One contract, two stores: what a nonce store must do, in the database and in Redis.
const WINDOW = 900;
const now = () => Math.floor(Date.now() / 1000);
const use = (nonceKey: string, timestamp = now()) => ({ nonceKey, timestamp });

const redisUrl = process.env.TEST_REDIS_URL;
const redis = redisUrl ? openRedis(redisUrl) : undefined;
// The client fails fast while connecting (no offline queue), so wait until it is ready.
before(async () => {
  if (redis && redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
});
after(() => redis?.disconnect());

const stores: Array<[string, () => Promise<NonceStore>, string | false]> = [
  [
    'database',
    async () => {
      const database = openDatabase(':memory:');
      await migrateToLatest(database);
      const store = new DatabaseNonceStore(database, Date.now, WINDOW);
      closers.push(async () => {
        await store.close();
        await database.close();
      });
      return store;
    },
    false,
  ],
  [
    'redis',
    async () => new RedisNonceStore(redis!, `test:nonce:${randomBytes(4).toString('hex')}:`),
    redis ? false : 'TEST_REDIS_URL is not set',
  ],
];
const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const close of closers) await close();
});

for (const [name, make, skip] of stores) {
  // A run that cannot happen here is one skipped test with the reason, so the summary counts it.
  if (skip) {
    it(`nonce store (${name})`, { skip }, () => {});
    continue;
  }
  describe(`nonce store (${name})`, () => {
    it('answers false the first time and true after, per key', async () => {
      const store = await make();
      // One timestamp for all three: a second boundary between two calls (a loaded machine) would
      // make the second use of `a` another key, and no replay.
      const t = now();
      assert.equal(await store.seen(use('a', t), WINDOW), false);
      assert.equal(await store.seen(use('a', t), WINDOW), true);
      assert.equal(await store.seen(use('b', t), WINDOW), false);
    });

    it('lets exactly one of many concurrent uses of a nonce through', async () => {
      const store = await make();
      const results = await Promise.all(Array.from({ length: 20 }, () => store.seen(use('race'), WINDOW)));
      assert.equal(results.filter((seen) => !seen).length, 1);
    });

    it('decides each of many different nonces at once on its own', async () => {
      const store = await make();
      const t = now();
      const keys = Array.from({ length: 150 }, (_, i) => `k${i}`);
      const first = await Promise.all(keys.map((k) => store.seen(use(k, t), WINDOW)));
      assert.ok(first.every((seen) => !seen));
      const again = await Promise.all(keys.map((k, i) => store.seen(use(k, t), WINDOW).then((s) => [i, s])));
      assert.ok(again.every(([, seen]) => seen));
    });
  });
}

describe('nonce store (redis)', () => {
  it(
    'forgets a nonce after its time to live',
    { skip: redis ? false : 'TEST_REDIS_URL is not set' },
    async () => {
      const store = new RedisNonceStore(redis!, `test:nonce:${randomBytes(4).toString('hex')}:`);
      // A window of 0.015 s: the key lives twice that.
      assert.equal(await store.seen(use('short'), 0.015), false);
      await new Promise((r) => setTimeout(r, 80));
      assert.equal(await store.seen(use('short'), 0.015), false);
    },
  );
});

describe('nonce store (database)', () => {
  it('keys a nonce by its timestamp too: the same nonce signed at another second is another request', async () => {
    const database = openDatabase(':memory:');
    await migrateToLatest(database);
    const store = new DatabaseNonceStore(database, Date.now, WINDOW);
    try {
      const t = now();
      assert.equal(await store.seen(use('n', t)), false);
      assert.equal(await store.seen(use('n', t)), true);
      assert.equal(await store.seen(use('n', t + 1)), false);
    } finally {
      await store.close();
      await database.close();
    }
  });

  it('answers 503 when the database cannot record the nonce, never lets the request through', async () => {
    const database = openDatabase(':memory:');
    await migrateToLatest(database);
    const store = new DatabaseNonceStore(database, Date.now, WINDOW);
    await database.close();
    await assert.rejects(store.seen(use('x')), (e: { status?: number }) => e.status === 503);
    await store.close();
  });
});

describe('nonce store with Redis unreachable', () => {
  it('refuses with 503 instead of letting a request through unchecked', async () => {
    const dead = openRedis('redis://127.0.0.1:1');
    try {
      await assert.rejects(
        new RedisNonceStore(dead).seen(use('x'), 1),
        (e: { status?: number }) => e.status === 503,
      );
    } finally {
      dead.disconnect();
    }
  });
});
