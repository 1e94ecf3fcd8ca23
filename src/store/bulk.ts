import { CompiledQuery, SqliteAdapter } from 'kysely';
import type { Executor } from './db.js';

/**
 * Multi-row inserts for loading many rows (demo data, imports): one statement per few hundred rows,
 * its SQL text built once per shape, so SQLite reuses the prepared statement and neither dialect
 * pays for building a query tree per row. Both dialects cap the parameters of one statement
 * (SQLite 32,766, PostgreSQL 65,535); chunks stay below.
 */
const MAX_PARAMETERS = 30_000;
const MAX_ROWS = 1_000;

export interface InsertManyOptions {
  /** `nothing`: rows whose key exists are skipped (idempotent loads). */
  onConflict?: 'nothing';
}

const sqlCache = new Map<string, string>();

function insertSql(
  sqlite: boolean,
  table: string,
  columns: readonly string[],
  rows: number,
  options: InsertManyOptions,
): string {
  const key = `${sqlite ? 's' : 'p'}|${table}|${columns.join(',')}|${rows}|${options.onConflict ?? ''}`;
  let text = sqlCache.get(key);
  if (text) return text;
  const tuples: string[] = [];
  let n = 0;
  for (let r = 0; r < rows; r++) {
    const slots = columns.map(() => (sqlite ? '?' : `$${++n}`));
    tuples.push(`(${slots.join(',')})`);
  }
  text =
    `insert into "${table}" (${columns.map((c) => `"${c}"`).join(',')}) values ${tuples.join(',')}` +
    (options.onConflict === 'nothing' ? ' on conflict do nothing' : '');
  if (sqlCache.size > 200) sqlCache.clear();
  sqlCache.set(key, text);
  return text;
}

export async function insertMany(
  db: Executor,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  options: InsertManyOptions = {},
): Promise<void> {
  if (rows.length === 0) return;
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const perStatement = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMETERS / columns.length)));
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    const params: unknown[] = [];
    for (const row of chunk) {
      if (row.length !== columns.length) {
        throw new Error(`insertMany ${table}: a row has ${row.length} values for ${columns.length} columns`);
      }
      for (const v of row) params.push(v);
    }
    await db.executeQuery(
      CompiledQuery.raw(insertSql(sqlite, table, columns, chunk.length, options), params),
    );
  }
}
