import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely';
import { isSqlite } from './helpers.js';

/**
 * The catalog's own tables: localized expansion names, the product search index, imported price
 * guides. Search keys compare byte-wise on both dialects (SQLite's default; `collate "C"` on
 * PostgreSQL, whatever the database's locale), so a prefix is always an index range.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const bytewise = (c: ColumnDefinitionBuilder) => (isSqlite(db) ? c : c.modifyEnd(sql`collate "C"`));

  await db.schema
    .createTable('expansionNames')
    .addColumn('idExpansion', 'integer', (c) => c.notNull().references('expansions.idExpansion'))
    .addColumn('idLanguage', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('expansionNames_pk', ['idExpansion', 'idLanguage'])
    .execute();

  // One row per product and language: the name folded for search (lower case, no accents, words
  // separated by single spaces). Exact searches look it up; word searches filter on it.
  await db.schema
    .createTable('productSearchNames')
    .addColumn('idProduct', 'integer', (c) => c.notNull().references('products.idProduct'))
    .addColumn('idLanguage', 'integer', (c) => c.notNull())
    .addColumn('idGame', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => bytewise(c.notNull()))
    .addPrimaryKeyConstraint('productSearchNames_pk', ['idProduct', 'idLanguage'])
    .execute();
  await db.schema
    .createIndex('productSearchNames_by_name')
    .on('productSearchNames')
    .columns(['idLanguage', 'name', 'idGame'])
    .execute();

  // Every word of every name: a search for "drag" is the range "drag" <= word < "drah" of one
  // language, covered by the primary key.
  await db.schema
    .createTable('productSearchWords')
    .addColumn('idLanguage', 'integer', (c) => c.notNull())
    .addColumn('word', 'text', (c) => bytewise(c.notNull()))
    .addColumn('idGame', 'integer', (c) => c.notNull())
    .addColumn('idProduct', 'integer', (c) => c.notNull().references('products.idProduct'))
    .addPrimaryKeyConstraint('productSearchWords_pk', ['idLanguage', 'word', 'idGame', 'idProduct'])
    .execute();
  await db.schema
    .createIndex('productSearchWords_by_product')
    .on('productSearchWords')
    .columns(['idProduct'])
    .execute();

  // Price guides as a file import gave them (cents). The effective guide in `priceGuides` takes the
  // marketplace's own figures first and these where it has none.
  await db.schema
    .createTable('importedPriceGuides')
    .addColumn('idProduct', 'integer', (c) => c.primaryKey().references('products.idProduct'))
    .addColumn('sell', 'bigint')
    .addColumn('low', 'bigint')
    .addColumn('trend', 'bigint')
    .addColumn('avg1', 'bigint')
    .addColumn('avg7', 'bigint')
    .addColumn('avg30', 'bigint')
    .addColumn('sellFoil', 'bigint')
    .addColumn('lowFoil', 'bigint')
    .addColumn('trendFoil', 'bigint')
    .addColumn('foilAvg1', 'bigint')
    .addColumn('foilAvg7', 'bigint')
    .addColumn('foilAvg30', 'bigint')
    .addColumn('importedAt', 'bigint', (c) => c.notNull())
    .execute();

  // Case-insensitive username prefix search (GET /users/find) as an index range.
  await (
    isSqlite(db)
      ? sql`create index users_by_lower_username on users (lower(username))`
      : sql`create index users_by_lower_username on users ((lower(username) collate "C"))`
  ).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index users_by_lower_username`.execute(db);
  for (const t of ['importedPriceGuides', 'productSearchWords', 'productSearchNames', 'expansionNames']) {
    await db.schema.dropTable(t).execute();
  }
}
