import { type Kysely, sql } from 'kysely';
import { isSqlite } from './helpers.js';

/**
 * What `GET /products/find` reads, made cheap.
 *
 * The offer counts a list of products shows (`countArticles`, `countFoils`: 100 products and about
 * 1,000 offers a page) need the foil flag beside what `articles_offers` holds: with it they read the
 * index alone and each seller's row, not one table row per offer (about 4 µs each on a marketplace
 * of a million offers, the largest part of a search page's database time). The index keeps its
 * name and its leading columns.
 *
 * A version of the search index (`catalogVersions` row `productSearch`), raised by the database on
 * every write to `productSearchNames` (every change of a product's indexed names writes there, in
 * the transaction that changes them): the products a search finds are kept per version and
 * search, and the next request after any write searches again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('articles_offers').execute();
  await db.schema
    .createIndex('articles_offers')
    .on('articles')
    .columns(['idProduct', 'price', 'idArticle', 'count', 'idUser', 'isFoil'])
    .execute();

  await db
    .insertInto('catalogVersions' as never)
    .values({ name: 'productSearch', version: 0 } as never)
    .execute();
  if (isSqlite(db)) {
    for (const event of ['insert', 'update', 'delete']) {
      await sql
        .raw(
          `create trigger "productSearchNames_version_${event}" after ${event} on "productSearchNames" begin ` +
            `update "catalogVersions" set "version" = "version" + 1 where "name" = 'productSearch'; end`,
        )
        .execute(db);
    }
    return;
  }
  // The function 0011 created: one update per statement, however many rows it changed.
  await sql
    .raw(
      `create trigger "productSearchNames_version" after insert or update or delete or truncate ` +
        `on "productSearchNames" for each statement execute function "bumpCatalogVersion"('productSearch')`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    for (const event of ['insert', 'update', 'delete']) {
      await sql.raw(`drop trigger "productSearchNames_version_${event}"`).execute(db);
    }
  } else {
    await sql.raw(`drop trigger "productSearchNames_version" on "productSearchNames"`).execute(db);
  }
  await db
    .deleteFrom('catalogVersions' as never)
    .where('name' as never, '=', 'productSearch' as never)
    .execute();
  await db.schema.dropIndex('articles_offers').execute();
  await db.schema
    .createIndex('articles_offers')
    .on('articles')
    .columns(['idProduct', 'price', 'idArticle', 'count', 'idUser'])
    .execute();
}
