/**
 * Leaf values whose wire form is decided here and nowhere else: money leaves the domain as integer
 * cents and timestamps as epoch milliseconds; they become decimals and ISO 8601 strings only when a
 * response is written.
 */

/** Lists a response carries even when empty (an empty element in XML): see `presentList`. */
export { presentList } from '../http/xml.js';
// Text forms of money and time live below the mappers, in `src/format.ts`, which the domain and
// the website import too; re-exported here for the mappers.
import { formatCents, formatTimestamp } from '../format.js';
export { berlinOffsetMinutes, dateTimeText, formatCents, formatTimestamp } from '../format.js';

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
