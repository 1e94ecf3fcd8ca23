import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatCents, formatTimestamp } from './values.js';

describe('serializer values', () => {
  it('formats cents exactly', () => {
    assert.equal(formatCents(0), '0.00');
    assert.equal(formatCents(5), '0.05');
    assert.equal(formatCents(123456), '1234.56');
    assert.equal(formatCents(-1001), '-10.01');
  });

  it('formats timestamps in Europe/Berlin with a numeric offset without colon', () => {
    assert.equal(formatTimestamp(Date.UTC(2019, 7, 23, 12, 30, 4)), '2019-08-23T14:30:04+0200');
    assert.equal(formatTimestamp(Date.UTC(2026, 0, 5, 23, 0, 0)), '2026-01-06T00:00:00+0100');
    // The hour around the switch to summer time (31 March 2024, 01:00 UTC)
    assert.equal(formatTimestamp(Date.UTC(2024, 2, 31, 0, 59, 59)), '2024-03-31T01:59:59+0100');
    assert.equal(formatTimestamp(Date.UTC(2024, 2, 31, 1, 0, 0)), '2024-03-31T03:00:00+0200');
  });
});
