import { sql } from 'kysely';
import type { Executor } from './db.js';
import { prepared, preparedBySize } from './prepared.js';
import { offerCounts } from './offers.js';
import type { ExpansionsTable, PriceGuide, Product } from './schema.js';

/**
 * What the Product entity shows, loaded for a page of products in a fixed number of queries
 * (products with game and expansion, names, reprint counts, offer counts), whatever the page size.
 */
export interface ProductInfo {
  product: Product;
  gameName: string;
  expansion: { idExpansion: number; enName: string; abbreviation: string; icon: number } | null;
  /** idLanguage → name. */
  names: Partial<Record<number, string>>;
  /** Printings bundled by the metaproduct (1 without one). */
  countReprints: number;
  countArticles: number;
  countFoils: number;
  /** Articles offered: the length of the product's offer list before its cap. */
  countOffers: number;
}

export interface Reprint {
  idProduct: number;
  expansionName: string | null;
  expansionIcon: number | null;
}

export interface ProductDetail extends ProductInfo {
  priceGuide: PriceGuide | undefined;
  /** Every printing of the card, this one included, oldest id first. */
  reprints: Reprint[];
}

export interface MetaproductInfo {
  idMetaproduct: number;
  enName: string;
  names: Partial<Record<number, string>>;
  image: string;
}

/** What a product info is but its offer counts, which move with every stock write. */
type CatalogInfo = Omit<ProductInfo, 'countArticles' | 'countFoils' | 'countOffers'>;

/** Product infos without their offer counts, per database, for one version of `productInfo`. */
interface CatalogInfos {
  version: number;
  infos: Map<number, CatalogInfo>;
}
const catalogInfos = new WeakMap<Executor, CatalogInfos>();
/** About 100 bytes of names and facts each: a few MB at most. */
const MAX_CATALOG_INFOS = 20_000;

const productInfoVersion = prepared(
  (db) => db.selectFrom('catalogVersions').select('version').where('name', '=', sql.lit('productInfo')),
  [],
);

/**
 * Product infos in the order of `idProducts`; unknown ids are left out. Outside a transaction the
 * catalog part of each is kept per version of `productInfo` (`0022_product_info_version`, raised
 * in every transaction that writes a table it comes from), and only the offer counts are read each
 * time: a page of found products was four statements, three of them over the catalog.
 */
export async function loadProductInfos(db: Executor, idProducts: number[]): Promise<ProductInfo[]> {
  if (idProducts.length === 0) return [];
  if (db.isTransaction) return withOfferCounts(db, idProducts, await loadCatalogInfos(db, idProducts));
  // The version before the rows: a write between them moves it, and the next read loads again.
  const version = Number((await productInfoVersion(db))[0]?.version ?? 0);
  let kept = catalogInfos.get(db);
  if (kept === undefined || kept.version !== version || kept.infos.size > MAX_CATALOG_INFOS) {
    kept = { version, infos: new Map() };
    catalogInfos.set(db, kept);
  }
  const { infos } = kept;
  const missing = idProducts.filter((id) => !infos.has(id));
  if (missing.length > 0)
    for (const info of await loadCatalogInfos(db, missing)) infos.set(info.product.idProduct, frozen(info));
  const found: CatalogInfo[] = [];
  for (const id of idProducts) {
    const info = infos.get(id);
    if (info !== undefined) found.push(info);
  }
  return withOfferCounts(db, idProducts, found);
}

/**
 * A kept info is shared by every answer until the version moves, and what is made of it is kept
 * beside it by object (the mappers' text of a listed product): nothing may change it in place.
 */
function frozen(info: CatalogInfo): CatalogInfo {
  Object.freeze(info.product);
  Object.freeze(info.names);
  if (info.expansion !== null) Object.freeze(info.expansion);
  return Object.freeze(info);
}

async function withOfferCounts(
  db: Executor,
  idProducts: number[],
  infos: CatalogInfo[],
): Promise<ProductInfo[]> {
  const counts = await offerCounts(db, idProducts);
  const out = new Array<ProductInfo>(infos.length);
  for (let i = 0; i < infos.length; i++) {
    const info = infos[i]!;
    const c = counts.get(info.product.idProduct);
    // Written out rather than spread: one object of one shape, no copying of a property list.
    out[i] = {
      product: info.product,
      gameName: info.gameName,
      expansion: info.expansion,
      names: info.names,
      countReprints: info.countReprints,
      countArticles: c?.countArticles ?? 0,
      countFoils: c?.countFoils ?? 0,
      countOffers: c?.countOffers ?? 0,
    };
  }
  return out;
}

/** The catalog part of product infos, in the order of `idProducts`; unknown ids are left out. */
async function loadCatalogInfos(db: Executor, idProducts: number[]): Promise<CatalogInfo[]> {
  const { rows } = await productInfoRows(db, idProducts);
  const names = await productNames(db, idProducts);
  const metaIds = [...new Set(rows.map((r) => r.idMetaproduct).filter((m): m is number => m !== null))];
  const reprintCounts = new Map<number, number>();
  if (metaIds.length > 0) {
    for (const c of (await reprintCountRows(db, metaIds)).rows)
      reprintCounts.set(c.idMetaproduct!, Number(c.n));
  }
  const byId = new Map<number, CatalogInfo>();
  for (const r of rows) {
    const { gameName, e_enName, e_abbreviation, e_icon, ...product } = r;
    byId.set(product.idProduct, {
      product,
      gameName,
      expansion:
        product.idExpansion !== null && e_enName !== null
          ? {
              idExpansion: product.idExpansion,
              enName: e_enName,
              abbreviation: e_abbreviation!,
              icon: e_icon!,
            }
          : null,
      names: names.get(product.idProduct) ?? {},
      countReprints: product.idMetaproduct === null ? 1 : (reprintCounts.get(product.idMetaproduct) ?? 1),
    });
  }
  return idProducts.map((id) => byId.get(id)).filter((i): i is CatalogInfo => i !== undefined);
}

// A search's page of products reads these: each compiled once per number of ids.
const productInfoRows = preparedBySize(
  (db: Executor, idProducts: number[]) =>
    db
      .selectFrom('products as p')
      .innerJoin('games as g', 'g.idGame', 'p.idGame')
      .leftJoin('expansions as e', 'e.idExpansion', 'p.idExpansion')
      .selectAll('p')
      .select([
        'g.name as gameName',
        'e.enName as e_enName',
        'e.abbreviation as e_abbreviation',
        'e.icon as e_icon',
      ])
      .where('p.idProduct', 'in', idProducts)
      .compile(),
  (idProducts) => idProducts.length,
  (idProducts) => idProducts,
);

const reprintCountRows = preparedBySize(
  (db: Executor, metaIds: number[]) =>
    db
      .selectFrom('products')
      .where('idMetaproduct', 'in', metaIds)
      .groupBy('idMetaproduct')
      .select((eb) => ['idMetaproduct', eb.fn.countAll<number>().as('n')])
      .compile(),
  (metaIds) => metaIds.length,
  (metaIds) => metaIds,
);

const productNameRows = preparedBySize(
  (db: Executor, idProducts: number[]) =>
    db
      .selectFrom('productNames')
      .select(['idProduct', 'idLanguage', 'name'])
      .where('idProduct', 'in', idProducts)
      .compile(),
  (idProducts) => idProducts.length,
  (idProducts) => idProducts,
);

export async function loadProductDetail(db: Executor, idProduct: number): Promise<ProductDetail | undefined> {
  const [info] = await loadProductInfos(db, [idProduct]);
  if (!info) return undefined;
  const [priceGuide] = await priceGuideOf(db, idProduct);
  let reprints: Reprint[];
  if (info.product.idMetaproduct === null) {
    reprints = [
      {
        idProduct,
        expansionName: info.expansion?.enName ?? null,
        expansionIcon: info.expansion?.icon ?? null,
      },
    ];
  } else {
    reprints = await reprintsOf(db, info.product.idMetaproduct);
  }
  return { ...info, priceGuide, reprints };
}

// Every product page reads these two.
const priceGuideOf = prepared(
  (db, idProduct: number) => db.selectFrom('priceGuides').selectAll().where('idProduct', '=', idProduct),
  [0],
);
const reprintsOf = prepared(
  (db, idMetaproduct: number) =>
    db
      .selectFrom('products as p')
      .leftJoin('expansions as e', 'e.idExpansion', 'p.idExpansion')
      .select(['p.idProduct', 'e.enName as expansionName', 'e.icon as expansionIcon'])
      .where('p.idMetaproduct', '=', idMetaproduct)
      .orderBy('p.idProduct'),
  [0],
);

/** idProduct → idLanguage → name. */
export async function productNames(
  db: Executor,
  idProducts: number[],
): Promise<Map<number, Partial<Record<number, string>>>> {
  const out = new Map<number, Partial<Record<number, string>>>();
  if (idProducts.length === 0) return out;
  const { rows } = await productNameRows(db, idProducts);
  for (const r of rows) {
    let names = out.get(r.idProduct);
    if (!names) {
      names = {};
      out.set(r.idProduct, names);
    }
    names[r.idLanguage] = r.name;
  }
  return out;
}

/** Singles of an expansion, by collector number then id. */
export async function expansionSingleIds(db: Executor, idExpansion: number): Promise<number[]> {
  const rows = await db
    .selectFrom('products')
    .select(['idProduct', 'number'])
    .where('idExpansion', '=', idExpansion)
    .where('isSingle', '=', 1)
    .execute();
  const num = (n: string | null) => (n !== null && /^\d+$/.test(n) ? Number(n) : Number.MAX_SAFE_INTEGER);
  rows.sort((a, b) => num(a.number) - num(b.number) || a.idProduct - b.idProduct);
  return rows.map((r) => r.idProduct);
}

export async function findExpansion(db: Executor, idExpansion: number): Promise<ExpansionsTable | undefined> {
  return db.selectFrom('expansions').selectAll().where('idExpansion', '=', idExpansion).executeTakeFirst();
}

/** idExpansion → idLanguage → name. */
export async function expansionNames(
  db: Executor,
  idExpansions: number[],
): Promise<Map<number, Partial<Record<number, string>>>> {
  const out = new Map<number, Partial<Record<number, string>>>();
  if (idExpansions.length === 0) return out;
  const rows = await db
    .selectFrom('expansionNames')
    .selectAll()
    .where('idExpansion', 'in', idExpansions)
    .execute();
  for (const r of rows) {
    let names = out.get(r.idExpansion);
    if (!names) {
      names = {};
      out.set(r.idExpansion, names);
    }
    names[r.idLanguage] = r.name;
  }
  return out;
}

/** Metaproducts with their names (their first printing's) and image, in the order given. */
export async function loadMetaproducts(db: Executor, idMetaproducts: number[]): Promise<MetaproductInfo[]> {
  if (idMetaproducts.length === 0) return [];
  const metas = await db
    .selectFrom('metaproducts')
    .selectAll()
    .where('idMetaproduct', 'in', idMetaproducts)
    .execute();
  const firsts = await db
    .selectFrom('products')
    .select((eb) => ['idMetaproduct', eb.fn.min<number>('idProduct').as('idProduct')])
    .where('idMetaproduct', 'in', idMetaproducts)
    .groupBy('idMetaproduct')
    .execute();
  const firstOf = new Map(firsts.map((f) => [f.idMetaproduct!, Number(f.idProduct)]));
  const firstIds = [...firstOf.values()];
  const names = await productNames(db, firstIds);
  const images = new Map(
    firstIds.length === 0
      ? []
      : (
          await db
            .selectFrom('products')
            .select(['idProduct', 'image'])
            .where('idProduct', 'in', firstIds)
            .execute()
        ).map((r) => [r.idProduct, r.image]),
  );
  const byId = new Map<number, MetaproductInfo>();
  for (const m of metas) {
    const first = firstOf.get(m.idMetaproduct);
    byId.set(m.idMetaproduct, {
      idMetaproduct: m.idMetaproduct,
      enName: m.enName,
      names: first === undefined ? {} : (names.get(first) ?? {}),
      image: first === undefined ? '' : (images.get(first) ?? ''),
    });
  }
  return idMetaproducts.map((id) => byId.get(id)).filter((m): m is MetaproductInfo => m !== undefined);
}

/** Printings of metaproducts: idMetaproduct → product ids, oldest first. */
export async function printingsOf(db: Executor, idMetaproducts: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (idMetaproducts.length === 0) return out;
  const rows = await db
    .selectFrom('products')
    .select(['idMetaproduct', 'idProduct'])
    .where('idMetaproduct', 'in', idMetaproducts)
    .orderBy('idProduct')
    .execute();
  for (const r of rows) {
    const list = out.get(r.idMetaproduct!) ?? [];
    list.push(r.idProduct);
    out.set(r.idMetaproduct!, list);
  }
  return out;
}
