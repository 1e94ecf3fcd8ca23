import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, sql } from 'kysely';
import { isSqlite, withId } from './helpers.js';

/**
 * The catalog's own tables: localized expansion names, the product search index, imported price
 * guides. Search keys compare byte-wise on both dialects (SQLite's default; `collate "C"` on
 * PostgreSQL, whatever the database's locale), so a prefix is always an index range.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createSharedTablesIfMissing(db);

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
  await (isSqlite(db)
    ? sql`create index users_by_lower_username on users (lower(username))`
    : sql`create index users_by_lower_username on users ((lower(username) collate "C"))`
  ).execute(db);
}

/**
 * `priceGuides`, `reservations`, `reservationArticles`, `orders` and `orderArticles` are declared in
 * schema.ts and meant to come from 0002, which does not create them. They are created here exactly
 * as schema.ts declares them, only where missing, so this stays correct once 0002 is fixed.
 */
async function createSharedTablesIfMissing(db: Kysely<unknown>): Promise<void> {
  let priceGuides: CreateTableBuilder<string, string> = db.schema
    .createTable('priceGuides')
    .ifNotExists()
    .addColumn('idProduct', 'integer', (c) => c.primaryKey().references('products.idProduct'));
  for (const cents of [
    'sell',
    'low',
    'lowEx',
    'lowFoil',
    'avg',
    'trend',
    'trendFoil',
    'sellFoil',
    'lowGerman',
    'suggested',
    'avg1',
    'avg7',
    'avg30',
    'foilAvg1',
    'foilAvg7',
    'foilAvg30',
  ]) {
    priceGuides = priceGuides.addColumn(cents, 'bigint');
  }
  await priceGuides.addColumn('updatedAt', 'bigint', (c) => c.notNull()).execute();

  await withId(db, db.schema.createTable('reservations').ifNotExists(), 'idReservation')
    .addColumn('idBuyer', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('idSeller', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('idShippingMethod', 'integer')
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .addColumn('expiresAt', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('reservations_by_buyer_seller')
    .ifNotExists()
    .on('reservations')
    .columns(['idBuyer', 'idSeller'])
    .unique()
    .execute();

  await db.schema
    .createTable('reservationArticles')
    .ifNotExists()
    .addColumn('idReservation', 'integer', (c) => c.notNull().references('reservations.idReservation'))
    .addColumn('idArticle', 'integer', (c) => c.notNull().references('articles.idArticle'))
    .addColumn('count', 'integer', (c) => c.notNull().check(sql`"count" > 0`))
    .addPrimaryKeyConstraint('reservationArticles_pk', ['idReservation', 'idArticle'])
    .execute();
  await db.schema
    .createIndex('reservationArticles_by_article')
    .ifNotExists()
    .on('reservationArticles')
    .columns(['idArticle'])
    .execute();

  await withId(db, db.schema.createTable('orders').ifNotExists(), 'idOrder')
    .addColumn('idBuyer', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('idSeller', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('dateBought', 'bigint', (c) => c.notNull())
    .addColumn('datePaid', 'bigint')
    .addColumn('dateSent', 'bigint')
    .addColumn('dateReceived', 'bigint')
    .addColumn('dateCancelled', 'bigint')
    .addColumn('dateLost', 'bigint')
    .addColumn('lastStateChange', 'bigint', (c) => c.notNull())
    .addColumn('wasMergedInto', 'integer')
    .addColumn('idShippingMethod', 'integer')
    .addColumn('shippingMethodName', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('shippingPrice', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('isLetter', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('isInsured', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('trackingNumber', 'text')
    .addColumn('shippingName', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('shippingExtra', 'text')
    .addColumn('shippingStreet', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('shippingZip', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('shippingCity', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('shippingCountry', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('articleCount', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('articleValue', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('totalValue', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('cancellationRequestBuyer', 'text')
    .addColumn('cancellationRequestSeller', 'text')
    .addColumn('relistOnCancel', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('note', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .createIndex('orders_by_seller_state')
    .ifNotExists()
    .on('orders')
    .columns(['idSeller', 'state', 'idOrder'])
    .execute();
  await db.schema
    .createIndex('orders_by_buyer_state')
    .ifNotExists()
    .on('orders')
    .columns(['idBuyer', 'state', 'idOrder'])
    .execute();

  await db.schema
    .createTable('orderArticles')
    .ifNotExists()
    .addColumn('idOrder', 'integer', (c) => c.notNull().references('orders.idOrder'))
    .addColumn('idArticle', 'integer', (c) => c.notNull())
    .addColumn('idProduct', 'integer', (c) => c.notNull().references('products.idProduct'))
    .addColumn('idLanguage', 'integer', (c) => c.notNull())
    .addColumn('comments', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('price', 'bigint', (c) => c.notNull())
    .addColumn('condition', 'text')
    .addColumn('isFoil', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('isSigned', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('isAltered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('isPlayset', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('isFirstEd', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('isReverseHolo', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('count', 'integer', (c) => c.notNull().check(sql`"count" > 0`))
    .addPrimaryKeyConstraint('orderArticles_pk', ['idOrder', 'idArticle'])
    .execute();
  // The price guide reads a product's sales.
  await db.schema
    .createIndex('orderArticles_by_product')
    .ifNotExists()
    .on('orderArticles')
    .columns(['idProduct'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index users_by_lower_username`.execute(db);
  for (const t of ['importedPriceGuides', 'productSearchWords', 'productSearchNames', 'expansionNames']) {
    await db.schema.dropTable(t).execute();
  }
}
