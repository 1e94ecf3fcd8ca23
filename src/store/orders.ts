import { sql } from 'kysely';
import {
  ARTICLE_VALUE_COLUMNS,
  type ArticleView,
  articleViewOf,
  PRODUCT_FACT_COLUMNS,
  PRODUCT_FACTS_PACKED,
} from './articles.js';
import type { Executor } from './db.js';
import { type PackedKind, packedRow } from './packed.js';
import { pageBound, prepared, preparedBySize, unplanned, unplannedText } from './prepared.js';
import type { Order, OrderArticle, OrderEvaluation, OrderState, OrdersTable } from './schema.js';

/**
 * Orders, their frozen lines, and the numbers kept beside them (per-user counts by role and state,
 * seller statistics). Merged orders (`wasMergedInto` set) are records only: lists, counts and stock
 * never include them, because the order they were merged into holds their articles.
 */

export const ACTOR_SELLER = 1;
export const ACTOR_BUYER = 2;
export type Actor = typeof ACTOR_SELLER | typeof ACTOR_BUYER;

/**
 * Inserts an order given in full and returns it as a read of it would: every column is in `order`,
 * so only the new id comes back (a row of forty columns read back costs more than the insert).
 */
export async function insertOrder(db: Executor, order: Omit<Order, 'idOrder'>): Promise<Order> {
  const { idOrder } = (await insertOne(db, order)).rows[0]!;
  return { idOrder, ...order };
}

const INSERTED_ORDER_COLUMNS = [
  'idBuyer',
  'idSeller',
  'state',
  'dateBought',
  'datePaid',
  'dateSent',
  'dateReceived',
  'dateCancelled',
  'dateLost',
  'lastStateChange',
  'wasMergedInto',
  'idShippingMethod',
  'shippingMethodName',
  'shippingPrice',
  'isLetter',
  'isInsured',
  'trackingNumber',
  'shippingName',
  'shippingExtra',
  'shippingStreet',
  'shippingZip',
  'shippingCity',
  'shippingCountry',
  'articleCount',
  'articleValue',
  'totalValue',
  'cancellationRequestBuyer',
  'cancellationRequestSeller',
  'relistOnCancel',
  'note',
  'revision',
  'paidFromMoney',
  'paidFromBonus',
  'cancellationReason',
  'cancellationRequestBuyerDate',
  'cancellationRequestSellerDate',
] as const satisfies ReadonlyArray<keyof Omit<Order, 'idOrder'>>;
// Every column of an order, or the insert would leave one to its default (a compile error here).
const allOrderColumns: [
  Exclude<keyof Omit<Order, 'idOrder'>, (typeof INSERTED_ORDER_COLUMNS)[number]>,
] extends [never]
  ? true
  : never = true;
void allOrderColumns;

const orderValues = (order: Omit<Order, 'idOrder'>) => INSERTED_ORDER_COLUMNS.map((c) => order[c]);

// Every checkout inserts orders of forty columns: built and compiled once per dialect.
const insertOne = preparedBySize(
  (db: Executor, order: Omit<Order, 'idOrder'>) =>
    sql<{ idOrder: number }>`insert into "orders" (${sql.join(INSERTED_ORDER_COLUMNS.map((c) => sql.ref(c)))})
      values (${sql.join(orderValues(order))}) returning "idOrder"`.compile(db),
  () => 1,
  orderValues,
);

const orderById = prepared(
  (db, idOrder: number) => db.selectFrom('orders').selectAll().where('idOrder', '=', idOrder),
  [0],
);

export async function findOrder(db: Executor, idOrder: number): Promise<Order | undefined> {
  return (await orderById(db, idOrder))[0];
}

export async function findOrders(db: Executor, idOrders: number[]): Promise<Order[]> {
  if (idOrders.length === 0) return [];
  return db.selectFrom('orders').selectAll().where('idOrder', 'in', idOrders).orderBy('idOrder').execute();
}

/** The buyer's unpaid order with this seller that a new checkout merges into, if any. */
export async function openOrderBetween(
  db: Executor,
  idBuyer: number,
  idSeller: number,
): Promise<Order | undefined> {
  return (await openOrder(db, idBuyer, idSeller)).rows[0];
}

// Asked by every checkout: compiled once per dialect (a fixed size).
const openOrder = preparedBySize(
  (db: Executor, idBuyer: number, idSeller: number) =>
    db
      .selectFrom('orders')
      .selectAll()
      .where('idBuyer', '=', idBuyer)
      // A literal, not a parameter: the statement binds exactly the two parties.
      .where('state', '=', sql<OrderState>`'bought'`)
      .where('idSeller', '=', idSeller)
      .where('wasMergedInto', 'is', null)
      .orderBy('idOrder')
      .limit(sql.lit(1))
      .compile(),
  () => 1,
  (idBuyer, idSeller) => [idBuyer, idSeller],
);

export type OrderChanges = Partial<Omit<OrdersTable, 'idOrder' | 'revision'>>;

/**
 * Applies changes only if the order is still at the revision they were decided on, and bumps the
 * revision. False means someone else changed the order meanwhile (the caller answers 412). On
 * PostgreSQL the row lock makes the second of two concurrent updates wait and then find the new
 * revision; on SQLite transactions run one at a time.
 */
export async function updateOrderIf(
  db: Executor,
  idOrder: number,
  revision: number,
  changes: OrderChanges,
): Promise<boolean> {
  const r = await db
    .updateTable('orders')
    .set({ ...changes, revision: revision + 1 })
    .where('idOrder', '=', idOrder)
    .where('revision', '=', revision)
    .executeTakeFirst();
  return r.numUpdatedRows === 1n;
}

export async function insertOrderLines(db: Executor, lines: OrderArticle[]): Promise<void> {
  if (lines.length === 0) return;
  await insertLines(db, lines);
}

const LINE_COLUMNS = ['idOrder', 'idArticle', ...ARTICLE_VALUE_COLUMNS] as const satisfies ReadonlyArray<
  keyof OrderArticle
>;

const lineValues = (l: OrderArticle) => LINE_COLUMNS.map((c) => l[c]);

/**
 * Every line's values in one flat array, in `LINE_COLUMNS` order: a loop of named reads generated
 * from the list (the list's `l[c]`, a read by a key that changes every time, and an array per line
 * cost about 1.5 µs a line: a tenth of the checkout's own JavaScript).
 */
const flatLineValues = new Function(
  'lines',
  `const n = lines.length, v = new Array(n * ${LINE_COLUMNS.length});
  for (let i = 0, j = 0; i < n; i++) {
    const l = lines[i];
    ${LINE_COLUMNS.map((c) => `v[j++] = l[${JSON.stringify(c)}];`).join(' ')}
  }
  return v;`,
) as (lines: OrderArticle[]) => unknown[];

// A checkout freezes up to a hundred lines at once: the statement's text is built once per size.
const insertLines = preparedBySize(
  (db: Executor, lines: OrderArticle[]) =>
    sql`insert into "orderArticles" (${sql.join(LINE_COLUMNS.map((c) => sql.ref(c)))})
      values ${sql.join(lines.map((l) => sql`(${sql.join(lineValues(l))})`))}`.compile(db),
  (lines) => lines.length,
  flatLineValues,
);

/**
 * Adds lines to an order, summing copies into the line of the same article (one line per article:
 * the caller makes sure its price is the same).
 */
export async function mergeOrderLines(db: Executor, idOrder: number, lines: OrderArticle[]): Promise<void> {
  for (const line of lines) {
    const r = await db
      .updateTable('orderArticles')
      .set((eb) => ({ count: eb('count', '+', line.count) }))
      .where('idOrder', '=', idOrder)
      .where('idArticle', '=', line.idArticle)
      .executeTakeFirst();
    if (r.numUpdatedRows === 0n) await insertOrderLines(db, [{ ...line, idOrder }]);
  }
}

/** The frozen lines of one order. */
export async function orderLineRows(db: Executor, idOrder: number): Promise<OrderArticle[]> {
  return db
    .selectFrom('orderArticles')
    .selectAll()
    .where('idOrder', '=', idOrder)
    .orderBy('idArticle')
    .execute();
}

/**
 * A line and its product's facts (`PRODUCT_FACT_COLUMNS`' names), packed into one text
 * (`packedRow`): a page of 100 orders reads 100 lines of some 25 values.
 */
const packedLine = packedRow<OrderArticle & Record<`p_${string}`, unknown>>([
  ['idOrder', 'integer', 'l.idOrder'],
  ['idArticle', 'integer', 'l.idArticle'],
  ['idProduct', 'integer', 'l.idProduct'],
  ['idLanguage', 'integer', 'l.idLanguage'],
  ['comments', 'text', 'l.comments'],
  ['price', 'integer', 'l.price'],
  ['condition', 'text?', 'l.condition'],
  ['isFoil', 'integer', 'l.isFoil'],
  ['isSigned', 'integer', 'l.isSigned'],
  ['isAltered', 'integer', 'l.isAltered'],
  ['isPlayset', 'integer', 'l.isPlayset'],
  ['isFirstEd', 'integer', 'l.isFirstEd'],
  ['isReverseHolo', 'integer', 'l.isReverseHolo'],
  ['count', 'integer', 'l.count'],
  ...PRODUCT_FACTS_PACKED,
]);

// A page's lines: the statement's text is compiled once per number of orders.
const linesOf = preparedBySize(
  (db: Executor, ids: number[], low: number, high: number, packed: boolean) =>
    db
      .selectFrom('orderArticles as l')
      .innerJoin('products as p', 'p.idProduct', 'l.idProduct')
      .leftJoin('expansions as e', 'e.idExpansion', 'p.idExpansion')
      .leftJoin('productNames as n', (join) =>
        join.onRef('n.idProduct', '=', 'l.idProduct').onRef('n.idLanguage', '=', 'l.idLanguage'),
      )
      // Packed, with the key to read the rare line whose texts hold the separator the ordinary way.
      .$if(packed, (q) => q.select(['l.idOrder', 'l.idArticle', packedLine.select().as('packed')]))
      .$if(!packed, (q) => q.selectAll('l').select(PRODUCT_FACT_COLUMNS))
      .where('l.idOrder', 'in', ids.map(unplanned))
      // The same rows: the bounds only tell PostgreSQL's planner how few they are. Against a list of
      // a hundred ids alone it estimates a scan of the whole table (of a seller with 10,000 orders)
      // as cheaper than a hundred index probes, and reads every line.
      .where('l.idOrder', '>=', unplanned(low))
      .where('l.idOrder', '<=', unplanned(high))
      .orderBy('l.idOrder')
      .orderBy('l.idArticle')
      .compile(),
  (ids, _low, _high, packed) => ids.length * 2 + (packed ? 1 : 0),
  (ids, low, high) => [...ids, low, high],
);

/** The rows of these lines, packed where they can be, as `articleViewOf` reads them. */
async function lineRows(db: Executor, ids: number[], low: number, high: number) {
  const rows = (await linesOf(db, ids, low, high, true)).rows as unknown as Array<{
    idOrder: number;
    idArticle: number;
    packed: string | null;
  }>;
  const lines = rows.map((r) => packedLine.unpack(r.packed));
  if (lines.every((l) => l !== undefined)) return lines;
  // Some line's texts hold the separator: its order's lines read the ordinary way.
  const again = [...new Set(rows.filter((_, i) => lines[i] === undefined).map((r) => r.idOrder))];
  const plain = (await linesOf(db, again, Math.min(...again), Math.max(...again), false)).rows;
  const byKey = new Map(plain.map((r) => [`${r.idOrder}:${r.idArticle}`, r]));
  return rows.map((r, i) => lines[i] ?? byKey.get(`${r.idOrder}:${r.idArticle}`)!);
}

export interface OrderLineView {
  idOrder: number;
  view: ArticleView;
}

/**
 * The lines of these orders as Article views (the product facts joined as for live articles), so
 * the one Article mapper renders them; the frozen price and count are the line's.
 */
export async function orderLineViews(
  db: Executor,
  orders: Array<Pick<Order, 'idOrder' | 'idSeller' | 'dateBought'>>,
): Promise<OrderLineView[]> {
  if (orders.length === 0) return [];
  const ofOrder = new Map(orders.map((o) => [o.idOrder, o]));
  const ids = [...ofOrder.keys()];
  let low = ids[0]!;
  let high = low;
  for (const id of ids) {
    if (id < low) low = id;
    if (id > high) high = id;
  }
  const rows = await lineRows(db, ids, low, high);
  // Shaped field by field (a page of 100 orders shapes every line): the line's columns are the
  // article's, its seller and purchase time stand for the article's owner and times.
  return rows.map((r) => {
    const order = ofOrder.get(r.idOrder as number)!;
    const view = articleViewOf(r as unknown as Parameters<typeof articleViewOf>[0]);
    view.idUser = order.idSeller;
    view.createdAt = order.dateBought;
    view.lastEdited = order.dateBought;
    return { idOrder: r.idOrder as number, view };
  });
}

// ---------------------------------------------------------------------------------------------
// Lists and counts

/** Changes a user's count of orders in one role and state (a row per user, role and state). */
async function bumpOrderCount(
  db: Executor,
  idUser: number,
  actor: Actor,
  state: OrderState,
  delta: number,
): Promise<void> {
  if (delta < 0) {
    // An upsert would check its proposed row (a negative count) against the CHECK first.
    await db
      .updateTable('orderCounts')
      .set((eb) => ({ count: eb('count', '+', delta) }))
      .where('idUser', '=', idUser)
      .where('actor', '=', actor)
      .where('state', '=', state)
      .execute();
    return;
  }
  await db
    .insertInto('orderCounts')
    .values({ idUser, actor, state, count: delta })
    .onConflict((oc) =>
      oc.columns(['idUser', 'actor', 'state']).doUpdateSet((eb) => ({
        count: eb('orderCounts.count', '+', eb.ref('excluded.count')),
      })),
    )
    .execute();
}

/** Moves an order from one state to another in both parties' counts (`from` null: a new order). */
export async function moveOrderCounts(
  db: Executor,
  order: Pick<Order, 'idSeller' | 'idBuyer'>,
  from: OrderState | null,
  to: OrderState,
): Promise<void> {
  // Always the same order of rows (seller before buyer, old state before new), so concurrent
  // transitions on PostgreSQL take their row locks in one order and cannot deadlock each other.
  if (!from) {
    await countNewOrder(db, order.idSeller, order.idBuyer, to);
    return;
  }
  await bumpOrderCount(db, order.idSeller, ACTOR_SELLER, from, -1);
  await bumpOrderCount(db, order.idSeller, ACTOR_SELLER, to, 1);
  await bumpOrderCount(db, order.idBuyer, ACTOR_BUYER, from, -1);
  await bumpOrderCount(db, order.idBuyer, ACTOR_BUYER, to, 1);
}

// A new order: both parties' rows in one upsert (its rows are taken in the order listed). Every
// checkout runs it: compiled once per dialect.
const countNewOrder = preparedBySize(
  (db: Executor, idSeller: number, idBuyer: number, state: OrderState) =>
    db
      .insertInto('orderCounts')
      .values([
        { idUser: idSeller, actor: sql.lit(ACTOR_SELLER), state, count: sql.lit(1) },
        { idUser: idBuyer, actor: sql.lit(ACTOR_BUYER), state, count: sql.lit(1) },
      ])
      .onConflict((oc) =>
        oc.columns(['idUser', 'actor', 'state']).doUpdateSet((eb) => ({
          count: eb('orderCounts.count', '+', eb.ref('excluded.count')),
        })),
      )
      .compile(),
  () => 1,
  (idSeller, idBuyer, state) => [idSeller, state, idBuyer, state],
);

const countOf = prepared(
  (db, idUser: number, actor: number, state: string) =>
    db
      .selectFrom('orderCounts')
      .select('count')
      .where('idUser', '=', unplanned(idUser))
      .where('actor', '=', unplanned(actor))
      .where('state', '=', unplannedText<OrderState>(state)),
  [0, 0, ''],
);

/** The user's orders as one party, per state (the order pages' tabs): the kept counts, one statement. */
export async function orderCountsByState(
  db: Executor,
  idUser: number,
  actor: Actor,
): Promise<Map<OrderState, number>> {
  const rows = await db
    .selectFrom('orderCounts')
    .select(['state', 'count'])
    .where('idUser', '=', idUser)
    .where('actor', '=', actor)
    .execute();
  return new Map(rows.map((r) => [r.state, Number(r.count)]));
}

export async function orderCount(
  db: Executor,
  idUser: number,
  actor: Actor,
  state: OrderState,
): Promise<number> {
  return Number((await countOf(db, idUser, actor, state))[0]?.count ?? 0);
}

// A page is the run of the user's orders (in one state, unmerged) from its first id on, read
// from the (party, state, idOrder) index: the first id is found by skipping `offset` entries of
// that index alone, and the page is then a range of it. Cost: the page plus the skipped entries,
// so a page in the second half of the list is read from the other end of the index (newest
// first, skipping what lies after it): the last page of a million orders skips nothing, like the
// first. A range rather than `idOrder in (subquery)`: PostgreSQL joins that subquery to the table
// by a scan of every order when the table is small enough (10,000), where the range is one
// index walk on both dialects.
function partyPage(party: 'idSeller' | 'idBuyer', direction: 'asc' | 'desc') {
  return prepared(
    (
      db,
      idUser: number,
      state: string,
      idUserAgain: number,
      stateAgain: string,
      offset: number,
      limit: number,
    ) =>
      db
        .selectFrom('orders')
        .select(['idOrder', packedOrder.select().as('packed')])
        .where(party, '=', unplanned(idUser))
        .where('state', '=', unplannedText<OrderState>(state))
        .where('wasMergedInto', 'is', null)
        .where('idOrder', direction === 'asc' ? '>=' : '<=', (eb) =>
          eb
            .selectFrom('orders')
            .select('idOrder')
            .where(party, '=', unplanned(idUserAgain))
            .where('state', '=', unplannedText<OrderState>(stateAgain))
            .where('wasMergedInto', 'is', null)
            .orderBy('idOrder', direction)
            .limit(sql.lit(1))
            .offset(pageBound(offset)),
        )
        .orderBy('idOrder', direction)
        .limit(pageBound(limit)),
    [0, '', 0, '', 0, 0],
  );
}
const pages = {
  [ACTOR_SELLER]: { asc: partyPage('idSeller', 'asc'), desc: partyPage('idSeller', 'desc') },
  [ACTOR_BUYER]: { asc: partyPage('idBuyer', 'asc'), desc: partyPage('idBuyer', 'desc') },
};

/** Every column of an order, packed into one text for the pages (`packedRow`). */
const ORDER_COLUMNS = {
  idOrder: 'integer',
  idBuyer: 'integer',
  idSeller: 'integer',
  state: 'text',
  dateBought: 'integer',
  datePaid: 'integer?',
  dateSent: 'integer?',
  dateReceived: 'integer?',
  dateCancelled: 'integer?',
  dateLost: 'integer?',
  lastStateChange: 'integer',
  wasMergedInto: 'integer?',
  idShippingMethod: 'integer?',
  shippingMethodName: 'text',
  shippingPrice: 'integer',
  isLetter: 'integer',
  isInsured: 'integer',
  trackingNumber: 'text?',
  shippingName: 'text',
  shippingExtra: 'text?',
  shippingStreet: 'text',
  shippingZip: 'text',
  shippingCity: 'text',
  shippingCountry: 'text',
  articleCount: 'integer',
  articleValue: 'integer',
  totalValue: 'integer',
  cancellationRequestBuyer: 'text?',
  cancellationRequestSeller: 'text?',
  relistOnCancel: 'integer',
  note: 'text',
  revision: 'integer',
  paidFromMoney: 'integer',
  paidFromBonus: 'integer',
  cancellationReason: 'text?',
  cancellationRequestBuyerDate: 'integer?',
  cancellationRequestSellerDate: 'integer?',
} as const satisfies Record<keyof Order, PackedKind>;
const packedOrder = packedRow<Order>(Object.entries(ORDER_COLUMNS));

/** A page's rows as orders: the rare one whose texts hold the separator is read the ordinary way. */
async function unpackOrders(db: Executor, rows: Array<{ idOrder: number; packed: string | null }>) {
  const orders = new Array<Order>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    orders[i] = packedOrder.unpack(row.packed) ?? (await findOrder(db, row.idOrder))!;
  }
  return orders;
}

/**
 * One page of a user's orders in one role and state, oldest first. `total` is how many there are
 * (`orderCount`, kept in the same transactions as the orders): with it, a page past the middle is
 * read from the newest end.
 */
export async function pageOfOrders(
  db: Executor,
  idUser: number,
  actor: Actor,
  state: OrderState,
  offset: number,
  limit: number,
  total?: number,
): Promise<Order[]> {
  const page = pages[actor];
  if (total !== undefined && offset > total / 2 && offset < total) {
    const fromEnd = total - offset - limit;
    const newestFirst = await page.desc(
      db,
      idUser,
      state,
      idUser,
      state,
      Math.max(0, fromEnd),
      fromEnd < 0 ? limit + fromEnd : limit,
    );
    return (await unpackOrders(db, newestFirst)).reverse();
  }
  return unpackOrders(db, await page.asc(db, idUser, state, idUser, state, offset, limit));
}

const unpaidOf = prepared(
  (db, idBuyer: number) =>
    db
      .selectFrom('orders')
      .select((eb) => eb.fn.sum<number>('totalValue').as('n'))
      .where('idBuyer', '=', idBuyer)
      // A literal, not a parameter: the prepared query takes exactly the buyer's id.
      .where('state', '=', sql<OrderState>`'bought'`)
      .where('wasMergedInto', 'is', null),
  [0],
);

/** The account's `unpaidAmount`: totals of the buyer's orders bought and not yet paid (cents). */
export async function unpaidAmount(db: Executor, idBuyer: number): Promise<number> {
  return Number((await unpaidOf(db, idBuyer))[0]?.n ?? 0);
}

/** A seller's open orders in these states (for going on vacation), oldest first. */
export async function sellerOrdersIn(db: Executor, idSeller: number, states: OrderState[]): Promise<Order[]> {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('idSeller', '=', idSeller)
    .where('state', 'in', states)
    .where('wasMergedInto', 'is', null)
    .orderBy('idOrder')
    .execute();
}

// ---------------------------------------------------------------------------------------------
// Evaluations and the seller's numbers

const evaluationRows = preparedBySize(
  (db: Executor, idOrders: number[]) =>
    db.selectFrom('orderEvaluations').selectAll().where('idOrder', 'in', idOrders).compile(),
  (idOrders) => idOrders.length,
  (idOrders) => idOrders,
);

export async function evaluationsOf(db: Executor, idOrders: number[]): Promise<Map<number, OrderEvaluation>> {
  if (idOrders.length === 0) return new Map();
  const rows = (await evaluationRows(db, idOrders)).rows;
  return new Map(rows.map((r) => [r.idOrder, r]));
}

/** Stores an evaluation; false when the order has one already (the primary key decides). */
export async function insertEvaluation(db: Executor, evaluation: OrderEvaluation): Promise<boolean> {
  const r = await db
    .insertInto('orderEvaluations')
    .values(evaluation)
    .onConflict((oc) => oc.column('idOrder').doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export interface UserCounterDeltas {
  unsentShipments?: number;
  sellCount?: number;
  soldItems?: number;
}

/** Adds to the counters the users row keeps for listings (same transaction as the transition). */
export async function adjustUserCounters(db: Executor, idUser: number, d: UserCounterDeltas): Promise<void> {
  await db
    .updateTable('users')
    .set((eb) => ({
      unsentShipments: eb('unsentShipments', '+', d.unsentShipments ?? 0),
      sellCount: eb('sellCount', '+', d.sellCount ?? 0),
      soldItems: eb('soldItems', '+', d.soldItems ?? 0),
    }))
    .where('idUser', '=', idUser)
    .execute();
}

export interface SellerStats {
  shippedOrders: number;
  shippingTimeTotalMs: number;
  ratedEvaluations: number;
  evaluationGradeTotal: number;
  lostOrders: number;
}

/** Adds to a seller's running sums and returns them. */
export async function addSellerStats(
  db: Executor,
  idUser: number,
  add: Partial<SellerStats>,
): Promise<SellerStats> {
  const values = {
    shippedOrders: add.shippedOrders ?? 0,
    shippingTimeTotalMs: add.shippingTimeTotalMs ?? 0,
    ratedEvaluations: add.ratedEvaluations ?? 0,
    evaluationGradeTotal: add.evaluationGradeTotal ?? 0,
    lostOrders: add.lostOrders ?? 0,
  };
  const row = await db
    .insertInto('sellerStats')
    .values({ idUser, ...values })
    .onConflict((oc) =>
      oc.column('idUser').doUpdateSet((eb) => ({
        shippedOrders: eb('sellerStats.shippedOrders', '+', values.shippedOrders),
        shippingTimeTotalMs: eb('sellerStats.shippingTimeTotalMs', '+', values.shippingTimeTotalMs),
        ratedEvaluations: eb('sellerStats.ratedEvaluations', '+', values.ratedEvaluations),
        evaluationGradeTotal: eb('sellerStats.evaluationGradeTotal', '+', values.evaluationGradeTotal),
        lostOrders: eb('sellerStats.lostOrders', '+', values.lostOrders),
      })),
    )
    .returning([
      'shippedOrders',
      'shippingTimeTotalMs',
      'ratedEvaluations',
      'evaluationGradeTotal',
      'lostOrders',
    ])
    .executeTakeFirstOrThrow();
  return {
    shippedOrders: Number(row.shippedOrders),
    shippingTimeTotalMs: Number(row.shippingTimeTotalMs),
    ratedEvaluations: Number(row.ratedEvaluations),
    evaluationGradeTotal: Number(row.evaluationGradeTotal),
    lostOrders: Number(row.lostOrders),
  };
}
