import { type Kysely, sql } from 'kysely';
import { withId } from './helpers.js';

/**
 * Trading: the cart, orders and the money they hold.
 *
 * The shared tables `reservations`, `reservationArticles`, `orders` and `orderArticles` are typed in
 * `schema.ts` as part of migration 0002, which does not create them; they are created here, with
 * `if not exists`, exactly as `schema.ts` describes them, so this migration also runs on a database
 * where a later fix of 0002 has created them already. Everything only trading uses (columns added
 * to `orders`, shipping methods, evaluations, the cart's shipping address, order counters, seller
 * statistics) is added unconditionally.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sharedTables(db);

  // What only trading needs on an order.
  await db.schema
    .alterTable('orders')
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // The part of the total that came from each balance when the order was paid: a refund gives each
  // part back where it came from. Money held by an order = these two, while it is paid or sent.
  await db.schema
    .alterTable('orders')
    .addColumn('paidFromMoney', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('orders')
    .addColumn('paidFromBonus', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('orders').addColumn('cancellationReason', 'text').execute();
  await db.schema.alterTable('orders').addColumn('cancellationRequestBuyerDate', 'bigint').execute();
  await db.schema.alterTable('orders').addColumn('cancellationRequestSellerDate', 'bigint').execute();

  // The demo table of shipping methods (README "Shipping"): one price per zone between the seller's
  // country and the destination; letters only up to a number of articles and (uninsured) a value.
  await db.schema
    .createTable('shippingMethods')
    .addColumn('idShippingMethod', 'integer', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('isLetter', 'integer', (c) => c.notNull())
    .addColumn('isInsured', 'integer', (c) => c.notNull())
    .addColumn('maxArticles', 'integer')
    .addColumn('maxArticleValue', 'bigint')
    .addColumn('priceDomestic', 'bigint', (c) => c.notNull())
    .addColumn('priceEurope', 'bigint', (c) => c.notNull())
    .addColumn('priceWorld', 'bigint', (c) => c.notNull())
    .execute();
  await db
    .insertInto('shippingMethods' as never)
    .values([
      method(1, 'Standard letter', 1, 0, 4, 2500, 115, 145, 210),
      method(2, 'Compact letter', 1, 0, 17, 2500, 170, 230, 310),
      method(3, 'Large letter', 1, 0, 40, 2500, 260, 400, 550),
      method(4, 'Registered letter', 1, 1, 40, null, 410, 620, 780),
      method(5, 'Tracked parcel', 0, 1, null, null, 699, 1599, 2999),
    ] as never)
    .execute();

  // Where the buyer's next checkout ships to; without a row, the home address.
  await db.schema
    .createTable('cartShippingAddresses')
    .addColumn('idUser', 'integer', (c) => c.primaryKey().references('users.idUser'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('extra', 'text')
    .addColumn('street', 'text', (c) => c.notNull())
    .addColumn('zip', 'text', (c) => c.notNull())
    .addColumn('city', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('orderEvaluations')
    .addColumn('idOrder', 'integer', (c) => c.primaryKey().references('orders.idOrder'))
    .addColumn('idSeller', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('evaluationGrade', 'integer', (c) => c.notNull())
    .addColumn('itemDescription', 'integer', (c) => c.notNull())
    .addColumn('packaging', 'integer', (c) => c.notNull())
    .addColumn('speed', 'integer', (c) => c.notNull())
    .addColumn('comment', 'text', (c) => c.notNull())
    /** JSON array of complaint codes. */
    .addColumn('complaints', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .execute();

  // How many orders each user has per role and state, kept in the transitions' transactions, so a
  // list's Content-Range total costs one row read whether the user has ten orders or a million.
  await db.schema
    .createTable('orderCounts')
    .addColumn('idUser', 'integer', (c) => c.notNull())
    /** 1 seller, 2 buyer (the API's actor codes). */
    .addColumn('actor', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull().check(sql`"count" >= 0`))
    .addPrimaryKeyConstraint('orderCounts_pk', ['idUser', 'actor', 'state'])
    .execute();

  // Running sums behind a seller's avgShippingTime and reputation.
  await db.schema
    .createTable('sellerStats')
    .addColumn('idUser', 'integer', (c) => c.primaryKey().references('users.idUser'))
    .addColumn('shippedOrders', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('shippingTimeTotalMs', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('ratedEvaluations', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('evaluationGradeTotal', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}

function method(
  idShippingMethod: number,
  name: string,
  isLetter: number,
  isInsured: number,
  maxArticles: number | null,
  maxArticleValue: number | null,
  priceDomestic: number,
  priceEurope: number,
  priceWorld: number,
) {
  return {
    idShippingMethod,
    name,
    isLetter,
    isInsured,
    maxArticles,
    maxArticleValue,
    priceDomestic,
    priceEurope,
    priceWorld,
  };
}

/**
 * The shared tables of `schema.ts` (reservations and orders), created only where missing, exactly
 * as the corrected migration 0002 on main creates them; then the two order-list indexes are
 * replaced by partial ones that hold only unmerged orders, which is all the lists read.
 */
async function sharedTables(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('reservations').ifNotExists(), 'idReservation')
    .addColumn('idBuyer', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('idSeller', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('idShippingMethod', 'integer')
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .addColumn('expiresAt', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('reservations_buyer_seller', ['idBuyer', 'idSeller'])
    .execute();
  await db.schema
    .createIndex('reservations_by_expiry')
    .ifNotExists()
    .on('reservations')
    .columns(['expiresAt'])
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
    .createIndex('reservation_articles_by_article')
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

  await db.schema
    .createTable('orderArticles')
    .ifNotExists()
    .addColumn('idOrder', 'integer', (c) => c.notNull().references('orders.idOrder'))
    // No reference to articles: an article sold out is deleted, its order lines stay.
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
    .ifNotExists()
    .on('orderArticles')
    .columns(['idProduct'])
    .execute();

  // A seller's reservations (going on vacation releases them).
  await db.schema
    .createIndex('reservations_by_seller')
    .ifNotExists()
    .on('reservations')
    .columns(['idSeller'])
    .execute();

  // A user's orders of one state in id order, as seller and as buyer, unmerged ones only: a list
  // page's ids come from the index alone, however deep the page.
  for (const [name, party] of [
    ['orders_by_seller_state', 'idSeller'],
    ['orders_by_buyer_state', 'idBuyer'],
  ] as const) {
    await db.schema.dropIndex(name).ifExists().execute();
    await db.schema
      .createIndex(name)
      .on('orders')
      .columns([party, 'state', 'idOrder'])
      .where(sql.ref('wasMergedInto'), 'is', null)
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [
    'sellerStats',
    'orderCounts',
    'orderEvaluations',
    'cartShippingAddresses',
    'shippingMethods',
  ]) {
    await db.schema.dropTable(t).execute();
  }
  for (const [name, party] of [
    ['orders_by_seller_state', 'idSeller'],
    ['orders_by_buyer_state', 'idBuyer'],
  ] as const) {
    await db.schema.dropIndex(name).execute();
    await db.schema.createIndex(name).on('orders').columns([party, 'state', 'idOrder']).execute();
  }
  for (const c of [
    'cancellationRequestSellerDate',
    'cancellationRequestBuyerDate',
    'cancellationReason',
    'paidFromBonus',
    'paidFromMoney',
    'revision',
  ]) {
    await db.schema.alterTable('orders').dropColumn(c).execute();
  }
}
