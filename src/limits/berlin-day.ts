/**
 * The quota day: daily quotas reset at midnight Europe/Berlin (reference §5: "00:00 CET/CEST"),
 * whatever the server's own time zone. The day is named by its Berlin date (`2026-11-21`), which is
 * what the counters are keyed by, so a new day starts new counters without anything being reset.
 *
 * Intl is slow (microseconds per call), so the current day is cached with its bounds: a request
 * only compares two numbers, and the day is computed again only when the clock leaves it (at
 * midnight, or when a test or the sandbox moves the clock).
 */
import { berlinOffsetMinutes } from '../format.js';

/** Berlin's offset from UTC at an instant, in milliseconds (+1 h in winter, +2 h in summer). */
const berlinOffsetMs = (epochMs: number) => berlinOffsetMinutes(epochMs) * 60_000;

/** The instant of 00:00 in Berlin on a calendar date (month 1-based; days past the month roll over). */
function berlinMidnight(year: number, month: number, day: number): number {
  const utcMidnight = Date.UTC(year, month - 1, day);
  // Berlin changes its offset at 02:00/03:00, never at midnight, so midnight exists exactly once
  // and two refinements of the guess land on it.
  let t = utcMidnight - berlinOffsetMs(utcMidnight);
  t = utcMidnight - berlinOffsetMs(t);
  return t;
}

export interface QuotaDay {
  /** The Berlin date, `YYYY-MM-DD`. */
  key: string;
  /** First instant of the day (Berlin midnight), epoch ms. */
  start: number;
  /** First instant of the next day: when the quotas reset. */
  end: number;
}

/** Computes the Berlin day containing an instant (uncached; see `BerlinDays`). */
export function berlinDay(epochMs: number): QuotaDay {
  const wall = new Date(epochMs + berlinOffsetMs(epochMs));
  const year = wall.getUTCFullYear();
  const month = wall.getUTCMonth() + 1;
  const day = wall.getUTCDate();
  const key = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  return { key, start: berlinMidnight(year, month, day), end: berlinMidnight(year, month, day + 1) };
}

/** The current quota day, recomputed only when the clock leaves it. */
export class BerlinDays {
  private current: QuotaDay = { key: '', start: 0, end: 0 };

  at(epochMs: number): QuotaDay {
    const c = this.current;
    if (epochMs >= c.start && epochMs < c.end) return c;
    this.current = berlinDay(epochMs);
    return this.current;
  }
}
