/**
 * Leaf values whose wire form is decided here and nowhere else: money leaves the domain as integer
 * cents and timestamps as epoch milliseconds; they become decimals and ISO 8601 strings only when a
 * response is written.
 */

/** Lists a response carries even when empty (an empty element in XML): see `presentList`. */
export { presentList } from '../http/xml.js';
import { SharedTree } from '../http/xml.js';

/**
 * Maps each source object once per answer: the sellers and products a page of offers repeats are
 * mapped once and written once (`SharedTree`). One memo serves one answer and one mapping (the
 * same context for every seller, say).
 */
export class MappedOnce {
  private readonly trees = new Map<object, SharedTree>();
  of<S extends object, T extends object>(source: S, map: (source: S) => T): T {
    let shared = this.trees.get(source);
    if (shared === undefined) {
      shared = new SharedTree(map(source) as Record<string, unknown>);
      this.trees.set(source, shared);
    }
    // Typed as what it stands for: both writers render it as that tree.
    return shared as unknown as T;
  }
}
// Text forms of money and time live below the mappers, in `src/format.ts`, which the domain and
// the website import too; re-exported here for the mappers.
import { type TSchema, Type } from '@sinclair/typebox';
import { formatCents, formatTimestamp } from '../format.js';
export { berlinOffsetMinutes, dateTimeText, formatCents, formatTimestamp } from '../format.js';

/** Money: a JSON number with at most two decimals, and exactly two decimals in XML. */
/** Set only while `storedJson` writes: Money then takes its stored form. */
let moneyAsCents = false;

export class Money {
  constructor(readonly cents: number) {}
  toJSON(): number | { $cents: number } {
    return moneyAsCents ? { $cents: this.cents } : this.cents / 100;
  }
  toXml(): string {
    return formatCents(this.cents);
  }
}

/**
 * JSON of a mapped tree with every `Money` as `{"$cents": n}` (the events' stored form, which keeps
 * cents so that XML still writes two decimals): the same text as a replacer function writing it,
 * without calling JavaScript for every key of the tree (a checkout's hundred `article.sold` events
 * spent a millisecond in that replacer).
 */
export function storedJson(tree: unknown): string {
  moneyAsCents = true;
  try {
    return JSON.stringify(tree);
  } finally {
    moneyAsCents = false;
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

// ---------------------------------------------------------------------------------------------
// Schemas of the leaf values (TypeBox: JSON Schema that TypeScript reads too). The entity schemas
// beside each mapper are built from these; `Static<typeof Schema>` types the mapper's output, so a
// mapper that drifts from its schema fails the type check. `src/http/openapi.ts` publishes them.

/** Money's schema: a JSON number in euros (XML: exactly two decimals); statically the `Money` value. */
export const MoneySchema = Type.Unsafe<Money>(
  Type.Number({ description: 'Euros with at most two decimals (exactly two in XML).', examples: [1.5] }),
);

/** ISO 8601 with the Berlin offset, as the live API writes times (`2026-11-25T12:00:00+0100`). */
export const TimestampSchema = Type.String({
  pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d[+-]\\d{4}$',
  description: 'ISO 8601 with a `+0100`-style offset (Europe/Berlin).',
});

/** A boolean (XML: `true` or `false`). */
export const BoolSchema = Type.Boolean();

export const LinkSchema = Type.Object(
  { rel: Type.String(), href: Type.String(), method: Type.String() },
  { $id: 'Link', description: 'A HATEOAS link; `href` is relative to `/ws/v2.0`.' },
);
export const LinksSchema = Type.Array(LinkSchema);

/** `T` or null (an empty element in XML). */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
