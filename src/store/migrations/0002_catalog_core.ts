import { type Kysely, sql } from 'kysely';
import { withId } from './helpers.js';

// The tables several features share: the catalog, articles, the price guide, cart reservations and
// orders. Each feature adds tables only it uses in a migration of its own.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('games')
    .addColumn('idGame', 'integer', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('abbreviation', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('expansions')
    .addColumn('idExpansion', 'integer', (c) => c.primaryKey())
    .addColumn('idGame', 'integer', (c) => c.notNull().references('games.idGame'))
    .addColumn('enName', 'text', (c) => c.notNull())
    .addColumn('abbreviation', 'text', (c) => c.notNull())
    .addColumn('icon', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('releaseDate', 'bigint')
    .addColumn('isReleased', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.createIndex('expansions_by_game').on('expansions').columns(['idGame']).execute();

  await db.schema
    .createTable('metaproducts')
    .addColumn('idMetaproduct', 'integer', (c) => c.primaryKey())
    .addColumn('enName', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('products')
    .addColumn('idProduct', 'integer', (c) => c.primaryKey())
    .addColumn('idGame', 'integer', (c) => c.notNull().references('games.idGame'))
    .addColumn('idExpansion', 'integer', (c) => c.references('expansions.idExpansion'))
    .addColumn('idMetaproduct', 'integer', (c) => c.references('metaproducts.idMetaproduct'))
    .addColumn('idCategory', 'integer', (c) => c.notNull())
    .addColumn('categoryName', 'text', (c) => c.notNull())
    .addColumn('enName', 'text', (c) => c.notNull())
    .addColumn('number', 'text')
    .addColumn('rarity', 'text')
    .addColumn('isSingle', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('dateAdded', 'bigint')
    .addColumn('image', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('products_by_expansion').on('products').columns(['idExpansion']).execute();
  await db.schema.createIndex('products_by_metaproduct').on('products').columns(['idMetaproduct']).execute();
  await db.schema.createIndex('products_by_game').on('products').columns(['idGame', 'idProduct']).execute();

  await db.schema
    .createTable('productNames')
    .addColumn('idProduct', 'integer', (c) => c.notNull().references('products.idProduct'))
    .addColumn('idLanguage', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('productNames_pk', ['idProduct', 'idLanguage'])
    .execute();

  await withId(db, db.schema.createTable('articles'), 'idArticle')
    .addColumn('idUser', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('idProduct', 'integer', (c) => c.notNull().references('products.idProduct'))
    .addColumn('idLanguage', 'integer', (c) => c.notNull())
    .addColumn('comments', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('price', 'bigint', (c) => c.notNull().check(sql`"price" > 0`))
    .addColumn('condition', 'text')
    .addColumn('isFoil', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('isSigned', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('isAltered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('isPlayset', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('isFirstEd', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('isReverseHolo', 'integer', (c) => c.notNull().defaultTo(0))
    // Stock never goes negative, whatever races above it: the guard is in SQL.
    .addColumn('count', 'integer', (c) => c.notNull().check(sql`"count" >= 0`))
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .addColumn('lastEdited', 'bigint', (c) => c.notNull())
    .execute();
  // The marketplace's cheapest-first page of one product, and a seller's stock in id order.
  await db.schema
    .createIndex('articles_by_product_price')
    .on('articles')
    .columns(['idProduct', 'price', 'idArticle'])
    .execute();
  await db.schema.createIndex('articles_by_user').on('articles').columns(['idUser', 'idArticle']).execute();
  await db.schema
    .createIndex('articles_by_user_product')
    .on('articles')
    .columns(['idUser', 'idProduct'])
    .execute();

  // The effective price guide (reference §2.7): computed from the marketplace's own offers and
  // sales, with imported values standing in where it has none. Cents; null where unknown.
  let guide = db.schema
    .createTable('priceGuides')
    .addColumn('idProduct', 'integer', (c) => c.primaryKey().references('products.idProduct'));
  for (const column of PRICE_GUIDE_COLUMNS) guide = guide.addColumn(column, 'bigint');
  await guide.addColumn('updatedAt', 'bigint', (c) => c.notNull()).execute();

  // A shopping cart is one reservation per seller; reserved copies have left `articles.count`.
  await withId(db, db.schema.createTable('reservations'), 'idReservation')
    .addColumn('idBuyer', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('idSeller', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('idShippingMethod', 'integer')
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .addColumn('expiresAt', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('reservations_buyer_seller', ['idBuyer', 'idSeller'])
    .execute();
  await db.schema.createIndex('reservations_by_expiry').on('reservations').columns(['expiresAt']).execute();
  await db.schema
    .createTable('reservationArticles')
    .addColumn('idReservation', 'integer', (c) => c.notNull().references('reservations.idReservation'))
    .addColumn('idArticle', 'integer', (c) => c.notNull().references('articles.idArticle'))
    .addColumn('count', 'integer', (c) => c.notNull().check(sql`"count" > 0`))
    .addPrimaryKeyConstraint('reservationArticles_pk', ['idReservation', 'idArticle'])
    .execute();
  await db.schema
    .createIndex('reservation_articles_by_article')
    .on('reservationArticles')
    .columns(['idArticle'])
    .execute();

  await withId(db, db.schema.createTable('orders'), 'idOrder')
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
    .addColumn('isLetter', 'integer', (c) => c.notNull().defaultTo(1))
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
  // Order lists page by (party, state, id): the index serves them at any depth.
  await db.schema
    .createIndex('orders_by_seller_state')
    .on('orders')
    .columns(['idSeller', 'state', 'idOrder'])
    .execute();
  await db.schema
    .createIndex('orders_by_buyer_state')
    .on('orders')
    .columns(['idBuyer', 'state', 'idOrder'])
    .execute();

  // What was bought, frozen at checkout: the article may change or disappear afterwards.
  await db.schema
    .createTable('orderArticles')
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
  await db.schema
    .createIndex('order_articles_by_product')
    .on('orderArticles')
    .columns(['idProduct'])
    .execute();
}

/** Price guide columns (reference §2.7 and the CSV guide), in cents. */
export const PRICE_GUIDE_COLUMNS = [
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
] as const;

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'orderArticles',
    'orders',
    'reservationArticles',
    'reservations',
    'priceGuides',
    'articles',
    'productNames',
    'products',
    'metaproducts',
    'expansions',
    'games',
  ]) {
    await db.schema.dropTable(t).execute();
  }
}
