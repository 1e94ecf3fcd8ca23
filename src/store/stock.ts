import { type Expression, type ExpressionBuilder, PostgresAdapter, type SqlBool, sql } from 'kysely';
import {
  ARTICLE_VALUE_COLUMNS,
  type ArticleView,
  articleViewJoins,
  articleViewOf,
  articleViews,
  type ProductFacts,
} from './articles.js';
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

/**
 * The facts of the products new articles name, in the languages they name (`ArticleView.product`,
 * with the English name where the product has none in that language), by `idProduct` and then
 * `idLanguage`; a product that does not exist is absent. A POST /stock checks its articles against
 * these and answers with them, so it never reads its new articles back.
 */
export async function productFactsOfListings(
  db: Executor,
  pairs: Array<[idProduct: number, idLanguage: number]>,
): Promise<Map<number, Map<number, ProductFacts>>> {
  const out = new Map<number, Map<number, ProductFacts>>();
  const unique = [...new Map(pairs.map((p) => [`${p[0]}:${p[1]}`, p])).values()];
  if (unique.length === 0) return out;
  for (const r of (await factsOfListings(db, unique)).rows) {
    let byLanguage = out.get(r.idProduct);
    if (byLanguage === undefined) out.set(r.idProduct, (byLanguage = new Map()));
    byLanguage.set(r.idLanguage, {
      idProduct: r.idProduct,
      idGame: r.p_idGame,
      enName: r.p_enName,
      locName: r.p_locName,
      image: r.p_image,
      idExpansion: r.p_idExpansion,
      expansionName: r.p_expansionName,
      expansionAbbreviation: r.p_expansionAbbreviation,
      expansionIcon: r.p_expansionIcon,
      number: r.p_number,
      rarity: r.p_rarity,
      isSingle: r.p_isSingle,
    });
  }
  return out;
}

type ListingFactsRow = { idProduct: number; idLanguage: number } & {
  [K in keyof ProductFacts as `p_${K}`]: ProductFacts[K];
};

const factsOfListings = preparedBySize(
  (db: Executor, pairs: Array<[number, number]>) => {
    const values = sql.join(pairs.map(([p, l]) => sql`(cast(${p} as integer), cast(${l} as integer))`));
    return sql<ListingFactsRow>`select "p"."idProduct" as "idProduct", "v"."column2" as "idLanguage",
      "p"."idGame" as "p_idGame", "p"."enName" as "p_enName",
      coalesce("n"."name", "p"."enName") as "p_locName", "p"."image" as "p_image",
      "p"."idExpansion" as "p_idExpansion", "e"."enName" as "p_expansionName",
      "e"."abbreviation" as "p_expansionAbbreviation", "e"."icon" as "p_expansionIcon",
      "p"."number" as "p_number", "p"."rarity" as "p_rarity", "p"."isSingle" as "p_isSingle"
      from (values ${values}) as "v"
      inner join "products" as "p" on "p"."idProduct" = "v"."column1"
      left join "expansions" as "e" on "e"."idExpansion" = "p"."idExpansion"
      left join "productNames" as "n" on "n"."idProduct" = "p"."idProduct" and "n"."idLanguage" = "v"."column2"`.compile(
      db,
    );
  },
  (pairs) => pairs.length,
  (pairs) => pairs.flat(),
);

/** A seller's article as a bulk write reads it: the row, its product's facts and its copies in carts. */
export interface LockedArticle {
  row: Article;
  /** The product facts in the language the row was read with (`ArticleView.product`). */
  product: ProductFacts;
  reserved: number;
}

/**
 * The seller's articles among these ids (others' ids are absent), with their product's facts and
 * their copies in carts. On PostgreSQL the article rows stay locked until the transaction ends, so
 * no buyer's reservation or release can change them between this read and the write that follows:
 * the write is planned from these values and applied in a few set-based statements, and the answer
 * shows them as written without reading them again. SQLite runs one write transaction at a time,
 * so nothing can change them there anyway.
 */
export async function lockedStockRows(db: Executor, idUser: number, ids: number[]): Promise<LockedArticle[]> {
  if (ids.length === 0) return [];
  const { rows } = await lockedRows(db, idUser, ids);
  const packed = rows.map((r) => (typeof r.packed === 'string' ? JSON.parse(r.packed) : r.packed) as Packed);
  const reserved = await reservedCounts(
    db,
    packed.map((v) => v[0]),
  );
  return packed.map((v) => lockedArticleOf(v, reserved.get(v[0]) ?? 0));
}

/**
 * A row of `articleViews` as one JSON array, in `PACKED_COLUMNS`' order. better-sqlite3 hands
 * every value of a row to V8 through its API (about 900 instructions each): a hundred rows of 27
 * columns cost more than the query. One text per row, parsed by V8's JSON parser, costs 40% less;
 * PostgreSQL sends the same array (its `json` values arrive parsed).
 */
type Packed = [idArticle: number, ...rest: unknown[]];

/** Every column of `articles`, in `Article`'s order. */
const ARTICLE_COLUMNS = [
  'idArticle',
  'idUser',
  ...ARTICLE_VALUE_COLUMNS,
  'createdAt',
  'lastEdited',
] as const satisfies ReadonlyArray<keyof Article>;

const PACKED_COLUMNS = [
  ...ARTICLE_COLUMNS.map((column) => sql.ref(`a.${column}`)),
  sql.ref('p.idGame'),
  sql.ref('p.enName'),
  sql`coalesce(${sql.ref('n.name')}, ${sql.ref('p.enName')})`,
  sql.ref('p.image'),
  sql.ref('p.idExpansion'),
  sql.ref('e.enName'),
  sql.ref('e.abbreviation'),
  sql.ref('e.icon'),
  sql.ref('p.number'),
  sql.ref('p.rarity'),
  sql.ref('p.isSingle'),
];

function lockedArticleOf(v: Packed, reserved: number): LockedArticle {
  const row: Article = {
    idArticle: v[0],
    idUser: v[1] as number,
    idProduct: v[2] as number,
    idLanguage: v[3] as number,
    comments: v[4] as string,
    price: v[5] as number,
    condition: v[6] as string | null,
    isFoil: v[7] as number,
    isSigned: v[8] as number,
    isAltered: v[9] as number,
    isPlayset: v[10] as number,
    isFirstEd: v[11] as number,
    isReverseHolo: v[12] as number,
    count: v[13] as number,
    createdAt: v[14] as number,
    lastEdited: v[15] as number,
  };
  const product: ProductFacts = {
    idProduct: row.idProduct,
    idGame: v[16] as number,
    enName: v[17] as string,
    locName: v[18] as string,
    image: v[19] as string,
    idExpansion: v[20] as number | null,
    expansionName: v[21] as string | null,
    expansionAbbreviation: v[22] as string | null,
    expansionIcon: v[23] as number | null,
    number: v[24] as string | null,
    rarity: v[25] as string | null,
    isSingle: v[26] as number,
  };
  return { row, product, reserved };
}

// `for update of "a"`: only the seller's articles are locked (PostgreSQL refuses to lock the
// nullable side of an outer join, and products must stay free for everyone else).
const lockedRows = preparedBySize(
  (db: Executor, idUser: number, ids: number[]) => {
    const pack = isPostgres(db) ? sql`json_build_array` : sql`json_array`;
    const query = articleViewJoins(db)
      .select(sql<string | Packed>`${pack}(${sql.join(PACKED_COLUMNS)})`.as('packed'))
      .where('a.idUser', '=', idUser)
      .where('a.idArticle', 'in', ids);
    return (isPostgres(db) ? query.forUpdate('a') : query).compile();
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
  /** With `attributes`: the price is the only one that differs from the row as read under lock. */
  priceOnly?: boolean;
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
type AttributeColumns = ReadonlyArray<(typeof ATTRIBUTE_COLUMNS)[number]>;

/**
 * The attribute columns a write's statement carries and sets: none when no article changes in
 * place (counts only), the price alone when that is all that differs (a price bot's request), or
 * all of them. Each value costs a binding and a cast per row, and every set column a CASE: a
 * hundred price changes cost 40% less this way. Three forms per length keep the texts bounded.
 */
const NO_ATTRIBUTES: AttributeColumns = [];
const PRICE_ONLY: AttributeColumns = ATTRIBUTE_COLUMNS.filter(([column]) => column === 'price');
function attributeColumns(changes: ArticleChange[]): AttributeColumns {
  let columns = NO_ATTRIBUTES;
  for (const c of changes) {
    if (c.attributes === undefined) continue;
    if (!c.priceOnly) return ATTRIBUTE_COLUMNS;
    columns = PRICE_ONLY;
  }
  return columns;
}

/** Appends a change's VALUES row to `values`: id, expected, delta, changed, then `columns`. */
function changeValues(c: ArticleChange, columns: AttributeColumns, values: unknown[] = []): unknown[] {
  const a = c.attributes;
  values.push(c.idArticle, c.expected, c.delta, a ? 1 : 0);
  for (let i = 0; i < columns.length; i++) values.push(a ? a[columns[i]![0]] : null);
  return values;
}

const articleChanges = preparedBySize(
  (db: Executor, idUser: number, changes: ArticleChange[], now: number, max: number) => {
    const columns = attributeColumns(changes);
    const casts = ['integer', 'integer', 'integer', 'integer', ...columns.map(([, type]) => type)];
    const rows = changes.map(
      (c) =>
        sql`(${sql.join(changeValues(c, columns).map((v, i) => sql`cast(${v} as ${sql.raw(casts[i]!)})`))})`,
    );
    // VALUES columns are column1, column2, … on both databases: id, expected, delta, changed, attributes.
    const set = columns.map(
      ([column], i) =>
        sql`, ${sql.ref(column)} = case when "v"."column4" = 1 then ${sql.ref(`v.column${5 + i}`)} else ${sql.ref(`articles.${column}`)} end`,
    );
    // `+ 0`: the seller check must not be usable as an index, or SQLite walks all the seller's
    // articles (by `articles_by_user`) instead of probing one primary key per VALUES row.
    return sql`update "articles" set "count" = "articles"."count" + "v"."column3"${sql.join(set, sql``)},
        "lastEdited" = ${now}
      from (values ${sql.join(rows)}) as "v"
      where "articles"."idArticle" = "v"."column1" and "articles"."idUser" + 0 = ${idUser}
        and ("v"."column2" is null or "articles"."count" = "v"."column2")
        and "articles"."count" + "v"."column3" between 0 and ${max}
        and ("v"."column4" = 0 or ${NOT_RESERVED})`.compile(db);
  },
  (_idUser, changes) => `${changes.length}:${attributeColumns(changes).length}`,
  (idUser, changes, now, max) => {
    const columns = attributeColumns(changes);
    // One array filled in place: a row's array each, flattened, was most of binding a hundred rows.
    const values: unknown[] = [now];
    for (const c of changes) changeValues(c, columns, values);
    values.push(idUser, max);
    return values;
  },
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
