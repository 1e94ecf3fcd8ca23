import { type Expression, type ExpressionBuilder, PostgresAdapter, type SqlBool, sql } from 'kysely';
import { type ArticleView, articleViewOf, articleViews } from './articles.js';
import type { Executor } from './db.js';
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

/** The seller's article rows among these ids, without product facts (others' ids are absent). */
export async function stockRowsByIds(db: Executor, idUser: number, ids: number[]): Promise<Article[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('articles')
    .selectAll()
    .where('idUser', '=', idUser)
    .where('idArticle', 'in', ids)
    .execute();
}

/**
 * The seller's article rows of these (product, price) pairs: the only ones an article with that
 * product and price can be equal to (and merge into). A row-value IN over a VALUES list lets both
 * databases probe the (idUser, idProduct, price) index once per pair, instead of reading every
 * article of every product named (a large seller has many per product).
 */
export async function stockRowsWithPrices(
  db: Executor,
  idUser: number,
  pairs: Array<[idProduct: number, price: number]>,
): Promise<Article[]> {
  const unique = [...new Map(pairs.map((p) => [`${p[0]}:${p[1]}`, p])).values()];
  if (unique.length === 0) return [];
  const values = sql.join(unique.map(([p, price]) => sql`(cast(${p} as integer), cast(${price} as bigint))`));
  const result = await sql<Article>`select * from "articles"
    where "idUser" = ${idUser} and ("idProduct", "price") in (values ${values})`.execute(db);
  return result.rows;
}

/** Product facts a stock write checks an article against; absent ids do not exist. */
export async function productRules(
  db: Executor,
  idProducts: number[],
): Promise<Map<number, { idGame: number; isSingle: number }>> {
  const out = new Map<number, { idGame: number; isSingle: number }>();
  if (idProducts.length === 0) return out;
  const rows = await db
    .selectFrom('products')
    .select(['idProduct', 'idGame', 'isSingle'])
    .where('idProduct', 'in', idProducts)
    .execute();
  for (const r of rows) out.set(r.idProduct, { idGame: r.idGame, isSingle: r.isSingle });
  return out;
}

/**
 * Serializes one seller's stock writes on PostgreSQL (SQLite runs one write transaction at a time
 * anyway), so the "is there an equal article to merge into?" check and the write that follows
 * cannot interleave with another request of the same seller. Counts stay guarded by the
 * conditional updates regardless: cart reservations do not take this lock.
 */
export async function lockSellerStock(db: Executor, idUser: number): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`select pg_advisory_xact_lock(${STOCK_LOCK_SPACE}, ${idUser})`.execute(db);
}
const STOCK_LOCK_SPACE = 5_000_001;

// The per-article statements of bulk writes run up to 100 times per request: they are written as
// fixed SQL (the same text on both dialects) rather than rebuilt through the query builder each time.
const changed = (r: { numAffectedRows?: bigint }) => r.numAffectedRows === 1n;

/** Takes `n` copies from what is available; false (and nothing changed) when fewer are there. */
export async function takeCopies(db: Executor, idArticle: number, n: number, now: number): Promise<boolean> {
  return changed(
    await sql`update "articles" set "count" = "count" - ${n}, "lastEdited" = ${now}
      where "idArticle" = ${idArticle} and "count" >= ${n}`.execute(db),
  );
}

/** Adds `n` copies unless that would pass `max`; false (and nothing changed) otherwise. */
export async function addCopies(
  db: Executor,
  idArticle: number,
  n: number,
  now: number,
  max?: number,
): Promise<boolean> {
  const limit = max === undefined ? sql`` : sql` and "count" <= ${max - n}`;
  return changed(
    await sql`update "articles" set "count" = "count" + ${n}, "lastEdited" = ${now}
      where "idArticle" = ${idArticle}${limit}`.execute(db),
  );
}

const NOT_RESERVED = sql`not exists (select 1 from "reservationArticles" as "ra" where "ra"."idArticle" = "articles"."idArticle")`;

/**
 * Changes an article's attributes in place: only while it still has exactly `expectedCount`
 * copies and none in a cart (reserved copies keep the attributes they were reserved with).
 */
export async function updateInPlace(
  db: Executor,
  idArticle: number,
  expectedCount: number,
  a: ArticleAttributeRow,
  now: number,
): Promise<boolean> {
  return changed(
    await sql`update "articles" set "idLanguage" = ${a.idLanguage}, "comments" = ${a.comments},
      "price" = ${a.price}, "condition" = ${a.condition}, "isFoil" = ${a.isFoil},
      "isSigned" = ${a.isSigned}, "isAltered" = ${a.isAltered}, "isPlayset" = ${a.isPlayset},
      "isFirstEd" = ${a.isFirstEd}, "isReverseHolo" = ${a.isReverseHolo}, "lastEdited" = ${now}
      where "idArticle" = ${idArticle} and "count" = ${expectedCount} and ${NOT_RESERVED}`.execute(db),
  );
}

/** The attributes an in-place change writes (all of them: the statement's text never varies). */
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
  const result = await sql`delete from "articles"
    where "idArticle" in (${sql.join(idArticles)}) and "count" = 0 and ${NOT_RESERVED}`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
