import { type Kysely, sql } from 'kysely';
import { isSqlite } from './helpers.js';

/**
 * A version number per catalog table that the catalog download files are built from, raised by the
 * database itself on every insert, update and delete. Triggers rather than calls in the code: the
 * catalog is written by the importer, the demo generator, the price-guide job, fixtures and tests,
 * and a file served from a cache must never miss one of them. The download files keep a built copy
 * per version, so a poll costs one read of this table until something changes.
 */
const TABLES = ['products', 'priceGuides'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('catalogVersions')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  await db
    .insertInto('catalogVersions' as never)
    .values(TABLES.map((name) => ({ name, version: 0 })) as never)
    .execute();

  if (isSqlite(db)) {
    // SQLite has row triggers only: one small update per changed row.
    for (const table of TABLES) {
      for (const event of ['insert', 'update', 'delete']) {
        await sql
          .raw(
            `create trigger "${table}_version_${event}" after ${event} on "${table}" begin ` +
              `update "catalogVersions" set "version" = "version" + 1 where "name" = '${table}'; end`,
          )
          .execute(db);
      }
    }
    return;
  }
  // PostgreSQL: one update per statement, however many rows it changed.
  await sql
    .raw(
      `create function "bumpCatalogVersion"() returns trigger language plpgsql as $$ begin ` +
        `update "catalogVersions" set "version" = "version" + 1 where "name" = TG_ARGV[0]; return null; end $$`,
    )
    .execute(db);
  for (const table of TABLES) {
    await sql
      .raw(
        `create trigger "${table}_version" after insert or update or delete or truncate on "${table}" ` +
          `for each statement execute function "bumpCatalogVersion"('${table}')`,
      )
      .execute(db);
  }
}
