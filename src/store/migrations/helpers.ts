import { type CreateTableBuilder, type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * The places migrations branch on the dialect: identity columns, SQLite's WITHOUT ROWID storage
 * for tables keyed by their primary key alone, and triggers (`0011_catalog_versions`: SQLite has
 * row triggers only, PostgreSQL statement triggers calling a function). Everything else in a migration is written once and
 * runs on SQLite and PostgreSQL alike.
 */
export function isSqlite(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}

/** An auto-numbered integer primary key that never reuses a deleted id. */
export function withId<T extends string>(
  db: Kysely<unknown>,
  table: CreateTableBuilder<T, never>,
  column: string,
): CreateTableBuilder<T, never> {
  return isSqlite(db)
    ? table.addColumn(column, 'integer', (c) => c.primaryKey().autoIncrement())
    : table.addColumn(column, 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity());
}

/**
 * A table stored as its primary-key index alone on SQLite (one B-tree instead of a rowid table plus
 * an index: half the pages written per insert). PostgreSQL has no such option and needs none.
 */
export function withoutRowid<T extends string, C extends string>(
  db: Kysely<unknown>,
  table: CreateTableBuilder<T, C>,
): CreateTableBuilder<T, C> {
  return isSqlite(db) ? table.modifyEnd(sql`without rowid`) : table;
}
