import { CompiledQuery, type Kysely, SqliteAdapter } from 'kysely';
import { type Executor, sqliteHandles } from './db.js';
import type { DB } from './schema.js';

/**
 * Multi-row inserts for loading many rows (demo data, imports): one statement per few hundred rows,
 * its SQL text built once per shape, so SQLite reuses the prepared statement and neither dialect
 * pays for building a query tree per row. Both dialects cap the parameters of one statement
 * (SQLite 32,766, PostgreSQL 65,535); chunks stay below.
 */
const MAX_PARAMETERS = 30_000;
const MAX_ROWS = 1_000;

export interface InsertManyOptions {
  /**
   * `nothing`: rows whose key exists are skipped (idempotent loads). `{ key, update }`: rows whose
   * `key` exists update the `update` columns instead (upserts).
   */
  onConflict?: 'nothing' | { key: readonly string[]; update: readonly string[] };
}

const sqlCache = new Map<string, string>();

function insertSql(
  sqlite: boolean,
  table: string,
  columns: readonly string[],
  rows: number,
  options: InsertManyOptions,
): string {
  const conflict = conflictClause(options);
  const key = `${sqlite ? 's' : 'p'}|${table}|${columns.join(',')}|${rows}|${conflict}`;
  let text = sqlCache.get(key);
  if (text) return text;
  const tuples: string[] = [];
  let n = 0;
  for (let r = 0; r < rows; r++) {
    const slots = columns.map(() => (sqlite ? '?' : `$${++n}`));
    tuples.push(`(${slots.join(',')})`);
  }
  text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(',')}) values ${tuples.join(',')}${conflict}`;
  if (sqlCache.size > 200) sqlCache.clear();
  sqlCache.set(key, text);
  return text;
}

function conflictClause({ onConflict }: InsertManyOptions): string {
  if (onConflict === undefined) return '';
  if (onConflict === 'nothing') return ' on conflict do nothing';
  const key = onConflict.key.map((c) => `"${c}"`).join(',');
  const set = onConflict.update.map((c) => `"${c}" = excluded."${c}"`).join(',');
  return ` on conflict (${key}) do update set ${set}`;
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

/**
 * Runs a bulk load with a large SQLite page cache (256 MB instead of 2 MB): inserting into big
 * indexes in random key order otherwise spends its time re-reading index pages. PostgreSQL sizes
 * its own buffers; nothing changes there.
 */
export async function withBulkLoad<T>(db: Kysely<DB>, fn: () => Promise<T>): Promise<T> {
  const raw = sqliteHandles.get(db);
  if (!raw) return fn();
  const previous = raw.pragma('cache_size', { simple: true }) as number;
  raw.pragma('cache_size = -262144');
  try {
    return await fn();
  } finally {
    raw.pragma(`cache_size = ${Number(previous)}`);
  }
}
