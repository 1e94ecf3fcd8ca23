import { Migrator, sql } from 'kysely';
import type { Database } from './db.js';
import { migrations } from './migrations/index.js';

/** Brings the schema up to date. Safe to run on every start; returns the migrations it applied. */
export async function migrateToLatest(database: Database): Promise<string[]> {
  // Kysely looks for its bookkeeping tables in every schema it can see; on PostgreSQL, pin them to
  // the schema we write to, or a database shared by several schemas would confuse it.
  const migrationTableSchema =
    database.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)).rows[0]
          ?.schema
      : undefined;
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
    // Features are built on parallel branches, each with its own migration number, and land in any
    // order: a database that already ran 0008 must still take a 0007 that lands after it. The
    // migrations of different features touch different tables, so their order does not matter.
    allowUnorderedMigrations: true,
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  let outcome = await migrator.migrateToLatest();
  // Kysely's check for its tables reads the catalog of every schema in the database; if another
  // schema is dropped during that read, PostgreSQL fails it with "schema … does not exist"
  // (3F000) although nothing is wrong here. Nothing was migrated then, so trying again is safe.
  for (let attempt = 1; attempt < 5 && isInvalidSchemaName(outcome.error); attempt++) {
    await new Promise((r) => setTimeout(r, 20 * attempt));
    outcome = await migrator.migrateToLatest();
  }
  const { error, results } = outcome;
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

function isInvalidSchemaName(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === '3F000';
}
