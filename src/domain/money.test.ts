import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseArticlePrice, parsePriceCents } from './money.js';

describe('prices', () => {
  it('reads a comma or a dot, at most two decimals, into cents', () => {
    assert.equal(parsePriceCents('1,50'), 150);
    assert.equal(parsePriceCents('1.5'), 150);
    assert.equal(parsePriceCents('3'), 300);
    assert.equal(parsePriceCents(' 0.07 '), 7);
    assert.equal(parsePriceCents('19.99'), 1999);
  });

  it('refuses everything else', () => {
    for (const bad of ['', 'abc', '1.234', '-1', '1e3', '1,2,3', '.5', '1.', 'NaN']) {
      assert.throws(() => parsePriceCents(bad), /price/, bad);
    }
    assert.throws(() => parseArticlePrice('0'));
    assert.throws(() => parseArticlePrice('1000000.01'));
  });
});
