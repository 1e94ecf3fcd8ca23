import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BerlinDays, berlinDay } from './berlin-day.js';

describe('the quota day (midnight Europe/Berlin)', () => {
  it('names the Berlin date, not the UTC one', () => {
    // 23:30 UTC on 21 Nov is 00:30 on 22 Nov in Berlin (winter, +1 h).
    assert.equal(berlinDay(Date.UTC(2026, 10, 21, 23, 30)).key, '2026-11-22');
    assert.equal(berlinDay(Date.UTC(2026, 10, 21, 22, 59, 59, 999)).key, '2026-11-21');
    // Summer (+2 h): 22:00 UTC on 1 July is midnight in Berlin.
    assert.equal(berlinDay(Date.UTC(2026, 6, 1, 21, 59, 59, 999)).key, '2026-07-01');
    assert.equal(berlinDay(Date.UTC(2026, 6, 1, 22, 0, 0)).key, '2026-07-02');
  });

  it('starts and ends at Berlin midnight in winter and in summer', () => {
    const winter = berlinDay(Date.UTC(2026, 10, 21, 12));
    assert.equal(winter.start, Date.UTC(2026, 10, 20, 23));
    assert.equal(winter.end, Date.UTC(2026, 10, 21, 23));
    const summer = berlinDay(Date.UTC(2026, 6, 1, 12));
    assert.equal(summer.start, Date.UTC(2026, 5, 30, 22));
    assert.equal(summer.end, Date.UTC(2026, 6, 1, 22));
  });

  it('has 23 hours on the day clocks go forward and 25 on the day they go back', () => {
    const spring = berlinDay(Date.UTC(2026, 2, 29, 12));
    assert.equal(spring.key, '2026-03-29');
    assert.equal(spring.end - spring.start, 23 * 3_600_000);
    const autumn = berlinDay(Date.UTC(2026, 9, 25, 12));
    assert.equal(autumn.key, '2026-10-25');
    assert.equal(autumn.end - autumn.start, 25 * 3_600_000);
  });

  it('rolls over months and years', () => {
    const eve = berlinDay(Date.UTC(2026, 11, 31, 12));
    assert.equal(eve.key, '2026-12-31');
    assert.equal(eve.end, Date.UTC(2026, 11, 31, 23));
    assert.equal(berlinDay(eve.end).key, '2027-01-01');
  });

  it('caches the day and follows a clock that jumps forward or back', () => {
    const days = new BerlinDays();
    const a = days.at(Date.UTC(2026, 10, 21, 12));
    assert.equal(days.at(Date.UTC(2026, 10, 21, 22, 59)), a, 'same day: the cached object');
    assert.equal(days.at(a.end).key, '2026-11-22');
    assert.equal(days.at(a.end - 1).key, '2026-11-21');
    assert.equal(days.at(Date.UTC(2026, 0, 1, 0)).key, '2026-01-01');
  });
});
