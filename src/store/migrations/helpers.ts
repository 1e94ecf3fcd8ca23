import { type CreateTableBuilder, type Kysely, SqliteAdapter } from 'kysely';

/**
 * The one place migrations branch on the dialect: identity columns. Everything else in a migration
 * is written once and runs on SQLite and PostgreSQL alike.
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
