import { sql } from 'kysely';
import { ARTICLE_PACKED, type ArticleView, productFactsByLanguage } from './articles.js';
import type { Executor } from './db.js';
import { integerAt, packedRow, SEPARATOR } from './packed.js';
import { pageBound, prepared, preparedBySize, preparedFirst, unplanned } from './prepared.js';
import type { Article } from './schema.js';

/**
 * The marketplace's offers: articles with copies available whose seller is not on vacation. Every
 * public view of articles (a product's offers, a user's offers, the counts on a product, the price
 * guide's asking prices) starts here, so the rule is written once.
 */
export function offers(db: Executor) {
  return (
    db
      .selectFrom('articles as a')
      .innerJoin('users as u', 'u.idUser', 'a.idUser')
      // Literals, not parameters: prepared statements built on this take exactly their own arguments.
      .where('a.count', '>', sql.lit(0))
      .where('u.onVacation', '=', sql.lit(0))
  );
}

export interface OfferCounts {
  /** Copies offered. */
  countArticles: number;
  /** Foil copies offered. */
  countFoils: number;
  /** Articles offered (the rows of the product's offer list, uncapped). */
  countOffers: number;
}

/** Copies on offer per product, for the products given (absent: none): `articles_offers` covers it. */
export async function offerCounts(db: Executor, idProducts: number[]): Promise<Map<number, OfferCounts>> {
  const out = new Map<number, OfferCounts>();
  if (idProducts.length === 0) return out;
  const { rows } = await offerCountRows(db, idProducts);
  for (const r of rows) {
    out.set(r.idProduct, {
      countArticles: Number(r.countArticles),
      countFoils: Number(r.countFoils),
      countOffers: Number(r.countOffers),
    });
  }
  return out;
}

// Every page of found products counts its offers: compiled once per number of products.
const offerCountRows = preparedBySize(
  (db: Executor, idProducts: number[]) =>
    offers(db)
      .where('a.idProduct', 'in', idProducts)
      .groupBy('a.idProduct')
      .select((eb) => [
        'a.idProduct',
        eb.fn.sum<number>('a.count').as('countArticles'),
        eb.fn
          .sum<number>(
            eb.case().when('a.isFoil', '=', sql.lit(1)).then(eb.ref('a.count')).else(sql.lit(0)).end(),
          )
          .as('countFoils'),
        eb.fn.countAll<number>().as('countOffers'),
      ])
      .compile(),
  (idProducts) => idProducts.length,
  (idProducts) => idProducts,
  { direct: true },
);

/** Conditions of an offer query; absent means no restriction. */
export interface OfferWhere {
  idProduct?: number;
  idUser?: number;
  /** Joins the product: only this game's products. */
  idGame?: number;
  /** 0 private, 1 commercial (professional or powerseller), 2 powerseller. */
  sellerType?: 'private' | 'commercial' | 'powerseller';
  /** Reputation from 1 (outstanding) to this, "or better". */
  maxReputation?: number;
  idLanguages?: number[];
  /** Condition codes allowed (singles); `singlesOnly` also leaves sealed product out. */
  conditions?: string[];
  singlesOnly?: boolean;
  flags?: Partial<
    Record<'isFoil' | 'isSigned' | 'isAltered' | 'isPlayset' | 'isFirstEd' | 'isReverseHolo', boolean>
  >;
  minAvailable?: number;
  sellerCountries?: string[];
  rarity?: string;
  /** Folded text the product's folded English name must contain. */
  nameContains?: string;
  expansionName?: string;
  minPrice?: number;
  maxPrice?: number;
}

/**
 * The ids of the first `limit` offers matching, in the marketplace's order: cheapest first for a
 * product (walking `articles_offers`), by id for a user's offers (`articles_by_user`).
 * The walk stops after `limit` matches, so its cost depends on the page and the cap, not on how
 * many articles the marketplace holds.
 */
export async function offerIds(
  db: Executor,
  where: OfferWhere,
  order: 'price' | 'id',
  limit: number,
): Promise<number[]> {
  let q = offers(db).select('a.idArticle');
  if (where.idProduct !== undefined) q = q.where('a.idProduct', '=', where.idProduct);
  if (where.idUser !== undefined) q = q.where('a.idUser', '=', where.idUser);
  const { idGame, singlesOnly, rarity, expansionName } = where;
  if (idGame !== undefined || singlesOnly || rarity !== undefined || expansionName !== undefined) {
    q = q.where(({ exists, selectFrom }) => {
      let p = selectFrom('products as p').select('p.idProduct').whereRef('p.idProduct', '=', 'a.idProduct');
      if (idGame !== undefined) p = p.where('p.idGame', '=', idGame);
      if (singlesOnly) p = p.where('p.isSingle', '=', 1);
      if (rarity !== undefined) p = p.where('p.rarity', '=', rarity);
      if (expansionName !== undefined) {
        p = p.where(({ exists: existsE, selectFrom: fromE }) =>
          existsE(
            fromE('expansions as e')
              .select('e.idExpansion')
              .whereRef('e.idExpansion', '=', 'p.idExpansion')
              .where('e.enName', '=', expansionName),
          ),
        );
      }
      return exists(p);
    });
  }
  if (where.nameContains !== undefined) {
    const text = `%${where.nameContains}%`;
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('productSearchNames as sn')
          .select('sn.idProduct')
          .whereRef('sn.idProduct', '=', 'a.idProduct')
          .where('sn.idLanguage', '=', 1)
          .where('sn.name', 'like', text),
      ),
    );
  }
  if (where.sellerType === 'private') q = q.where('u.isCommercial', '=', 0);
  if (where.sellerType === 'commercial') q = q.where('u.isCommercial', '>=', 1);
  if (where.sellerType === 'powerseller') q = q.where('u.isCommercial', '=', 2);
  if (where.maxReputation !== undefined) {
    q = q.where('u.reputation', '>=', 1).where('u.reputation', '<=', where.maxReputation);
  }
  if (where.sellerCountries?.length) q = q.where('u.country', 'in', where.sellerCountries);
  if (where.idLanguages?.length) q = q.where('a.idLanguage', 'in', where.idLanguages);
  if (where.conditions) q = q.where('a.condition', 'in', where.conditions);
  for (const [flag, value] of Object.entries(where.flags ?? {})) {
    q = q.where(`a.${flag as 'isFoil'}`, '=', value ? 1 : 0);
  }
  if (where.minAvailable !== undefined) q = q.where('a.count', '>=', where.minAvailable);
  if (where.minPrice !== undefined) q = q.where('a.price', '>=', where.minPrice);
  if (where.maxPrice !== undefined) q = q.where('a.price', '<=', where.maxPrice);
  q = order === 'price' ? q.orderBy('a.price').orderBy('a.idArticle') : q.orderBy('a.idArticle');
  const rows = await q.limit(pageBound(limit)).execute();
  return rows.map((r) => r.idArticle);
}

// A product's offers with no filter, the page price bots read all day: prepared once. The page's
// ids come from a walk of the `articles_offers` index (product, price, id, count, seller, foil, condition),
// which holds everything it checks but the seller's vacation flag (a lookup of the seller per
// offer walked, most of the walk's cost), and its rows are then read by id in one statement. The
// count then walks on from the page's last offer to the cap, not again from the first: the page
// and the count together walk the cap's 1,001 offers once, where a count from the first offer and
// then the page walked up to 2,000.
const productOfferCount = prepared(
  (db, idProduct: number, cap: number) =>
    db
      .selectFrom(
        offers(db).select('a.idArticle').where('a.idProduct', '=', idProduct).limit(pageBound(cap)).as('o'),
      )
      .select((eb) => eb.fn.countAll<number>().as('n')),
  [0, 0],
);

// A row value: both dialects seek the index to the first offer after (price, id).
const productOfferCountAfter = prepared(
  (db, idProduct: number, price: number, idArticle: number, cap: number) =>
    db
      .selectFrom(
        offers(db)
          .select('a.idArticle')
          .where('a.idProduct', '=', idProduct)
          .where(
            sql<boolean>`(${sql.ref('a.price')}, ${sql.ref('a.idArticle')}) > (cast(${price} as bigint), ${unplanned(idArticle)})`,
          )
          .limit(pageBound(cap))
          .as('o'),
      )
      .select((eb) => eb.fn.countAll<number>().as('n')),
  [0, 0, 0, 0],
);

// The page's article rows alone, each as one text (`packedRow`: sixteen values a row handed over
// one by one cost more than reading the rows): the product's facts are the same in all of them but
// for the name in the article's language, and are read once (`productFactsByLanguage`).
const packedArticle = packedRow<Article>(ARTICLE_PACKED);

// The rows are joined to the walk's ids in the walk's order, with no ORDER BY of their own: as
// `idArticle in (…)` sorted again (a temporary B-tree on SQLite), the statement cost an eighth more.
// The order is checked after unpacking (`inOfferOrder`), so no dialect's plan can change it.
const productOfferPage = preparedFirst<string, [idProduct: number, limit: number, offset: number]>(
  (db, idProduct, limit, offset) =>
    db
      .selectFrom(
        offers(db)
          .select('a.idArticle')
          .where('a.idProduct', '=', idProduct)
          .orderBy('a.price')
          .orderBy('a.idArticle')
          .limit(pageBound(limit))
          .offset(pageBound(offset))
          .as('o'),
      )
      .innerJoin('articles as a', 'a.idArticle', 'o.idArticle')
      .select(packedArticle.select().as('packed')),
  [0, 0, 0],
  'packed',
);

/** Sorts views cheapest first, ties by id, unless they already are (as the page's rows come). */
function inOfferOrder(views: ArticleView[]): ArticleView[] {
  for (let i = 1; i < views.length; i++) {
    const a = views[i - 1]!;
    const b = views[i]!;
    if (a.price > b.price || (a.price === b.price && a.idArticle > b.idArticle)) {
      return views.sort((x, y) => x.price - y.price || x.idArticle - y.idArticle);
    }
  }
  return views;
}

/** The rare article whose texts hold the packing's separator, read the ordinary way. */
const articleById = prepared(
  (db, idArticle: number) => db.selectFrom('articles').selectAll().where('idArticle', '=', idArticle),
  [0],
);

/** How many offers a product has, counting at most `cap`. */
export async function countProductOffers(db: Executor, idProduct: number, cap: number): Promise<number> {
  return Number((await productOfferCount(db, idProduct, cap))[0]?.n ?? 0);
}

/** How many of a product's offers come after `after` in the list (cheapest first), at most `cap`. */
export async function countProductOffersAfter(
  db: Executor,
  idProduct: number,
  after: { price: number; idArticle: number },
  cap: number,
): Promise<number> {
  return Number((await productOfferCountAfter(db, idProduct, after.price, after.idArticle, cap))[0]?.n ?? 0);
}

/**
 * One window of a product's offers, cheapest first (ties by id), with their product facts: the
 * rows themselves become the views, and the views of one language share one ProductFacts.
 */
export async function productOfferViews(
  db: Executor,
  idProduct: number,
  offset: number,
  limit: number,
): Promise<ArticleView[]> {
  if (limit <= 0) return [];
  const [rows, factsIn] = await Promise.all([
    productOfferPage(db, idProduct, limit, offset),
    productFactsByLanguage(db, idProduct),
  ]);
  if (!factsIn) return [];
  const views: ArticleView[] = [];
  for (const packed of rows) {
    // The id comes first, as digits.
    const article =
      packedArticle.unpack(packed) ??
      (await articleById(db, integerAt(packed, 0, packed.indexOf(SEPARATOR))))[0];
    if (article === undefined) continue;
    const view = article as ArticleView;
    view.product = factsIn(view.idLanguage);
    views.push(view);
  }
  return inOfferOrder(views);
}

/**
 * The cheapest copy on offer per product ("from €x" on the website's lists), for the products
 * given (absent: none on offer). One statement a page, compiled once per number of products.
 */
export async function lowestPrices(db: Executor, idProducts: number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (idProducts.length === 0) return out;
  const { rows } = await lowestPriceRows(db, idProducts);
  for (const r of rows) if (r.price !== null) out.set(r.idProduct, Number(r.price));
  return out;
}

// Per product, the first offer of its `articles_offers` walk (cheapest first), not `min(price)`
// grouped by product: that reads every offer of the product (1,500 of the benchmark's hot product,
// about half a millisecond, a sixth of its page) where this stops at the first seller not on
// vacation.
const lowestPriceRows = preparedBySize(
  (db: Executor, idProducts: number[]) =>
    db
      .selectFrom('products as p')
      .where('p.idProduct', 'in', idProducts)
      .select([
        'p.idProduct',
        offers(db)
          .where('a.idProduct', '=', sql.ref<number>('p.idProduct'))
          .select('a.price')
          .orderBy('a.price')
          .limit(sql.lit(1))
          .$asScalar()
          .as('price'),
      ])
      .compile(),
  (idProducts) => idProducts.length,
  (idProducts) => idProducts,
);
