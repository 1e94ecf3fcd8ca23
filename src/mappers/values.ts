/**
 * Leaf values whose wire form is decided here and nowhere else: money leaves the domain as integer
 * cents and timestamps as epoch milliseconds; they become decimals and ISO 8601 strings only when a
 * response is written.
 */

/** Lists a response carries even when empty (an empty element in XML): see `presentList`. */
export { presentList } from '../http/xml.js';

/** Money: a JSON number with at most two decimals, and exactly two decimals in XML. */
export class Money {
  constructor(readonly cents: number) {}
  toJSON(): number {
    return this.cents / 100;
  }
  toXml(): string {
    return formatCents(this.cents);
  }
}

export function money(cents: number): Money;
export function money(cents: number | null | undefined): Money | null;
export function money(cents: number | null | undefined): Money | null {
  return cents === null || cents === undefined ? null : new Money(cents);
}

/** `1234` → `"12.34"`, `-5` → `"-0.05"`; exact for every integer, no floating point involved. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const units = Math.floor(abs / 100);
  const rest = abs % 100;
  return `${sign}${units}.${rest < 10 ? '0' : ''}${rest}`;
}

/**
 * The real API writes times in the marketplace's zone (Europe/Berlin) with a numeric offset and no
 * colon: `2019-08-23T14:30:04+0200`. The zone's offset is found once per hour of time and cached,
 * because Intl is slow and responses carry many timestamps.
 */
const ZONE = 'Europe/Berlin';
const offsetCache = new Map<number, number>();
const zoneParts = new Intl.DateTimeFormat('en-US', {
  timeZone: ZONE,
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
});

/** Minutes east of UTC in Europe/Berlin at that instant. */
export function berlinOffsetMinutes(ms: number): number {
  const hour = Math.floor(ms / 3_600_000);
  const cached = offsetCache.get(hour);
  if (cached !== undefined) return cached;
  const at = hour * 3_600_000;
  const p: Record<string, number> = {};
  for (const part of zoneParts.formatToParts(new Date(at))) {
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  const local = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  const offset = Math.round((local - at) / 60_000);
  if (offsetCache.size > 10_000) offsetCache.clear();
  offsetCache.set(hour, offset);
  return offset;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

export function formatTimestamp(ms: number): string {
  const offset = berlinOffsetMinutes(ms);
  const d = new Date(ms + offset * 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}${pad(abs % 60)}`
  );
}

/**
 * `2023-06-22 14:30:04`: Berlin time without a zone, the database form the live API's export
 * records show (an unfinished export's `finishedAt` is `0000-00-00 00:00:00`).
 */
export function dateTimeText(ms: number | null): string {
  if (ms === null) return '0000-00-00 00:00:00';
  const d = new Date(ms + berlinOffsetMinutes(ms) * 60_000);
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    ` ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  );
}

export function timestamp(ms: number): string;
export function timestamp(ms: number | null | undefined): string | null;
export function timestamp(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : formatTimestamp(ms);
}

/** Booleans are stored as 0/1 (better-sqlite3 cannot bind booleans); they leave as true/false. */
export const bool = (v: number | boolean | null | undefined): boolean => v === 1 || v === true;

/** The HATEOAS link every entity carries: `href` relative to the version prefix. */
export interface Link {
  rel: string;
  href: string;
  method: string;
}
export const link = (rel: string, href: string, method = 'GET'): Link => ({ rel, href, method });
