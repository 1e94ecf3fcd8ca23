import { type Kysely, sql } from 'kysely';
import { isSqlite } from './helpers.js';

/**
 * A version of what a listed product shows but its offer counts (`catalogVersions` row
 * `productInfo`): the product, its names, its game's name, its expansion and how many printings
 * its metaproduct bundles. Raised by the database on every write to those tables, in the writing
 * transaction, so `GET /products/find` keeps the products it lists per version and reads only their
 * offer counts while the catalog stands still (the offer counts move with every stock write).
 */
const TABLES = ['products', 'productNames', 'games', 'expansions'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db
    .insertInto('catalogVersions' as never)
    .values({ name: 'productInfo', version: 0 } as never)
    .execute();
  for (const table of TABLES) {
    if (isSqlite(db)) {
      for (const event of ['insert', 'update', 'delete']) {
        await sql
          .raw(
            `create trigger "${table}_info_version_${event}" after ${event} on "${table}" begin ` +
              `update "catalogVersions" set "version" = "version" + 1 where "name" = 'productInfo'; end`,
          )
          .execute(db);
      }
    } else {
      // The function 0011 created: one update per statement, however many rows it changed.
      await sql
        .raw(
          `create trigger "${table}_info_version" after insert or update or delete or truncate on "${table}" ` +
            `for each statement execute function "bumpCatalogVersion"('productInfo')`,
        )
        .execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    if (isSqlite(db)) {
      for (const event of ['insert', 'update', 'delete']) {
        await sql.raw(`drop trigger "${table}_info_version_${event}"`).execute(db);
      }
    } else {
      await sql.raw(`drop trigger "${table}_info_version" on "${table}"`).execute(db);
    }
  }
  await db
    .deleteFrom('catalogVersions' as never)
    .where('name' as never, '=', 'productInfo' as never)
    .execute();
}
