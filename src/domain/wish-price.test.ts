import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.js';
import { parseWishPrice, resolveWishPrice, type WishPriceSources } from './wish-price.js';

const sources = (current: number, lowestOffer: number | null = 250, averageSell: number | null = 310) =>
  ({
    current,
    lowestOffer: async () => lowestOffer,
    averageSell: async () => averageSell,
  }) satisfies WishPriceSources;

async function resolve(text: string, s: WishPriceSources) {
  return resolveWishPrice(parseWishPrice(text), s);
}

describe('wish price codes', () => {
  it('reads prices and every code', () => {
    assert.deepEqual(parseWishPrice('1,50'), { kind: 'price', cents: 150 });
    assert.deepEqual(parseWishPrice(' 2.5 '), { kind: 'price', cents: 250 });
    assert.deepEqual(parseWishPrice('+0.02'), { kind: 'raise', cents: 2 });
    assert.deepEqual(parseWishPrice('-0,37'), { kind: 'lower', cents: 37 });
    assert.deepEqual(parseWishPrice('90%'), { kind: 'percent', hundredths: 9000 });
    assert.deepEqual(parseWishPrice('92.5%'), { kind: 'percent', hundredths: 9250 });
    assert.deepEqual(parseWishPrice('from'), { kind: 'from' });
    assert.deepEqual(parseWishPrice('SELL'), { kind: 'sell' });
  });

  it('refuses what is neither a price nor a code', () => {
    for (const bad of ['', 'cheap', '1.234', '+', '--1', '%', '90 %%', 'FROM2', '1e3', '+-1']) {
      assert.throws(
        () => parseWishPrice(bad),
        (err: unknown) => err instanceof ApiError && err.status === 400 && err.field === 'wishPrice',
        bad,
      );
    }
  });

  it('resolves relative codes against the current wish price', async () => {
    assert.deepEqual(await resolve('+0.02', sources(100)), { cents: 102 });
    assert.deepEqual(await resolve('-0.37', sources(100)), { cents: 63 });
    assert.deepEqual(await resolve('90%', sources(100)), { cents: 90 });
    // Half a cent rounds up: 85% of 1.03 is 0.8755.
    assert.deepEqual(await resolve('85%', sources(103)), { cents: 88 });
    assert.deepEqual(await resolve('110%', sources(100)), { cents: 110 });
    assert.deepEqual(await resolve('FROM', sources(100)), { cents: 250 });
    assert.deepEqual(await resolve('SELL', sources(100)), { cents: 310 });
    assert.deepEqual(await resolve('0', sources(100)), { cents: 0 });
  });

  it('does not resolve codes that fall to zero or below, or have nothing to go on', async () => {
    const failures: Array<[string, WishPriceSources, RegExp]> = [
      ['-0.37', sources(37), /greater than 0/],
      ['-1.00', sources(50), /greater than 0/],
      ['90%', sources(0), /greater than 0/],
      ['0%', sources(100), /greater than 0/],
      ['FROM', sources(100, null), /no offer/],
      ['SELL', sources(100, 250, null), /price guide/],
      ['+1', sources(100_000_000), /at most/],
    ];
    for (const [text, s, reason] of failures) {
      const result = await resolve(text, s);
      assert.ok('error' in result, text);
      assert.match(result.error, reason, text);
    }
  });
});
