import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Rng, unit } from './prng.js';

describe('seeded PRNG', () => {
  it('repeats its sequence for a seed and differs between seeds', () => {
    const a = new Rng('demo');
    const b = new Rng('demo');
    const c = new Rng('other');
    const xs = Array.from({ length: 5 }, () => a.next());
    assert.deepEqual(
      xs,
      Array.from({ length: 5 }, () => b.next()),
    );
    assert.notDeepEqual(
      xs,
      Array.from({ length: 5 }, () => c.next()),
    );
    assert.ok(xs.every((x) => x >= 0 && x < 1));
  });

  it('draws integers in range, weighted choices and per-key units', () => {
    const r = new Rng(1);
    for (let i = 0; i < 1000; i++) {
      const n = r.int(3, 5);
      assert.ok(n >= 3 && n <= 5 && Number.isInteger(n));
    }
    assert.equal(new Rng(2).weighted([['only', 1]]), 'only');
    assert.equal(unit('x'), unit('x'));
    assert.notEqual(unit('x'), unit('y'));
  });
});
