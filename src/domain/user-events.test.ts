import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeEventData } from '../mappers/event.js';
import { Money } from '../mappers/values.js';
import { encodeAroundLines, LINES_MARK } from './user-events.js';

/** An event's data as `orderEvents` builds it: the order's lines are the array `article`. */
function eventOf(texts: { comment: string; name: string }) {
  const lines = [0, 1, 2].map((i) => ({
    idArticle: 10 + i,
    price: new Money(199 + i),
    comment: `${texts.comment} ${i}`,
    product: { enName: texts.name },
  }));
  const order = {
    idOrder: 7,
    buyer: { username: texts.name },
    article: lines,
    note: texts.comment,
    totalValue: new Money(600),
  };
  return { data: { previousState: null, order }, order, encoded: lines.map((l) => encodeEventData(l)) };
}

describe('an order event encoded around its pre-encoded lines', () => {
  it('is byte for byte the plain encoding, whatever the texts hold', () => {
    const texts = [
      { comment: 'plain', name: 'Black Lotus' },
      { comment: 'quote " backslash \\ and \\u0001lines:', name: 'Mühle – ✓ \u2028 😀' },
      // Text that looks like the mark as it is encoded, the escape written out.
      { comment: `"\\u0001lines:${LINES_MARK.slice(7)}"`, name: JSON.stringify(LINES_MARK) },
      { comment: '{"$cents":5}', name: ']' },
    ];
    for (const t of texts) {
      const { data, order, encoded } = eventOf(t);
      assert.equal(encodeAroundLines(data, order, encoded), encodeEventData(data), t.comment);
    }
  });

  it('falls back to the plain encoding when a text holds the mark itself', () => {
    // Stored texts cannot hold the control character; should one ever, the mark is found twice.
    for (const t of [
      { comment: LINES_MARK, name: 'x' },
      { comment: 'x', name: LINES_MARK },
    ]) {
      const { data, order, encoded } = eventOf(t);
      assert.equal(encodeAroundLines(data, order, encoded), encodeEventData(data));
    }
  });

  it('encodes plainly an order without lines', () => {
    const { data, order } = eventOf({ comment: 'c', name: 'n' });
    assert.equal(encodeAroundLines(data, order, []), encodeEventData(data));
    const none = { ...order, article: undefined };
    assert.equal(encodeAroundLines({ order: none }, none, ['{}']), encodeEventData({ order: none }));
  });
});
