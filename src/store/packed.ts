import { type RawBuilder, sql } from 'kysely';

/**
 * A row of many small columns read as one text. better-sqlite3 hands each value of a row to
 * JavaScript through V8's API (setting each element of the row's array costs several hundred
 * instructions: a page of 100 orders of some forty columns spent a sixth of its time there), while
 * one text is one value, cut apart here by plain string operations. On PostgreSQL it is one text
 * for the driver to read instead of forty to parse.
 *
 * The columns are joined by a unit separator (U+001F). A text that contains it gives the row more
 * fields than it has columns: `unpack` then answers undefined and the caller reads that row the
 * ordinary way, so any text comes back as it was stored. A nullable text is written behind a `=`
 * (null: nothing at all), a nullable integer as its digits or nothing; `integer` and `text` are for
 * NOT NULL columns only (`concat_ws` leaves nulls out).
 */
export type PackedKind = 'integer' | 'integer?' | 'text' | 'text?';
/** A column's name in the row, its kind, and where it comes from when not from the column so named. */
export type PackedColumns = ReadonlyArray<
  readonly [name: string, kind: PackedKind, from?: string | RawBuilder<unknown>]
>;

export const SEPARATOR = '\u001f';

export interface PackedRow<Row> {
  /** The SQL expression of the packed text, columns qualified by `alias` when given. */
  select: (alias?: string) => RawBuilder<string | null>;
  /** The row the text stands for; undefined when it is null or has more fields than columns. */
  unpack: (packed: string | null) => Row | undefined;
}

/** An integer's digits (and sign) as a number, without the substring; anything else as Number does. */
export function integerAt(text: string, from: number, to: number): number {
  let i = from;
  const negative = text.charCodeAt(i) === 45; /* - */
  if (negative) i++;
  if (i === to || to - i > 15) return Number(text.slice(from, to));
  let n = 0;
  for (; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return Number(text.slice(from, to));
    n = n * 10 + d;
  }
  return negative ? -n : n;
}

export function packedRow<Row>(columns: PackedColumns): PackedRow<Row> {
  const select = (alias?: string) => {
    const parts = columns.map(([name, kind, from]) => {
      const ref =
        from === undefined
          ? sql.ref(alias ? `${alias}.${name}` : name)
          : typeof from === 'string'
            ? sql.ref(from)
            : from;
      switch (kind) {
        case 'integer':
        case 'text':
          return ref;
        case 'integer?':
          return sql`coalesce(cast(${ref} as text), '')`;
        case 'text?':
          return sql`coalesce('=' || ${ref}, '')`;
      }
    });
    // One call builds the text at once (a chain of `||` copied it again for every column, which
    // cost SQLite what the values had cost better-sqlite3). The separator is a literal: the
    // statement binds only its own values.
    return sql<string | null>`concat_ws('${sql.raw(SEPARATOR)}', ${sql.join(parts)})`;
  };
  // One function per column list, each field read in place: a row's object gets its shape at once.
  const body: string[] = ['if (p === null) return undefined;', 'let a = 0, b = 0;'];
  const fields: string[] = [];
  columns.forEach(([name, kind], i) => {
    const last = i === columns.length - 1;
    body.push(
      last
        ? 'b = p.length; if (p.indexOf(S, a) !== -1) return undefined;'
        : 'b = p.indexOf(S, a); if (b === -1) return undefined;',
    );
    const v = `v${i}`;
    switch (kind) {
      case 'integer':
        body.push(`const ${v} = int(p, a, b);`);
        break;
      case 'integer?':
        body.push(`const ${v} = a === b ? null : int(p, a, b);`);
        break;
      case 'text':
        body.push(`const ${v} = p.slice(a, b);`);
        break;
      case 'text?':
        body.push(`const ${v} = a === b ? null : p.slice(a + 1, b);`);
        break;
    }
    body.push('a = b + 1;');
    fields.push(`${JSON.stringify(name)}: ${v}`);
  });
  body.push(`return { ${fields.join(', ')} };`);
  const build = new Function('S', 'int', `return (p) => { ${body.join('\n')} };`) as (
    separator: string,
    int: typeof integerAt,
  ) => (packed: string | null) => Row | undefined;
  return { select, unpack: build(SEPARATOR, integerAt) };
}
