import { type Kysely, Migrator, sql } from 'kysely';
import type { Database } from './db.js';
import type { DB } from './schema.js';
import { migrations } from './migrations/index.js';

/**
 * Brings the schema up to date. Safe to run on every start, and by several processes at once on
 * one database (a server and the CLI beside it, two servers starting): one migrates, the others
 * wait for it and then find nothing left to do. Returns the migrations this call applied.
 */
export async function migrateToLatest(database: Database): Promise<string[]> {
  // Kysely looks for its bookkeeping tables in every schema it can see; on PostgreSQL, pin them to
  // the schema we write to, or a database shared by several schemas would confuse it.
  const migrationTableSchema =
    database.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)).rows[0]
          ?.schema
      : undefined;
  // Up to date (every start but the first after an upgrade): one read, no bookkeeping tables
  // created, no lock taken, so a command run beside a busy server never waits for it or races it.
  if (await upToDate(database.db, migrationTableSchema)) return [];
  if (database.dialect === 'sqlite') {
    // An in-memory database is this connection's alone; a file may be open in several.
    if (database.location === ':memory:') return migrateSqlite(database);
    // Connections of this process to one file take turns here rather than on SQLite's busy
    // timeout, which blocks the whole process while it waits (so the holder could never finish).
    const previous = migratingFiles.get(database.location) ?? Promise.resolve();
    const mine = previous.then(() => migrateSqlite(database));
    const settled = mine.then(
      () => {},
      () => {},
    );
    migratingFiles.set(database.location, settled);
    try {
      return await mine;
    } finally {
      if (migratingFiles.get(database.location) === settled) migratingFiles.delete(database.location);
    }
  }
  // On PostgreSQL Kysely holds an advisory lock for the whole run and reads what was applied only
  // once it holds it, inside the one transaction all migrations run in.
  return run(database.db, migrationTableSchema);
}

/**
 * Kysely takes no lock on SQLite and runs its statements there outside any transaction, so two
 * processes opening a fresh file both ran 0001 ("table users already exists"). Here the whole run
 * holds SQLite's write lock from the start (BEGIN IMMEDIATE): another process waits, then reads the
 * bookkeeping the first committed and applies nothing twice; a failure leaves nothing half-done.
 */
function migrateSqlite(database: Database): Promise<string[]> {
  return database.db.connection().execute(async (connection) => {
    await beginImmediate(connection);
    try {
      const applied = await run(connection, undefined);
      await sql`commit`.execute(connection);
      return applied;
    } catch (err) {
      await sql`rollback`.execute(connection).catch(() => {});
      throw err;
    }
  });
}

async function run(db: Kysely<DB>, migrationTableSchema: string | undefined): Promise<string[]> {
  const migrator = new Migrator({
    db,
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

/** The SQLite files this process is migrating, each with the end of its last run. */
const migratingFiles = new Map<string, Promise<void>>();

/** Whether every migration this build knows is on record (false for a fresh database). */
async function upToDate(db: Kysely<DB>, schema: string | undefined): Promise<boolean> {
  const table = sql.table(schema ? `${schema}.kysely_migration` : 'kysely_migration');
  try {
    const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(db);
    const applied = new Set(rows.map((r) => r.name));
    return Object.keys(migrations).every((name) => applied.has(name));
  } catch {
    // No bookkeeping table yet: the migrator creates it.
    return false;
  }
}

/**
 * Takes SQLite's write lock. The busy timeout (5 s) covers a writer's transaction; a first
 * migration of a large database in another process can hold the lock longer, so keep waiting.
 */
async function beginImmediate(connection: Kysely<DB>): Promise<void> {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      await sql`begin immediate`.execute(connection);
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

function isInvalidSchemaName(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === '3F000';
}
