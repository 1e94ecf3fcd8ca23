import { type ExpressionBuilder, sql } from 'kysely';
import { insertMany } from './bulk.js';
import type { Executor } from './db.js';
import { offers } from './offers.js';
import { preparedBySize } from './prepared.js';
import type { DB, ImportedPriceGuidesTable, OrderState, PriceGuidesTable } from './schema.js';

/**
 * The figures the price guide is computed from, aggregated in SQL per product: the asking prices of
 * current offers, and the sales of orders that were paid (paid, sent, received), dated by payment.
 * Sums come back with their counts so averages are weighted by copies.
 */
export interface OfferFigures {
  idProduct: number;
  low: number | null;
  lowEx: number | null;
  lowFoil: number | null;
  lowGerman: number | null;
  askSum: number;
  askCopies: number;
}

export interface SaleFigures {
  idProduct: number;
  /** [sum of cents, copies] of non-foil and foil sales: all time, last 1, 7 and 30 days. */
  all: [number, number];
  d1: [number, number];
  d7: [number, number];
  d30: [number, number];
  foilAll: [number, number];
  foilD1: [number, number];
  foilD7: [number, number];
  foilD30: [number, number];
}

const EX_OR_BETTER = ['MT', 'NM', 'EX'];
const ID_CHUNK = 500;

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/**
 * Every listing recomputes the guides of its products (a bulk stock write: a hundred at once), so
 * the statements over a list of products are compiled once per length, with the constants written
 * as literals: the products (and the sale windows) are their only parameters.
 */
export async function offerFigures(db: Executor, idProducts?: number[]): Promise<OfferFigures[]> {
  if (idProducts && idProducts.length > ID_CHUNK) return chunked(idProducts, (ids) => offerFigures(db, ids));
  if (idProducts?.length === 0) return [];
  const rows = idProducts
    ? (await offerFiguresOf(db, idProducts)).rows
    : await offerFiguresQuery(db).execute();
  return rows.map((r) => ({
    idProduct: r.idProduct,
    low: num(r.low),
    lowEx: num(r.lowEx),
    lowFoil: num(r.lowFoil),
    lowGerman: num(r.lowGerman),
    askSum: Number(r.askSum ?? 0),
    askCopies: Number(r.askCopies ?? 0),
  }));
}

const lit = <T extends number | string>(v: T) => sql.lit(v);

function offerFiguresQuery(db: Executor) {
  return offers(db)
    .groupBy('a.idProduct')
    .select((eb) => [
      'a.idProduct',
      eb.fn.min(eb.case().when('a.isFoil', '=', lit(0)).then(eb.ref('a.price')).end()).as('low'),
      eb.fn
        .min(
          eb
            .case()
            .when(
              eb.and([
                eb('a.isFoil', '=', lit(0)),
                eb.or([eb('a.condition', 'is', null), eb('a.condition', 'in', EX_OR_BETTER.map(lit))]),
              ]),
            )
            .then(eb.ref('a.price'))
            .end(),
        )
        .as('lowEx'),
      eb.fn.min(eb.case().when('a.isFoil', '=', lit(1)).then(eb.ref('a.price')).end()).as('lowFoil'),
      eb.fn
        .min(
          eb
            .case()
            .when(
              eb.and([
                eb('a.isFoil', '=', lit(0)),
                eb('u.country', '=', lit('D')),
                eb('u.isCommercial', '>=', lit(1)),
              ]),
            )
            .then(eb.ref('a.price'))
            .end(),
        )
        .as('lowGerman'),
      eb.fn
        .sum(
          eb
            .case()
            .when('a.isFoil', '=', lit(0))
            .then(sql<number>`a.price * a.count`)
            .else(lit(0))
            .end(),
        )
        .as('askSum'),
      eb.fn
        .sum(eb.case().when('a.isFoil', '=', lit(0)).then(eb.ref('a.count')).else(lit(0)).end())
        .as('askCopies'),
    ]);
}

const offerFiguresOf = preparedBySize(
  (db: Executor, idProducts: number[]) =>
    offerFiguresQuery(db).where('a.idProduct', 'in', idProducts).compile(),
  (idProducts) => idProducts.length,
  (idProducts) => idProducts,
);

type SalesEb = ExpressionBuilder<DB & { oa: DB['orderArticles']; o: DB['orders'] }, 'oa' | 'o'>;

/** Sales of paid orders, per product; `now` fixes the 1-, 7- and 30-day windows. */
export async function saleFigures(db: Executor, now: number, idProducts?: number[]): Promise<SaleFigures[]> {
  if (idProducts && idProducts.length > ID_CHUNK)
    return chunked(idProducts, (ids) => saleFigures(db, now, ids));
  if (idProducts?.length === 0) return [];
  const rows = (idProducts
    ? (await saleFiguresOf(db, now, idProducts)).rows
    : await saleFiguresQuery(db, now).execute()) as unknown as Record<string, unknown>[];
  const p = (r: Record<string, unknown>, name: string): [number, number] => [
    Number(r[`${name}Sum`] ?? 0),
    Number(r[`${name}Copies`] ?? 0),
  ];
  return rows.map((r) => ({
    idProduct: Number(r.idProduct),
    all: p(r, 'all'),
    d1: p(r, 'd1'),
    d7: p(r, 'd7'),
    d30: p(r, 'd30'),
    foilAll: p(r, 'foilAll'),
    foilD1: p(r, 'foilD1'),
    foilD7: p(r, 'foilD7'),
    foilD30: p(r, 'foilD30'),
  }));
}

const DAY = 86_400_000;
/** The windows' starts, in the order the statement binds them (each twice: sum and copies). */
const windows = (now: number) =>
  [now - DAY, now - 7 * DAY, now - 30 * DAY].flatMap((since) => [since, since]);

function saleFiguresQuery(db: Executor, now: number) {
  const soldAt = sql<number>`coalesce(o."datePaid", o."dateBought")`;
  const pair = (eb: SalesEb, foil: 0 | 1, since: number | null, name: string) => {
    const cond =
      since === null
        ? eb('oa.isFoil', '=', lit(foil))
        : eb.and([eb('oa.isFoil', '=', lit(foil)), eb(soldAt, '>=', since)]);
    return [
      eb.fn
        .sum(
          eb
            .case()
            .when(cond)
            .then(sql<number>`oa.price * oa.count`)
            .else(lit(0))
            .end(),
        )
        .as(`${name}Sum`),
      eb.fn.sum(eb.case().when(cond).then(eb.ref('oa.count')).else(lit(0)).end()).as(`${name}Copies`),
    ];
  };
  return db
    .selectFrom('orderArticles as oa')
    .innerJoin('orders as o', 'o.idOrder', 'oa.idOrder')
    .where(
      'o.state',
      'in',
      PAID_STATES.map((s) => sql.lit<OrderState>(s)),
    )
    .groupBy('oa.idProduct')
    .select((eb) => [
      'oa.idProduct',
      ...pair(eb, 0, null, 'all'),
      ...pair(eb, 0, now - DAY, 'd1'),
      ...pair(eb, 0, now - 7 * DAY, 'd7'),
      ...pair(eb, 0, now - 30 * DAY, 'd30'),
      ...pair(eb, 1, null, 'foilAll'),
      ...pair(eb, 1, now - DAY, 'foilD1'),
      ...pair(eb, 1, now - 7 * DAY, 'foilD7'),
      ...pair(eb, 1, now - 30 * DAY, 'foilD30'),
    ]);
}

const PAID_STATES = ['paid', 'sent', 'received'] as const;

const saleFiguresOf = preparedBySize(
  (db: Executor, now: number, idProducts: number[]) =>
    saleFiguresQuery(db, now).where('oa.idProduct', 'in', idProducts).compile(),
  (_now, idProducts) => idProducts.length,
  (now, idProducts) => [...windows(now), ...windows(now), ...idProducts],
);

export async function importedGuides(
  db: Executor,
  idProducts?: number[],
): Promise<ImportedPriceGuidesTable[]> {
  if (idProducts && idProducts.length > ID_CHUNK)
    return chunked(idProducts, (ids) => importedGuides(db, ids));
  if (idProducts?.length === 0) return [];
  if (idProducts) return (await importedOf(db, idProducts)).rows;
  return db.selectFrom('importedPriceGuides').selectAll().execute();
}

const importedOf = preparedBySize(
  (db: Executor, idProducts: number[]) =>
    db.selectFrom('importedPriceGuides').selectAll().where('idProduct', 'in', idProducts).compile(),
  (idProducts) => idProducts.length,
  (idProducts) => idProducts,
);

export async function storedGuides(db: Executor, idProducts?: number[]): Promise<PriceGuidesTable[]> {
  if (idProducts && idProducts.length > ID_CHUNK) return chunked(idProducts, (ids) => storedGuides(db, ids));
  if (idProducts?.length === 0) return [];
  if (idProducts) return (await storedOf(db, idProducts)).rows;
  return db.selectFrom('priceGuides').selectAll().execute();
}

const storedOf = preparedBySize(
  (db: Executor, idProducts: number[]) =>
    db.selectFrom('priceGuides').selectAll().where('idProduct', 'in', idProducts).compile(),
  (idProducts) => idProducts.length,
  (idProducts) => idProducts,
);

const GUIDE_COLUMNS = [
  'idProduct',
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
  'updatedAt',
] as const satisfies readonly (keyof PriceGuidesTable)[];

/** Replaces the guides of these products with `rows` (products without a row lose theirs). */
export async function replaceGuides(
  db: Executor,
  idProducts: number[],
  rows: PriceGuidesTable[],
): Promise<void> {
  for (let i = 0; i < idProducts.length; i += ID_CHUNK) {
    await deleteGuides(db, idProducts.slice(i, i + ID_CHUNK));
  }
  await insertMany(
    db,
    'priceGuides',
    GUIDE_COLUMNS,
    rows.map((r) => GUIDE_COLUMNS.map((c) => r[c])),
  );
}

const deleteGuides = preparedBySize(
  (db: Executor, idProducts: number[]) =>
    db.deleteFrom('priceGuides').where('idProduct', 'in', idProducts).compile(),
  (idProducts) => idProducts.length,
  (idProducts) => idProducts,
);

/** The products of these articles (ids of articles gone since: none), each once. */
export async function productsOfArticles(db: Executor, idArticles: number[]): Promise<number[]> {
  if (idArticles.length === 0) return [];
  return [...new Set((await articleProducts(db, idArticles)).rows.map((r) => r.idProduct))];
}

const articleProducts = preparedBySize(
  (db: Executor, idArticles: number[]) =>
    db.selectFrom('articles').select('idProduct').where('idArticle', 'in', idArticles).compile(),
  (idArticles) => idArticles.length,
  (idArticles) => idArticles,
);

/** The products of these orders' lines, each once. */
export async function productsOfOrders(db: Executor, idOrders: number[]): Promise<number[]> {
  if (idOrders.length === 0) return [];
  return [...new Set((await orderProducts(db, idOrders)).rows.map((r) => r.idProduct))];
}

const orderProducts = preparedBySize(
  (db: Executor, idOrders: number[]) =>
    db.selectFrom('orderArticles').select('idProduct').where('idOrder', 'in', idOrders).compile(),
  (idOrders) => idOrders.length,
  (idOrders) => idOrders,
);

async function chunked<T>(ids: number[], fn: (ids: number[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += ID_CHUNK) out.push(...(await fn(ids.slice(i, i + ID_CHUNK))));
  return out;
}
