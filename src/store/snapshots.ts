import { randomUUID } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { CREDENTIALS_VERSION } from './apps.js';
import { type Database, openDatabase, sqliteHandles } from './db.js';
import { DATA_GENERATION, FAULTS_VERSION, listFaults, RESTORE_PENDING } from './faults.js';
import { clearLimits } from './limits.js';
import { migrateToLatest } from './migrate.js';
import { migrations } from './migrations/index.js';
import { putSetting } from './settings.js';

/**
 * Whole-database copies of a SQLite marketplace (src/domain/snapshots.ts), made with SQLite's own
 * means so they are consistent while servers read and write: the online backup API, which copies
 * pages under one read lock, and writes them back into the live file in one write transaction, so
 * every connection sees the old data or the new, never a mixture.
 */

function rawHandle(database: Database): BetterSqlite3.Database {
  const raw = sqliteHandles.get(database.db);
  if (!raw) throw new Error('not a SQLite database');
  return raw;
}

/**
 * Writes a copy of the live database to `path` (a new file): SQLite's online backup, all pages in
 * one step under one read lock, so the copy is one consistent state however busy the servers are
 * (and, unlike `VACUUM INTO`, rebuilds no index: about a third faster on the demo data). The copy
 * is put in rollback-journal mode, a plain single file.
 */
export async function backupTo(database: Database, path: string): Promise<void> {
  await rawHandle(database).backup(path, { progress: () => 0x7fffffff });
  const copy = new BetterSqlite3(path, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
}

/** The migrations a database file has run, or undefined when it is no cardbazaar database. */
export function migrationsOf(path: string): string[] | undefined {
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('select name from kysely_migration').all() as Array<{ name: string }>).map(
      (r) => r.name,
    );
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}

/** Announces a load to the servers on the database: requests wait until `untilMs` (real time). */
export async function announceRestore(database: Database, untilMs: number): Promise<void> {
  await putSetting(database.db, RESTORE_PENDING, String(untilMs));
}

export async function withdrawRestore(database: Database): Promise<void> {
  await database.db.deleteFrom('settings').where('key', '=', RESTORE_PENDING).execute();
}

/**
 * Prepares a copy of a snapshot (`copyPath`, a scratch file) to replace the live database: brought
 * to the live schema, with what belongs to the moment rather than to the saved world taken from the
 * live database (the faults in force; catalog versions that never go back, so no server serves a
 * cached download file built from other data under a version number it saw before), without the
 * OAuth nonces and limit counts, the load's announcement, and with a new credentials version (every cached
 * credential is checked again) and a new data generation (servers reset what they keep in memory).
 */
export async function prepareRestore(live: Database, copyPath: string): Promise<void> {
  const copy = openDatabase(copyPath);
  try {
    await migrateToLatest(copy);
    const faults = await listFaults(live.db);
    const faultsVersion = await live.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', FAULTS_VERSION)
      .executeTakeFirst();
    const liveCatalog = await live.db.selectFrom('catalogVersions').selectAll().execute();
    await copy.transaction(async (tx) => {
      await tx.deleteFrom('oauthNonces').execute();
      // The limit counts of several workers without Redis start again, as one process's would.
      await clearLimits(tx);
      await tx.deleteFrom('settings').where('key', '=', RESTORE_PENDING).execute();
      await putSetting(tx, DATA_GENERATION, randomUUID());
      await putSetting(tx, CREDENTIALS_VERSION, randomUUID());
      await tx.deleteFrom('faults').execute();
      if (faults.length > 0) await tx.insertInto('faults').values(faults).execute();
      if (faultsVersion) await putSetting(tx, FAULTS_VERSION, faultsVersion.value);
      for (const { name, version } of liveCatalog) {
        await tx
          .updateTable('catalogVersions')
          .set({ version: sql`max(${sql.ref('version')}, ${version}) + 1` })
          .where('name', '=', name)
          .execute();
      }
    });
  } finally {
    await copy.close();
  }
}

/** Copies `sourcePath` over the live database file, in one write transaction. */
export async function restoreInto(sourcePath: string, livePath: string): Promise<void> {
  const source = new BetterSqlite3(sourcePath, { readonly: true, fileMustExist: true });
  try {
    // All pages in one step after the first: the destination is locked from the first step to the
    // last anyway, and steps only add turns of the event loop.
    await source.backup(livePath, { progress: () => 0x7fffffff });
  } finally {
    source.close();
  }
}

/** The migrations this build knows, to tell a snapshot from a newer build. */
export const knownMigrations = () => new Set(Object.keys(migrations));

/**
 * An in-memory database (`DATABASE_URL=:memory:`) lives in this process alone, so its snapshots do
 * too: the database as SQLite's own serialization (one consistent copy of every page).
 */
export async function serializeDatabase(database: Database): Promise<Buffer> {
  const raw = rawHandle(database);
  // The one connection sees its own open transaction's writes: a copy waits until none is open.
  await outsideTransaction(raw);
  return raw.serialize();
}

/** Resolves when the connection has no transaction open (requests' transactions await between statements). */
async function outsideTransaction(raw: BetterSqlite3.Database): Promise<void> {
  for (let waited = 0; raw.inTransaction; waited += 5) {
    if (waited > 15_000) throw new Error('the database stayed inside a transaction for 15 s');
    await new Promise((r) => setTimeout(r, 5));
  }
}

const WRITTEN = 'cbSnapshotWritten';
const tracked = new WeakSet<BetterSqlite3.Database>();

const tableNames = (raw: BetterSqlite3.Database, schema: string): string[] =>
  raw
    .prepare(
      `select name from ${schema}.sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\' order by name`,
    )
    .pluck()
    .all() as string[];

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Notes, from now on, which tables of an in-memory database are written (TEMP triggers: they live
 * in this connection only, never in the data or its snapshots), so that loading a snapshot copies
 * back only those instead of all fifty (the catalog's hundred thousand rows are rarely written by
 * a test, and copying them took seconds).
 */
export function trackWrites(database: Database): void {
  const raw = rawHandle(database);
  if (tracked.has(raw)) return;
  // No key to conflict on: the outer statement's conflict policy (an upsert's, `or replace`) would
  // apply to the trigger's insert too; the `where not exists` keeps one row per table instead.
  raw.exec(`create temp table if not exists ${WRITTEN} (name text not null)`);
  for (const table of tableNames(raw, 'main')) {
    const literal = `'${table.replace(/'/g, "''")}'`;
    for (const event of ['insert', 'update', 'delete']) {
      raw.exec(
        `create temp trigger if not exists ${quoted(`${WRITTEN}_${table}_${event}`)} after ${event} on main.${quoted(table)} ` +
          `begin insert into temp.${WRITTEN} (name) select ${literal} where not exists ` +
          `(select 1 from temp.${WRITTEN} where name = ${literal}); end`,
      );
    }
  }
  tracked.add(raw);
}

/** The tables written since the last call (or since `trackWrites`), forgotten as they are read. */
export function takeWrittenTables(database: Database): string[] {
  const raw = rawHandle(database);
  if (!tracked.has(raw)) return [];
  const names = raw.prepare(`select distinct name from temp.${WRITTEN}`).pluck().all() as string[];
  raw.exec(`delete from temp.${WRITTEN}`);
  return names;
}

/**
 * Replaces the rows of `tables` (every table when undefined) of the live database with those of
 * the database file at `sourcePath`, in one write transaction run without a pause: nothing else
 * this process does runs in between, so every request sees the old data or the new. Foreign keys
 * are off meanwhile, so that emptying a parent table cascades into no child table left as it is.
 */
export async function copyTablesFrom(
  database: Database,
  sourcePath: string,
  /** Asked right before the copy, with nothing else running: what was written up to that moment counts. */
  tables?: () => Iterable<string>,
): Promise<void> {
  const raw = rawHandle(database);
  // A request already past the announcement may be inside a transaction on this one connection:
  // the copy waits for it to end (it would otherwise become part of it), then runs at once.
  await outsideTransaction(raw);
  raw.prepare('attach database ? as cbSnapshotSource').run(sourcePath);
  raw.pragma('foreign_keys = OFF');
  try {
    const source = new Set(tableNames(raw, 'cbSnapshotSource'));
    const wanted = tables ? new Set(tables()) : undefined;
    raw.transaction(() => {
      for (const table of tableNames(raw, 'main')) {
        if ((wanted && !wanted.has(table)) || !source.has(table)) continue;
        const columns = (
          raw.prepare(`select name from pragma_table_info(?, 'main')`).pluck().all(table) as string[]
        )
          .map(quoted)
          .join(', ');
        raw.exec(`delete from main.${quoted(table)}`);
        raw.exec(
          `insert into main.${quoted(table)} (${columns}) select ${columns} from cbSnapshotSource.${quoted(table)}`,
        );
      }
      // The AUTOINCREMENT counters: ids handed out after the snapshot are handed out again.
      raw.exec('delete from main.sqlite_sequence');
      raw.exec('insert into main.sqlite_sequence select * from cbSnapshotSource.sqlite_sequence');
    })();
  } finally {
    raw.pragma('foreign_keys = ON');
    raw.prepare('detach database cbSnapshotSource').run();
  }
}
