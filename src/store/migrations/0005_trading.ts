import { type Kysely, sql } from 'kysely';

/**
 * Trading: the cart, orders and the money they hold. The shared tables (reservations, orders and
 * their lines) come from 0002; here is what only trading uses: columns added to `orders`, shipping
 * methods, evaluations, the cart's shipping address, order counters and seller statistics.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await orderListIndexes(db);

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
 * The two order-list indexes of 0002 are replaced by partial ones that hold only unmerged orders,
 * which is all the lists read.
 */
async function orderListIndexes(db: Kysely<unknown>): Promise<void> {
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
