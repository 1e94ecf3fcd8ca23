import type { Executor } from './db.js';
import { prepared } from './prepared.js';
import type {
  MarketActionsTable,
  MarketTradersTable,
  MarketValuesTable,
  Order,
  OrderState,
} from './schema.js';

/** The living market's tables (migration 0033) and the reads its traders observe the market by. */

export type MarketAction = Omit<MarketActionsTable, 'idAction'> & { idAction: number };
export type MarketTrader = MarketTradersTable;

export async function insertTrader(db: Executor, row: MarketTradersTable): Promise<void> {
  await db.insertInto('marketTraders').values(row).execute();
}

export async function marketTraders(db: Executor): Promise<MarketTrader[]> {
  return db.selectFrom('marketTraders').selectAll().orderBy('idUser').execute();
}

export async function isMarketTrader(db: Executor, idUser: number): Promise<boolean> {
  const row = await db
    .selectFrom('marketTraders')
    .select('idUser')
    .where('idUser', '=', idUser)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertActions(
  db: Executor,
  rows: Omit<MarketActionsTable, 'idAction'>[],
): Promise<void> {
  // A few hundred rows at a time keeps under SQLite's and PostgreSQL's bound-parameter limits.
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('marketActions')
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

/** Actions in the order they happened; `afterId` pages on, `last` keeps only the newest ones. */
export async function marketActions(
  db: Executor,
  options: { afterId?: number; limit?: number; last?: number } = {},
): Promise<MarketAction[]> {
  if (options.last !== undefined) {
    const rows = await db
      .selectFrom('marketActions')
      .selectAll()
      .orderBy('idAction', 'desc')
      .limit(options.last)
      .execute();
    return (rows as MarketAction[]).reverse();
  }
  let q = db.selectFrom('marketActions').selectAll().orderBy('idAction');
  if (options.afterId !== undefined) q = q.where('idAction', '>', options.afterId);
  if (options.limit !== undefined) q = q.limit(options.limit);
  return (await q.execute()) as MarketAction[];
}

export async function countMarketActions(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('marketActions')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function putMarketValues(db: Executor, rows: MarketValuesTable[]): Promise<void> {
  for (const row of rows) {
    await db
      .insertInto('marketValues')
      .values(row)
      .onConflict((oc) =>
        oc
          .column('idProduct')
          .doUpdateSet({ fairValue: row.fairValue, anchor: row.anchor, updatedAt: row.updatedAt }),
      )
      .execute();
  }
}

/** The fair values a previous run left, by product: a new run goes on from them. */
export async function storedMarketValues(db: Executor): Promise<MarketValuesTable[]> {
  return db.selectFrom('marketValues').selectAll().orderBy('idProduct').execute();
}

export interface MarketValueView extends MarketValuesTable {
  enName: string;
  low: number | null;
  avg: number | null;
  trend: number | null;
  avg1: number | null;
  avg7: number | null;
}

/** Each product's fair value beside its price guide, as the market page and `market status` show. */
export async function marketValueViews(db: Executor): Promise<MarketValueView[]> {
  return db
    .selectFrom('marketValues as v')
    .innerJoin('products as p', 'p.idProduct', 'v.idProduct')
    .leftJoin('priceGuides as g', 'g.idProduct', 'v.idProduct')
    .select([
      'v.idProduct',
      'v.fairValue',
      'v.anchor',
      'v.updatedAt',
      'p.enName',
      'g.low',
      'g.avg',
      'g.trend',
      'g.avg1',
      'g.avg7',
    ])
    .orderBy('v.idProduct')
    .execute();
}

/** The first `count` products of the catalog (by id), singles first when asked: a scenario's slice. */
export async function catalogSlice(
  db: Executor,
  options: { count: number; idGame?: number; ids?: number[] },
): Promise<Array<{ idProduct: number; enName: string; idGame: number; isSingle: number }>> {
  let q = db
    .selectFrom('products')
    .select(['idProduct', 'enName', 'idGame', 'isSingle'])
    .orderBy('idProduct');
  if (options.ids) q = q.where('idProduct', 'in', options.ids.length > 0 ? options.ids : [-1]);
  if (options.idGame !== undefined) q = q.where('idGame', '=', options.idGame);
  return q.limit(options.count).execute();
}

/** The price-guide figure a product's fair value starts from (trend, else avg, else low), or null. */
export async function guideStart(db: Executor, idProducts: number[]): Promise<Map<number, number>> {
  if (idProducts.length === 0) return new Map();
  const rows = await db
    .selectFrom('priceGuides')
    .select(['idProduct', 'trend', 'avg', 'low'])
    .where('idProduct', 'in', idProducts)
    .execute();
  const out = new Map<number, number>();
  for (const r of rows) {
    const v = r.trend ?? r.avg ?? r.low;
    if (v !== null && v > 0) out.set(r.idProduct, v);
  }
  return out;
}

/** A trader's orders in `states`, as buyer or seller, oldest first (what its own order list shows). */
export async function traderOrders(
  db: Executor,
  idUser: number,
  role: 'buyer' | 'seller',
  states: OrderState[],
): Promise<Order[]> {
  // Compiled once per role and number of states: the market asks a few times per action.
  const key = `${role}:${states.length}`;
  let read = traderOrderReads.get(key);
  if (!read) {
    read = prepared(
      (d, id: number, ...ofStates: OrderState[]) =>
        d
          .selectFrom('orders')
          .selectAll()
          .where(role === 'buyer' ? 'idBuyer' : 'idSeller', '=', id)
          .where('state', 'in', ofStates)
          .where('wasMergedInto', 'is', null)
          .orderBy('idOrder'),
      [0, ...states.map((): OrderState => 'paid')],
    );
    traderOrderReads.set(key, read);
  }
  return read(db, idUser, ...states);
}

const traderOrderReads = new Map<
  string,
  (db: Executor, idUser: number, ...states: OrderState[]) => Promise<Order[]>
>();

export async function isEvaluated(db: Executor, idOrder: number): Promise<boolean> {
  const row = await db
    .selectFrom('orderEvaluations')
    .select('idOrder')
    .where('idOrder', '=', idOrder)
    .executeTakeFirst();
  return row !== undefined;
}

const balanceOf = prepared(
  (db, idUser: number) =>
    db.selectFrom('users').select(['moneyBalance', 'bonusBalance']).where('idUser', '=', idUser),
  [0],
);

export async function userBalance(db: Executor, idUser: number): Promise<number> {
  const row = (await balanceOf(db, idUser))[0];
  if (!row) throw new Error(`no user ${idUser}`);
  return row.moneyBalance + row.bonusBalance;
}
