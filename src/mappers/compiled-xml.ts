import { xmlElement, xmlText } from '../http/xml.js';
import { formatCents, formatTimestamp } from '../format.js';

/**
 * Pieces of the writers compiled for one entity's XML (the Order of a page of 100 orders, its
 * parties): an element's tags built once, and each value written the way the generic writer
 * (`src/http/xml.ts`) writes the tree the mapper gives for it. A value not of the usual type goes
 * through the generic writer itself, so the bytes are the same whatever comes.
 */
export interface Tag {
  readonly name: string;
  readonly open: string;
  readonly close: string;
  readonly empty: string;
  readonly isTrue: string;
  readonly isFalse: string;
}

export const tag = (name: string): Tag => ({
  name,
  open: `<${name}>`,
  close: `</${name}>`,
  empty: `<${name}/>`,
  isTrue: `<${name}>true</${name}>`,
  isFalse: `<${name}>false</${name}>`,
});

/** A string field (empty: the empty element; null: the same). */
export function textXml(t: Tag, value: unknown): string {
  if (typeof value === 'string') return value === '' ? t.empty : t.open + xmlText(value) + t.close;
  return value === null ? t.empty : xmlElement(t.name, value);
}

/** An integer field (null: the empty element). */
export function intXml(t: Tag, value: unknown): string {
  if (typeof value === 'number') return t.open + value + t.close;
  return value === null ? t.empty : xmlElement(t.name, value);
}

/** A boolean field. */
export const boolXml = (t: Tag, value: boolean): string => (value ? t.isTrue : t.isFalse);

/** Money from cents (`money()`): null or undefined is the empty element. */
export function moneyXml(t: Tag, cents: number | null | undefined): string {
  // Digits, a sign and a point: nothing to escape.
  return cents === null || cents === undefined ? t.empty : t.open + formatCents(cents) + t.close;
}

/** A timestamp from epoch milliseconds (`timestamp()`): null or undefined is the empty element. */
export function timestampXml(t: Tag, ms: number | null | undefined): string {
  // Digits, dashes, colons, `T` and the offset's sign: nothing to escape.
  return ms === null || ms === undefined ? t.empty : t.open + formatTimestamp(ms) + t.close;
}
