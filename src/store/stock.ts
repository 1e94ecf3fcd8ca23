import { type Expression, type ExpressionBuilder, PostgresAdapter, type SqlBool, sql } from 'kysely';
import { type ArticleView, articleViewOf, articleViews } from './articles.js';
import type { Executor } from './db.js';
import { preparedBySize } from './prepared.js';
import { reservedCounts } from './reservations.js';
import type { Article, DB } from './schema.js';

/**
 * The queries of a seller's own stock. Counts only ever change through the conditional updates
 * below (`count >= n` in SQL), so two tools syncing one article at once, or a buyer reserving copies
 * while the seller edits, can never drive a count below zero or lose an increment.
 */

/** Which of a seller's articles a listing shows. */
export interface StockFilter {
  idProduct?: number;
  idGame?: number;
  /** Single cards only (true) or sealed product only (false). */
  isSingle?: boolean;
  idLanguage?: number;
  /** A case-insensitive part of the product's name in any language. */
  name?: string;
  /** Keyset pagination for the file and exports: articles after this id. */
  afterId?: number;
  /** Only articles with copies available now (another user's public offers). */
  available?: boolean;
}

type Scope = DB & { a: DB['articles']; p: DB['products'] };

/** `%`, `_` and the escape character itself are literal in a search string. */
function likePattern(search: string): string {
  return `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function stockWhere(eb: ExpressionBuilder<Scope, 'a' | 'p'>, idUser: number, f: StockFilter) {
  const conditions: Expression<SqlBool>[] = [eb('a.idUser', '=', idUser)];
  if (f.idProduct !== undefined) conditions.push(eb('a.idProduct', '=', f.idProduct));
  if (f.idGame !== undefined) conditions.push(eb('p.idGame', '=', f.idGame));
  if (f.isSingle !== undefined) conditions.push(eb('p.isSingle', '=', f.isSingle ? 1 : 0));
  if (f.idLanguage !== undefined) conditions.push(eb('a.idLanguage', '=', f.idLanguage));
  if (f.afterId !== undefined) conditions.push(eb('a.idArticle', '>', f.afterId));
  if (f.available) conditions.push(eb('a.count', '>', 0));
  if (f.name !== undefined) {
    const pattern = likePattern(f.name);
    conditions.push(
      eb.exists(
        eb
          .selectFrom('productNames as sn')
          .select('sn.idProduct')
          .whereRef('sn.idProduct', '=', 'a.idProduct')
          .where(sql<SqlBool>`lower(${sql.ref('sn.name')}) like ${pattern} escape '\\'`),
      ),
    );
  }
  return eb.and(conditions);
}

/** One page of a seller's articles, oldest first. */
export async function stockPage(
  db: Executor,
  idUser: number,
  filter: StockFilter,
  offset: number,
  limit: number,
): Promise<ArticleView[]> {
  const rows = await articleViews(db)
    .where((eb) => stockWhere(eb as unknown as ExpressionBuilder<Scope, 'a' | 'p'>, idUser, filter))
    .orderBy('a.idArticle')
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((r) => articleViewOf(r));
}

export async function countStock(db: Executor, idUser: number, filter: StockFilter): Promise<number> {
  const row = await db
    .selectFrom('articles as a')
    .innerJoin('products as p', 'p.idProduct', 'a.idProduct')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) => stockWhere(eb, idUser, filter))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A seller's article with the product facts, or undefined when it is not theirs. */
export async function findStockArticle(
  db: Executor,
  idUser: number,
  idArticle: number,
): Promise<ArticleView | undefined> {
  const row = await articleViews(db)
    .where('a.idArticle', '=', idArticle)
    .where('a.idUser', '=', idUser)
    .executeTakeFirst();
  return row ? articleViewOf(row) : undefined;
}

/** The seller's articles among these ids (others' ids are simply absent). */
export async function stockArticlesByIds(
  db: Executor,
  idUser: number,
  ids: number[],
): Promise<ArticleView[]> {
  if (ids.length === 0) return [];
  const rows = await articleViews(db)
    .where('a.idUser', '=', idUser)
    .where('a.idArticle', 'in', ids)
    .execute();
  return rows.map((r) => articleViewOf(r));
}

/**
 * The seller's article rows of these (product, price) pairs: the only ones an article with that
 * product and price can be equal to (and merge into). The VALUES list drives the loop and probes
 * the (idUser, idProduct, price) index once per pair on both databases. A row-value `IN (VALUES …)`
 * or a plain join let SQLite walk every index entry of the seller (100,000 for a large one) and
 * test each: `cross join` is how SQLite is told the order (PostgreSQL plans it as any join).
 */
export async function stockRowsWithPrices(
  db: Executor,
  idUser: number,
  pairs: Array<[idProduct: number, price: number]>,
): Promise<Article[]> {
  const unique = [...new Map(pairs.map((p) => [`${p[0]}:${p[1]}`, p])).values()];
  if (unique.length === 0) return [];
  return (await rowsWithPrices(db, idUser, unique)).rows;
}

const rowsWithPrices = preparedBySize(
  (db: Executor, idUser: number, pairs: Array<[number, number]>) => {
    const values = sql.join(
      pairs.map(([p, price]) => sql`(cast(${p} as integer), cast(${price} as bigint))`),
    );
    return sql<Article>`select "a".* from (values ${values}) as "v" cross join "articles" as "a"
      where "a"."idUser" = ${idUser} and "a"."idProduct" = "v"."column1" and "a"."price" = "v"."column2"`.compile(
      db,
    );
  },
  (_idUser, pairs) => pairs.length,
  (idUser, pairs) => [...pairs.flat(), idUser],
);

/** Product facts a stock write checks an article against; absent ids do not exist. */
export async function productRules(
  db: Executor,
  idProducts: number[],
): Promise<Map<number, { idGame: number; isSingle: number }>> {
  const out = new Map<number, { idGame: number; isSingle: number }>();
  if (idProducts.length === 0) return out;
  for (const r of (await productRows(db, idProducts)).rows) {
    out.set(r.idProduct, { idGame: r.idGame, isSingle: r.isSingle });
  }
  return out;
}

const productRows = preparedBySize(
  (db: Executor, idProducts: number[]) =>
    db
      .selectFrom('products')
      .select(['idProduct', 'idGame', 'isSingle'])
      .where('idProduct', 'in', idProducts)
      .compile(),
  (idProducts) => idProducts.length,
  (idProducts) => idProducts,
);

/** A seller's article as a bulk write reads it: the row and its copies in carts. */
export interface LockedArticle {
  row: Article;
  reserved: number;
}

/**
 * The seller's articles among these ids (others' ids are absent), with their copies in carts. On
 * PostgreSQL the rows stay locked until the transaction ends, so no buyer's reservation or release
 * can change them between this read and the write that follows: the write is planned from these
 * values and applied in a few set-based statements. SQLite runs one write transaction at a time,
 * so nothing can change them there anyway.
 */
export async function lockedStockRows(db: Executor, idUser: number, ids: number[]): Promise<LockedArticle[]> {
  if (ids.length === 0) return [];
  const rows = (await lockedRows(db, idUser, ids)).rows;
  const reserved = await reservedCounts(
    db,
    rows.map((r) => r.idArticle),
  );
  return rows.map((row) => ({ row, reserved: reserved.get(row.idArticle) ?? 0 }));
}

const lockedRows = preparedBySize(
  (db: Executor, idUser: number, ids: number[]) => {
    const lock = isPostgres(db) ? sql` for update` : sql``;
    return sql<Article>`select * from "articles" where "idUser" = ${idUser} and "idArticle" in (${sql.join(ids)})${lock}`.compile(
      db,
    );
  },
  (_idUser, ids) => ids.length,
  (idUser, ids) => [idUser, ...ids],
);

/**
 * What a bulk write does to one existing article, all its steps summed: `delta` copies added (or
 * taken, when negative) and, when `attributes` is set, its attributes changed in place.
 */
export interface ArticleChange {
  idArticle: number;
  /** The count read under lock at the start (`lockedStockRows`); null for an article only added to. */
  expected: number | null;
  delta: number;
  attributes?: ArticleAttributeRow;
}

/**
 * Applies the changes of one bulk write in one statement (UPDATE … FROM a VALUES list). Each row is
 * guarded in SQL as the statements per article were: its count stays between 0 and `max`; an
 * article read under lock still has the count it was read with; attributes change only while no
 * copy is in a cart. Returns how many articles were changed: fewer than asked means an article
 * changed under the plan, and the caller must not commit it.
 */
export async function applyArticleChanges(
  db: Executor,
  idUser: number,
  changes: ArticleChange[],
  now: number,
  max: number,
): Promise<number> {
  if (changes.length === 0) return 0;
  const result = await articleChanges(db, idUser, changes, now, max);
  return Number(result.numAffectedRows ?? 0n);
}

const ATTRIBUTE_COLUMNS = [
  ['idLanguage', 'integer'],
  ['comments', 'text'],
  ['price', 'bigint'],
  ['condition', 'text'],
  ['isFoil', 'integer'],
  ['isSigned', 'integer'],
  ['isAltered', 'integer'],
  ['isPlayset', 'integer'],
  ['isFirstEd', 'integer'],
  ['isReverseHolo', 'integer'],
] as const;

function changeValues(c: ArticleChange): unknown[] {
  const a = c.attributes;
  return [
    c.idArticle,
    c.expected,
    c.delta,
    a ? 1 : 0,
    ...ATTRIBUTE_COLUMNS.map(([column]) => (a ? a[column] : null)),
  ];
}

const articleChanges = preparedBySize(
  (db: Executor, idUser: number, changes: ArticleChange[], now: number, max: number) => {
    const casts = ['integer', 'integer', 'integer', 'integer', ...ATTRIBUTE_COLUMNS.map(([, type]) => type)];
    const rows = changes.map(
      (c) => sql`(${sql.join(changeValues(c).map((v, i) => sql`cast(${v} as ${sql.raw(casts[i]!)})`))})`,
    );
    // VALUES columns are column1, column2, … on both databases: id, expected, delta, changed, attributes.
    const set = ATTRIBUTE_COLUMNS.map(
      ([column], i) =>
        sql`${sql.ref(column)} = case when "v"."column4" = 1 then ${sql.ref(`v.column${5 + i}`)} else ${sql.ref(`articles.${column}`)} end`,
    );
    // `+ 0`: the seller check must not be usable as an index, or SQLite walks all the seller's
    // articles (by `articles_by_user`) instead of probing one primary key per VALUES row.
    return sql`update "articles" set "count" = "articles"."count" + "v"."column3", ${sql.join(set)},
        "lastEdited" = ${now}
      from (values ${sql.join(rows)}) as "v"
      where "articles"."idArticle" = "v"."column1" and "articles"."idUser" + 0 = ${idUser}
        and ("v"."column2" is null or "articles"."count" = "v"."column2")
        and "articles"."count" + "v"."column3" between 0 and ${max}
        and ("v"."column4" = 0 or ${NOT_RESERVED})`.compile(db);
  },
  (_idUser, changes) => changes.length,
  (idUser, changes, now, max) => [now, ...changes.flatMap(changeValues), idUser, max],
);

const isPostgres = (db: Executor) => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * Serializes one seller's stock writes on PostgreSQL (SQLite runs one write transaction at a time
 * anyway), so the "is there an equal article to merge into?" check and the write that follows
 * cannot interleave with another request of the same seller. Counts stay guarded by the
 * conditional updates regardless: cart reservations do not take this lock.
 */
export async function lockSellerStock(db: Executor, idUser: number): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`select pg_advisory_xact_lock(${STOCK_LOCK_SPACE}, ${idUser})`.execute(db);
}
const STOCK_LOCK_SPACE = 5_000_001;

const NOT_RESERVED = sql`not exists (select 1 from "reservationArticles" as "ra" where "ra"."idArticle" = "articles"."idArticle")`;

/** The attributes an article's change in place writes. */
export type ArticleAttributeRow = Pick<
  Article,
  | 'idLanguage'
  | 'comments'
  | 'price'
  | 'condition'
  | 'isFoil'
  | 'isSigned'
  | 'isAltered'
  | 'isPlayset'
  | 'isFirstEd'
  | 'isReverseHolo'
>;

/**
 * Deletes those of these articles that are sold out: no copy available and none in a cart (an
 * article with copies in a cart stays at count 0, so a released reservation can return them; order
 * lines keep what was sold). Returns how many were deleted.
 */
export async function deleteSoldOutArticles(db: Executor, idArticles: number[]): Promise<number> {
  if (idArticles.length === 0) return 0;
  const result = await deleteSoldOut(db, idArticles);
  return Number(result.numAffectedRows ?? 0n);
}

// A checkout asks it of its hundred articles: the text is built once per number of articles.
const deleteSoldOut = preparedBySize(
  (db: Executor, idArticles: number[]) =>
    sql`delete from "articles"
      where "idArticle" in (${sql.join(idArticles)}) and "count" = 0 and ${NOT_RESERVED}`.compile(db),
  (idArticles) => idArticles.length,
  (idArticles) => idArticles,
);
