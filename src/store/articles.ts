import { sql } from 'kysely';
import type { Executor } from './db.js';
import type { PackedColumns } from './packed.js';
import { prepared, preparedBySize } from './prepared.js';
import { reservedCounts } from './reservations.js';
import type { Article, NewArticle, OrderArticle } from './schema.js';

/**
 * Articles as every feature shows them: the article row with the product facts the Article entity
 * carries (reference §2.8, §2.10), joined in one query. Listing queries (marketplace, stock, cart)
 * start from `articleViews` and add their own where/order/limit.
 */
export interface ProductFacts {
  idProduct: number;
  idGame: number;
  enName: string;
  /** The product's name in the article's language, English where that language has none. */
  locName: string;
  image: string;
  idExpansion: number | null;
  expansionName: string | null;
  expansionAbbreviation: string | null;
  expansionIcon: number | null;
  number: string | null;
  rarity: string | null;
  isSingle: number;
}

export interface ArticleView extends Article {
  product: ProductFacts;
}

/**
 * The product facts of a row, flat, for a query that has joined `products as p`, `expansions as e`
 * (left) and `productNames as n` (left, in the row's language): live articles and order lines.
 */
export const PRODUCT_FACT_COLUMNS = [
  'p.idGame as p_idGame',
  'p.enName as p_enName',
  sql<string>`coalesce(n.name, p."enName")`.as('p_locName'),
  'p.image as p_image',
  'p.idExpansion as p_idExpansion',
  'e.enName as p_expansionName',
  'e.abbreviation as p_expansionAbbreviation',
  'e.icon as p_expansionIcon',
  'p.number as p_number',
  'p.rarity as p_rarity',
  'p.isSingle as p_isSingle',
] as const;

/**
 * The product facts (`PRODUCT_FACT_COLUMNS`) as `packedRow` columns, for a packed read that joins
 * the product as `p`, its expansion as `e` and its name in the line's language as `n`.
 */
export const PRODUCT_FACTS_PACKED: PackedColumns = [
  ['p_idGame', 'integer', 'p.idGame'],
  ['p_enName', 'text', 'p.enName'],
  ['p_locName', 'text', sql`coalesce(n.name, p."enName")`],
  ['p_image', 'text', 'p.image'],
  ['p_idExpansion', 'integer?', 'p.idExpansion'],
  ['p_expansionName', 'text?', 'e.enName'],
  ['p_expansionAbbreviation', 'text?', 'e.abbreviation'],
  ['p_expansionIcon', 'integer?', 'e.icon'],
  ['p_number', 'text?', 'p.number'],
  ['p_rarity', 'text?', 'p.rarity'],
  ['p_isSingle', 'integer', 'p.isSingle'],
];

/** Every column of an article row as `packedRow` columns, in the table's order (`a.*`). */
export const ARTICLE_PACKED: PackedColumns = [
  ['idArticle', 'integer', 'a.idArticle'],
  ['idUser', 'integer', 'a.idUser'],
  ['idProduct', 'integer', 'a.idProduct'],
  ['idLanguage', 'integer', 'a.idLanguage'],
  ['comments', 'text', 'a.comments'],
  ['price', 'integer', 'a.price'],
  ['condition', 'text?', 'a.condition'],
  ['isFoil', 'integer', 'a.isFoil'],
  ['isSigned', 'integer', 'a.isSigned'],
  ['isAltered', 'integer', 'a.isAltered'],
  ['isPlayset', 'integer', 'a.isPlayset'],
  ['isFirstEd', 'integer', 'a.isFirstEd'],
  ['isReverseHolo', 'integer', 'a.isReverseHolo'],
  ['count', 'integer', 'a.count'],
  ['createdAt', 'integer', 'a.createdAt'],
  ['lastEdited', 'integer', 'a.lastEdited'],
];

/**
 * Every column of `articleViews` (the article's, then the product facts under their `p_` names) as
 * `packedRow` columns, for a read of many whole views (a cart's lines) that packs each into one text.
 */
export const ARTICLE_VIEW_PACKED: PackedColumns = [...ARTICLE_PACKED, ...PRODUCT_FACTS_PACKED];

/** The joined select; every column of `articles` plus the product facts, flat. */
export function articleViews(db: Executor) {
  return articleViewJoins(db).selectAll('a').select(PRODUCT_FACT_COLUMNS);
}

/** The tables `articleViews` joins, for a query that selects their columns in another form. */
export function articleViewJoins(db: Executor) {
  return db
    .selectFrom('articles as a')
    .innerJoin('products as p', 'p.idProduct', 'a.idProduct')
    .leftJoin('expansions as e', 'e.idExpansion', 'p.idExpansion')
    .leftJoin('productNames as n', (join) =>
      join.onRef('n.idProduct', '=', 'a.idProduct').onRef('n.idLanguage', '=', 'a.idLanguage'),
    );
}

// A product's facts with its name in every language it has one in: a row per language (one row
// with no language when it has none).
const productFactRows = prepared(
  (db, idProduct: number) =>
    db
      .selectFrom('products as p')
      .leftJoin('expansions as e', 'e.idExpansion', 'p.idExpansion')
      .leftJoin('productNames as n', 'n.idProduct', 'p.idProduct')
      .select(PRODUCT_FACT_COLUMNS)
      .select(['p.idProduct as p_idProduct', 'n.idLanguage as n_idLanguage'])
      .where('p.idProduct', '=', idProduct),
  [0],
);

/**
 * One product's facts, by the language of the article that shows them, read in one statement: a
 * page of a product's offers shares one ProductFacts per language among its rows, instead of
 * joining the product, its expansion and its name into each of them. A language the product has
 * no name in shows the English name, as `coalesce(n.name, p.enName)` does in `articleViews`.
 * Undefined when there is no such product.
 */
export async function productFactsByLanguage(
  db: Executor,
  idProduct: number,
): Promise<((idLanguage: number) => ProductFacts) | undefined> {
  const rows = await productFactRows(db, idProduct);
  const first = rows[0];
  if (!first) return undefined;
  const facts = (locName: string): ProductFacts => ({
    idProduct: first.p_idProduct,
    idGame: first.p_idGame,
    enName: first.p_enName,
    locName,
    image: first.p_image,
    idExpansion: first.p_idExpansion,
    expansionName: first.p_expansionName,
    expansionAbbreviation: first.p_expansionAbbreviation,
    expansionIcon: first.p_expansionIcon,
    number: first.p_number,
    rarity: first.p_rarity,
    isSingle: first.p_isSingle,
  });
  const byLanguage = new Map<number, ProductFacts>();
  for (const r of rows) if (r.n_idLanguage !== null) byLanguage.set(r.n_idLanguage, facts(r.p_locName));
  let english: ProductFacts | undefined;
  return (idLanguage) => byLanguage.get(idLanguage) ?? (english ??= facts(first.p_enName));
}

export type FlatRow = Article & {
  p_idGame: number;
  p_enName: string;
  p_locName: string;
  p_image: string;
  p_idExpansion: number | null;
  p_expansionName: string | null;
  p_expansionAbbreviation: string | null;
  p_expansionIcon: number | null;
  p_number: string | null;
  p_rarity: string | null;
  p_isSingle: number;
};

/** Shapes a row of `articleViews` into an ArticleView. */
export function toArticleView(row: FlatRow): ArticleView {
  const {
    p_idGame,
    p_enName,
    p_locName,
    p_image,
    p_idExpansion,
    p_expansionName,
    p_expansionAbbreviation,
    p_expansionIcon,
    p_number,
    p_rarity,
    p_isSingle,
    ...article
  } = row;
  return {
    ...article,
    product: {
      idProduct: article.idProduct,
      idGame: p_idGame,
      enName: p_enName,
      locName: p_locName,
      image: p_image,
      idExpansion: p_idExpansion,
      expansionName: p_expansionName,
      expansionAbbreviation: p_expansionAbbreviation,
      expansionIcon: p_expansionIcon,
      number: p_number,
      rarity: p_rarity,
      isSingle: p_isSingle,
    },
  };
}

/**
 * Shapes a row of `articleViews` itself (the article's columns and the product facts, nothing
 * else) into an ArticleView, naming each field: pages of 100 articles shape 100 rows per request,
 * and this costs a fraction of the rest-destructuring of `toArticleView`, which rows that carry
 * other columns too (order lines, cart lines) go through.
 */
export function articleViewOf(row: FlatRow): ArticleView {
  return {
    idArticle: row.idArticle,
    idUser: row.idUser,
    idProduct: row.idProduct,
    idLanguage: row.idLanguage,
    comments: row.comments,
    price: row.price,
    condition: row.condition,
    isFoil: row.isFoil,
    isSigned: row.isSigned,
    isAltered: row.isAltered,
    isPlayset: row.isPlayset,
    isFirstEd: row.isFirstEd,
    isReverseHolo: row.isReverseHolo,
    count: row.count,
    createdAt: row.createdAt,
    lastEdited: row.lastEdited,
    product: {
      idProduct: row.idProduct,
      idGame: row.p_idGame,
      enName: row.p_enName,
      locName: row.p_locName,
      image: row.p_image,
      idExpansion: row.p_idExpansion,
      expansionName: row.p_expansionName,
      expansionAbbreviation: row.p_expansionAbbreviation,
      expansionIcon: row.p_expansionIcon,
      number: row.p_number,
      rarity: row.p_rarity,
      isSingle: row.p_isSingle,
    },
  };
}

export async function loadArticleViews(db: Executor, idArticles: number[]): Promise<ArticleView[]> {
  if (idArticles.length === 0) return [];
  return (await viewsByIds(db, idArticles)).rows.map((r) => articleViewOf(r));
}

/**
 * An article as its newest order line sold it, for an article that is gone: a checkout deletes the
 * articles it sold out, and an event about an earlier moment of that article (its reservation) is
 * derived after it. Its count is 0: none left on offer.
 */
export async function loadSoldArticleView(db: Executor, idArticle: number): Promise<ArticleView | undefined> {
  const row = await db
    .selectFrom('orderArticles as a')
    .innerJoin('orders as o', 'o.idOrder', 'a.idOrder')
    .innerJoin('products as p', 'p.idProduct', 'a.idProduct')
    .leftJoin('expansions as e', 'e.idExpansion', 'p.idExpansion')
    .leftJoin('productNames as n', (join) =>
      join.onRef('n.idProduct', '=', 'a.idProduct').onRef('n.idLanguage', '=', 'a.idLanguage'),
    )
    .select([
      'a.idArticle',
      'o.idSeller as idUser',
      'a.idProduct',
      'a.idLanguage',
      'a.comments',
      'a.price',
      'a.condition',
      'a.isFoil',
      'a.isSigned',
      'a.isAltered',
      'a.isPlayset',
      'a.isFirstEd',
      'a.isReverseHolo',
      'a.count',
      'o.dateBought as createdAt',
      'o.dateBought as lastEdited',
    ])
    .select(PRODUCT_FACT_COLUMNS)
    .where('a.idArticle', '=', idArticle)
    .orderBy('a.idOrder', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : { ...articleViewOf(row as unknown as FlatRow), count: 0 };
}

const viewsByIds = preparedBySize(
  (db: Executor, idArticles: number[]) =>
    articleViews(db).where('a.idArticle', 'in', idArticles).orderBy('a.idArticle').compile(),
  (idArticles) => idArticles.length,
  (idArticles) => idArticles,
);

/** The products of those of these articles that have copies available (ids absent or sold out: none). */
export async function availableArticleProducts(db: Executor, idArticles: number[]): Promise<number[]> {
  if (idArticles.length === 0) return [];
  return [...new Set((await productsOfAvailable(db, idArticles)).rows.map((r) => r.idProduct))];
}

const productsOfAvailable = preparedBySize(
  (db: Executor, idArticles: number[]) =>
    db
      .selectFrom('articles')
      .select('idProduct')
      .where('idArticle', 'in', idArticles)
      .where('count', '>', 0)
      .compile(),
  (idArticles) => idArticles.length,
  (idArticles) => [...idArticles, 0],
);

export async function insertArticle(db: Executor, article: NewArticle): Promise<Article> {
  return db.insertInto('articles').values(article).returningAll().executeTakeFirstOrThrow();
}

/** Several new articles in one statement; the rows come back in no promised order. */
export async function insertArticles(db: Executor, articles: NewArticle[]): Promise<Article[]> {
  if (articles.length === 0) return [];
  return (await insertRows(db, articles)).rows;
}

/** What an article is, in the order every multi-row write of articles or order lines lists it. */
export const ARTICLE_VALUE_COLUMNS = [
  'idProduct',
  'idLanguage',
  'comments',
  'price',
  'condition',
  'isFoil',
  'isSigned',
  'isAltered',
  'isPlayset',
  'isFirstEd',
  'isReverseHolo',
  'count',
] as const satisfies ReadonlyArray<keyof NewArticle & keyof OrderArticle>;

/** The columns of a new article row (also the demo seed's bulk insert). */
export const NEW_ARTICLE_COLUMNS = [
  'idUser',
  ...ARTICLE_VALUE_COLUMNS,
  'createdAt',
  'lastEdited',
] as const satisfies ReadonlyArray<keyof NewArticle>;

const newArticleValues = (a: NewArticle) => NEW_ARTICLE_COLUMNS.map((c) => a[c] ?? null);

const insertRows = preparedBySize(
  (db: Executor, articles: NewArticle[]) =>
    sql<Article>`insert into "articles" (${sql.join(NEW_ARTICLE_COLUMNS.map((c) => sql.ref(c)))})
      values ${sql.join(articles.map((a) => sql`(${sql.join(newArticleValues(a))})`))} returning *`.compile(
      db,
    ),
  (articles) => articles.length,
  (articles) => articles.flatMap(newArticleValues),
);

/** Articles as every feature shows them, with their copies in carts (`reserved`), by id. */
export async function articleViewsWithReserved(
  db: Executor,
  idArticles: number[],
): Promise<Array<{ view: ArticleView; reserved: number }>> {
  if (idArticles.length === 0) return [];
  const views = await loadArticleViews(db, idArticles);
  const reserved = await reservedCounts(db, idArticles);
  return views.map((view) => ({ view, reserved: reserved.get(view.idArticle) ?? 0 }));
}
