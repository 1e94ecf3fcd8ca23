import { badRequest, notFound } from '../errors.js';
import {
  expansionNames,
  expansionSingleIds,
  findExpansion,
  loadMetaproducts,
  loadProductDetail,
  loadProductInfos,
  type MetaproductInfo,
  type ProductDetail,
  type ProductInfo,
  printingsOf,
} from '../store/products.js';
import { lowestPrices } from '../store/offers.js';
import { storedGuides } from '../store/priceguide.js';
import { newestListings, recentlySold, type ShelfItem, trendMovers } from '../store/shelves.js';
import type { ExpansionsTable, GamesTable } from '../store/schema.js';
import { type SearchQuery, searchIndexVersion, searchProducts } from '../store/search.js';
import type { Database } from '../store/db.js';
import { findUserById } from '../store/users.js';
import { DISPLAY_LANGUAGES } from './catalog.js';
import type { DomainContext, Window } from './context.js';
import { foldWords, MIN_SEARCH_LENGTH } from './search-text.js';

/** The catalog as the public marketplace reads it: games, expansions, products, metaproducts. */

/** The language `locName` is written in: the user's display language; English for widget apps. */
export async function viewerLanguage(ctx: DomainContext, idUser: number | null): Promise<number> {
  if (idUser === null) return 1;
  return (await findUserById(ctx.database.db, idUser))?.idDisplayLanguage ?? 1;
}

export async function listGames(ctx: DomainContext): Promise<GamesTable[]> {
  return ctx.database.db.selectFrom('games').selectAll().orderBy('idGame').execute();
}

export interface ExpansionView {
  expansion: ExpansionsTable;
  names: Partial<Record<number, string>>;
}

/** A game's expansions, newest first (as the website lists them). */
export async function gameExpansions(ctx: DomainContext, idGame: number): Promise<ExpansionView[]> {
  const db = ctx.database.db;
  const game = await db.selectFrom('games').select('idGame').where('idGame', '=', idGame).executeTakeFirst();
  if (!game) throw notFound(`There is no game ${idGame}.`);
  const expansions = await db
    .selectFrom('expansions')
    .selectAll()
    .where('idGame', '=', idGame)
    .orderBy('releaseDate', 'desc')
    .orderBy('idExpansion', 'desc')
    .execute();
  const names = await expansionNames(
    db,
    expansions.map((e) => e.idExpansion),
  );
  return expansions.map((expansion) => ({ expansion, names: names.get(expansion.idExpansion) ?? {} }));
}

export async function expansionSingles(
  ctx: DomainContext,
  idExpansion: number,
): Promise<ExpansionView & { singles: ProductInfo[] }> {
  const db = ctx.database.db;
  const expansion = await findExpansion(db, idExpansion);
  if (!expansion) throw notFound(`There is no expansion ${idExpansion}.`);
  const names = (await expansionNames(db, [idExpansion])).get(idExpansion) ?? {};
  const singles = await loadProductInfos(db, await expansionSingleIds(db, idExpansion));
  return { expansion, names, singles };
}

export async function productDetail(ctx: DomainContext, idProduct: number): Promise<ProductDetail> {
  const detail = await loadProductDetail(ctx.database.db, idProduct);
  if (!detail) throw notFound(`There is no product ${idProduct}.`);
  return detail;
}

export interface FindInput {
  search: string | undefined;
  exact: boolean;
  idGame: number | undefined;
  /** The language the search string is written in (default English). */
  idLanguage: number | undefined;
}

function searchQuery(input: FindInput) {
  const text = (input.search ?? '').trim();
  if (text === '')
    throw badRequest('Provide a search string ("search").', { field: 'search', reason: 'required' });
  if (!input.exact && Array.from(text).length < MIN_SEARCH_LENGTH) {
    throw badRequest(
      `Provide a search string for non-exact searches with at least ${MIN_SEARCH_LENGTH} characters.`,
      { field: 'search', reason: 'search_too_short', params: { min: MIN_SEARCH_LENGTH } },
    );
  }
  const idLanguage = input.idLanguage ?? 1;
  if (!(DISPLAY_LANGUAGES as readonly number[]).includes(idLanguage)) {
    throw badRequest('idLanguage must be one of the languages products are named in: 1 to 5.', {
      field: 'idLanguage',
    });
  }
  return { text, exact: input.exact, idLanguage, idGame: input.idGame };
}

/**
 * The products each search found, kept while the search index stays at the version they were found
 * at (`searchIndexVersion`, raised by the database in the transaction of every write to the index):
 * a request reads the version, one small statement, and searches again only after it moved. Every
 * instance checks the one version in the database, so none serves what a fresh search would not
 * find. Price bots repeat the same searches all day; a search is an intersection of index ranges
 * of a few thousand entries each, the costliest statement of a page of results.
 */
class SearchHits {
  private version = -1;
  private readonly hits = new Map<string, readonly number[]>();

  async find(db: Database['db'], q: SearchQuery): Promise<readonly number[]> {
    const version = await searchIndexVersion(db);
    const key = `${q.idLanguage} ${q.idGame ?? ''} ${q.exact ? 'exact' : 'words'} ${foldWords(q.text).join(' ')}`;
    if (version !== this.version) {
      this.hits.clear();
      this.version = version;
    }
    const cached = this.hits.get(key);
    if (cached) {
      // Most recently used last: the first key is the one to let go.
      this.hits.delete(key);
      this.hits.set(key, cached);
      return cached;
    }
    const found = Object.freeze(await searchProducts(db, q));
    // A write moved the version while this search ran: its result belongs to no version kept here.
    if (version !== this.version || found.length > MAX_KEPT_HITS) return found;
    if (this.hits.size >= MAX_KEPT_SEARCHES) this.hits.delete(this.hits.keys().next().value!);
    this.hits.set(key, found);
    return found;
  }
}

/** Bounds of what is kept: about 256 searches of up to 10,000 products, 20 MB at the very most. */
const MAX_KEPT_SEARCHES = 256;
const MAX_KEPT_HITS = 10_000;

/** One per database: test servers of one process each have their own. */
const searchHits = new WeakMap<Database, SearchHits>();

function foundProducts(ctx: DomainContext, input: FindInput): Promise<readonly number[]> {
  let hits = searchHits.get(ctx.database);
  if (!hits) {
    hits = new SearchHits();
    searchHits.set(ctx.database, hits);
  }
  return hits.find(ctx.database.db, searchQuery(input));
}

/** Products matching a search: how many in all, and the infos of one window of them. */
export async function findProducts(
  ctx: DomainContext,
  input: FindInput,
  window: Window,
): Promise<{ total: number; products: ProductInfo[] }> {
  const db = ctx.database.db;
  const hits = await foundProducts(ctx, input);
  const page = hits.slice(window.offset, window.offset + window.limit);
  return { total: hits.length, products: await loadProductInfos(db, page) };
}

export interface MetaproductView {
  meta: MetaproductInfo;
  products: ProductInfo[];
}

export async function metaproductWithPrintings(
  ctx: DomainContext,
  idMetaproduct: number,
): Promise<MetaproductView> {
  const [view] = await metaproductViews(ctx, [idMetaproduct]);
  if (!view) throw notFound(`There is no metaproduct ${idMetaproduct}.`);
  return view;
}

/** Metaproducts whose printings match a search, in the order of their first matching printing. */
export async function findMetaproducts(
  ctx: DomainContext,
  input: FindInput,
  window: Window,
): Promise<{ total: number; metaproducts: MetaproductView[] }> {
  const db = ctx.database.db;
  const hits = await foundProducts(ctx, input);
  if (hits.length === 0) return { total: 0, metaproducts: [] };
  const metaOf = new Map<number, number | null>();
  for (let i = 0; i < hits.length; i += 500) {
    const ids = hits.slice(i, i + 500);
    const rows = await db
      .selectFrom('products')
      .select(['idProduct', 'idMetaproduct'])
      .where('idProduct', 'in', ids)
      .execute();
    for (const r of rows) metaOf.set(r.idProduct, r.idMetaproduct);
  }
  const ordered: number[] = [];
  const seen = new Set<number>();
  for (const h of hits) {
    const m = metaOf.get(h);
    if (m === null || m === undefined || seen.has(m)) continue;
    seen.add(m);
    ordered.push(m);
  }
  const page = ordered.slice(window.offset, window.offset + window.limit);
  return { total: ordered.length, metaproducts: await metaproductViews(ctx, page) };
}

async function metaproductViews(ctx: DomainContext, idMetaproducts: number[]): Promise<MetaproductView[]> {
  const db = ctx.database.db;
  const metas = await loadMetaproducts(db, idMetaproducts);
  const printings = await printingsOf(db, idMetaproducts);
  const infos = await loadProductInfos(db, [...printings.values()].flat());
  const infoById = new Map(infos.map((i) => [i.product.idProduct, i]));
  return metas.map((meta) => ({
    meta,
    products: (printings.get(meta.idMetaproduct) ?? [])
      .map((id) => infoById.get(id))
      .filter((i): i is ProductInfo => i !== undefined),
  }));
}

/** What a list shows beside a product: its cheapest offer and its price trend (cents; null: none). */
export interface ListPrice {
  from: number | null;
  trend: number | null;
}

/** The cheapest copy on offer of one product (cents), undefined when none is. */
export async function lowestPrice(ctx: DomainContext, idProduct: number): Promise<number | undefined> {
  return (await lowestPrices(ctx.database.db, [idProduct])).get(idProduct);
}

/** The "from" price and the trend of each product given, for the website's lists. */
export async function listPrices(ctx: DomainContext, idProducts: number[]): Promise<Map<number, ListPrice>> {
  const ids = [...new Set(idProducts)];
  const db = ctx.database.db;
  const [lowest, guides] = await Promise.all([lowestPrices(db, ids), storedGuides(db, ids)]);
  const trends = new Map(guides.map((g) => [g.idProduct, g.trend]));
  return new Map(ids.map((id) => [id, { from: lowest.get(id) ?? null, trend: trends.get(id) ?? null }]));
}

export interface Shelf {
  items: { info: ProductInfo; price: number; before?: number }[];
}

/** The home page's shelves: newest listings, recently sold, the biggest trend changes; 8 cards each. */
export async function homeShelves(
  ctx: DomainContext,
): Promise<{ newest: Shelf; sold: Shelf; movers: Shelf }> {
  const db = ctx.database.db;
  const SIZE = 8;
  const [newest, sold, movers] = await Promise.all([
    newestListings(db, SIZE),
    recentlySold(db, SIZE),
    keptMovers(ctx, SIZE),
  ]);
  const ids = [...new Set([...newest, ...sold, ...movers].map((i) => i.idProduct))];
  const infos = new Map((await loadProductInfos(db, ids)).map((i) => [i.product.idProduct, i]));
  const shelf = (items: ShelfItem[]): Shelf => ({
    items: items.flatMap((i) => {
      const info = infos.get(i.idProduct);
      return info ? [{ info, price: i.price, before: i.before }] : [];
    }),
  });
  return { newest: shelf(newest), sold: shelf(sold), movers: shelf(movers) };
}

/**
 * The trend movers sort every price guide: kept a minute per database (guides change when the
 * price guide is refreshed, a few times a day), so a busy front page reads them once a minute.
 */
const movers = new WeakMap<object, { at: number; items: Promise<ShelfItem[]> }>();
const MOVERS_KEPT_MS = 60_000;

function keptMovers(ctx: DomainContext, size: number): Promise<ShelfItem[]> {
  const now = ctx.clock.now();
  const kept = movers.get(ctx.database);
  if (kept && now - kept.at >= 0 && now - kept.at < MOVERS_KEPT_MS) return kept.items;
  const items = trendMovers(ctx.database.db, size);
  movers.set(ctx.database, { at: now, items });
  items.catch(() => movers.delete(ctx.database));
  return items;
}
