import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeEventData, eventJson, mapEvent } from './event.js';
import { Money } from './values.js';

describe('the Event entity in JSON', () => {
  it('is written from the stored text exactly as JSON.stringify(mapEvent) writes it', () => {
    const trees: unknown[] = [
      { idOrder: 7, article: { price: new Money(1999), product: { enName: 'Black Lotus' } } },
      { order: { totalValue: new Money(-5), lines: [new Money(0), new Money(1), new Money(100050)] } },
      // Text that looks like stored money stays text; a `$cents` key beside others is no money.
      { comment: '{"$cents":5}', tricky: 'a\\', odd: { $cents: 3, other: 1 }, quote: '"}{"$cents":1}' },
      { unicode: 'Mühle – ✓ \u2028', nested: [[{ $cents: 12 }]], empty: {}, nothing: null },
    ];
    for (const [i, tree] of trees.entries()) {
      const e = {
        idEvent: 40 + i,
        idUser: 3,
        type: 'article.sold',
        createdAt: Date.UTC(2026, 10, 25, 17, 0, i),
        payload: encodeEventData(tree),
      };
      assert.equal(eventJson(e), JSON.stringify(mapEvent(e)));
    }
  });
});

describe('the stored form of event data', () => {
  it('is the text a replacer writing each Money as {"$cents": n} wrote, and leaves Money as a number afterwards', () => {
    const replaced = (tree: unknown) =>
      JSON.stringify(tree, function (this: Record<string, unknown>, key, value: unknown) {
        const original = this[key];
        return original instanceof Money ? { $cents: original.cents } : value;
      });
    const trees: unknown[] = [
      { a: new Money(1999), b: [new Money(-1), null, undefined, 'x'], c: undefined, d: { e: new Money(0) } },
      new Money(5),
      [{ when: new Date(Date.UTC(2026, 0, 1)), f: () => 1, n: Number.NaN, s: 'Mühle "q" \u2028' }],
    ];
    for (const tree of trees) assert.equal(encodeEventData(tree), replaced(tree));
    assert.equal(JSON.stringify({ price: new Money(1999) }), '{"price":19.99}');
    // A failing write (a cycle) leaves Money as the API writes it, too.
    const cycle: Record<string, unknown> = { m: new Money(1) };
    cycle.self = cycle;
    assert.throws(() => encodeEventData(cycle));
    assert.equal(JSON.stringify(new Money(250)), '2.5');
  });
});
