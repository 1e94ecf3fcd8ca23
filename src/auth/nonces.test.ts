import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { openRedis } from '../store/redis.js';
import { MemoryNonceStore, type NonceStore, RedisNonceStore } from './nonces.js';

// One contract, two stores: what a nonce store must do, in process memory and in Redis.
const stores: Array<[string, () => NonceStore]> = [['memory', () => new MemoryNonceStore()]];
const redisUrl = process.env.TEST_REDIS_URL;
const redis = redisUrl ? openRedis(redisUrl) : undefined;
if (redis) {
  stores.push(['redis', () => new RedisNonceStore(redis, `test:nonce:${randomBytes(4).toString('hex')}:`)]);
} else {
  console.log('# TEST_REDIS_URL is not set: the Redis nonce store contract is skipped.');
}
// The client fails fast while connecting (no offline queue), so wait until it is ready.
before(async () => {
  if (redis && redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
});
after(() => redis?.disconnect());

for (const [name, make] of stores) {
  describe(`nonce store (${name})`, () => {
    it('answers false the first time and true after, per key', async () => {
      const store = make();
      assert.equal(await store.seen('a', 60_000), false);
      assert.equal(await store.seen('a', 60_000), true);
      assert.equal(await store.seen('b', 60_000), false);
    });

    it('forgets a nonce after its time to live', async () => {
      const store = make();
      assert.equal(await store.seen('short', 30), false);
      await new Promise((r) => setTimeout(r, 80));
      assert.equal(await store.seen('short', 30), false);
    });

    it('lets exactly one of many concurrent uses of a nonce through', async () => {
      const store = make();
      const results = await Promise.all(Array.from({ length: 20 }, () => store.seen('race', 60_000)));
      assert.equal(results.filter((seen) => !seen).length, 1);
    });
  });
}

describe('nonce store with Redis unreachable', () => {
  it('refuses with 503 instead of letting a request through unchecked', async () => {
    const dead = openRedis('redis://127.0.0.1:1');
    try {
      await assert.rejects(
        new RedisNonceStore(dead).seen('x', 1000),
        (e: { status?: number }) => e.status === 503,
      );
    } finally {
      dead.disconnect();
    }
  });
});
