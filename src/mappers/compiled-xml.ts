import { xmlBytes, xmlElement, type XmlWriter, xmlText } from '../http/xml.js';
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
  /** The same as UTF-8 bytes, for `XmlWriter`. */
  readonly bytes: {
    readonly open: Uint8Array;
    readonly close: Uint8Array;
    readonly empty: Uint8Array;
    readonly isTrue: Uint8Array;
    readonly isFalse: Uint8Array;
  };
}

export function tag(name: string): Tag {
  const open = `<${name}>`;
  const close = `</${name}>`;
  const empty = `<${name}/>`;
  const isTrue = `<${name}>true</${name}>`;
  const isFalse = `<${name}>false</${name}>`;
  return {
    name,
    open,
    close,
    empty,
    isTrue,
    isFalse,
    bytes: {
      open: xmlBytes(open),
      close: xmlBytes(close),
      empty: xmlBytes(empty),
      isTrue: xmlBytes(isTrue),
      isFalse: xmlBytes(isFalse),
    },
  };
}

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

// The same fields written into an answer's bytes (`XmlWriter`), for the entities of a list that
// `toXmlBuffer` writes: each gives the bytes of the function above of the same value.

/** `textXml`. */
export function textTo(out: XmlWriter, t: Tag, value: unknown): void {
  if (typeof value === 'string' && value !== '') out.text(t.bytes.open, value, t.bytes.close);
  else if (value === '' || value === null) out.bytes(t.bytes.empty);
  else out.markup(textXml(t, value));
}

/** `intXml`. */
export function intTo(out: XmlWriter, t: Tag, value: unknown): void {
  if (typeof value === 'number') out.numberIn(t.bytes.open, value, t.bytes.close);
  else if (value === null) out.bytes(t.bytes.empty);
  else out.markup(intXml(t, value));
}

/** `boolXml`. */
export const boolTo = (out: XmlWriter, t: Tag, value: boolean): void =>
  out.bytes(value ? t.bytes.isTrue : t.bytes.isFalse);

/** `moneyXml`: cents as digits, a point and two digits, without a string. */
export function moneyTo(out: XmlWriter, t: Tag, cents: number | null | undefined): void {
  if (typeof cents === 'number' && cents >= 0 && cents <= 0x7fffffff && (cents | 0) === cents) {
    out.centsIn(t.bytes.open, cents, t.bytes.close);
  } else out.markup(moneyXml(t, cents));
}

/** `timestampXml`. */
export function timestampTo(out: XmlWriter, t: Tag, ms: number | null | undefined): void {
  if (ms === null || ms === undefined) out.bytes(t.bytes.empty);
  else {
    out.bytes(t.bytes.open);
    out.bytes(timestampBytes(ms));
    out.bytes(t.bytes.close);
  }
}

/**
 * `formatTimestamp` as bytes, kept as it keeps its texts (the same orders are written again on
 * every read of them). Bounded: cleared when full.
 */
const TIMESTAMPS = new Map<number, Uint8Array>();
const MAX_TIMESTAMPS = 10_000;

function timestampBytes(ms: number): Uint8Array {
  let bytes = TIMESTAMPS.get(ms);
  if (bytes === undefined) {
    bytes = xmlBytes(formatTimestamp(ms));
    if (TIMESTAMPS.size >= MAX_TIMESTAMPS) TIMESTAMPS.clear();
    TIMESTAMPS.set(ms, bytes);
  }
  return bytes;
}

/**
 * An entity written once in an answer and copied from there every time after (`XmlWriter.mark`,
 * `again`): the product and the forty-odd sellers of a page's hundred offers, the seller of every
 * order on a seller's page. Kept by object, as the mappers share one object per entity in a page;
 * forgotten when the writer starts another answer, since marks are that answer's own.
 */
export class WrittenOnce<S extends object> {
  private readonly at = new Map<S, readonly [from: number, to: number]>();
  private answer = -1;

  write<T extends S>(out: XmlWriter, source: T, write: (out: XmlWriter, source: T) => void): void {
    if (this.answer !== out.answer) {
      this.at.clear();
      this.answer = out.answer;
    }
    const at = this.at.get(source);
    if (at !== undefined) {
      out.again(at[0], at[1]);
      return;
    }
    const from = out.mark();
    write(out, source);
    this.at.set(source, [from, out.mark()]);
  }
}
