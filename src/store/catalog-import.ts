import type { PriceGuideRecord, ProductRecord } from '../importer/records.js';
import { insertMany } from './bulk.js';
import type { Executor } from './db.js';
import { productNames } from './products.js';
import { reindexProducts } from './search.js';

/**
 * Writing imported catalog records: upserts keyed by the marketplace's own ids, so importing the
 * same file twice updates rows and never duplicates them. Expansions and metacards a product file
 * refers to but does not describe get placeholder rows (the file carries only their ids).
 */

export async function ensureGame(
  db: Executor,
  idGame: number,
  name: string,
  abbreviation: string,
): Promise<void> {
  await insertMany(db, 'games', ['idGame', 'name', 'abbreviation'], [[idGame, name, abbreviation]], {
    onConflict: 'nothing',
  });
}

/** Upserts one batch of products of one game (ids unique within the batch). */
export async function upsertProducts(db: Executor, idGame: number, records: ProductRecord[]): Promise<void> {
  if (records.length === 0) return;
  const expansionIds = [...new Set(records.map((r) => r.idExpansion).filter((e): e is number => e !== null))];
  if (expansionIds.length > 0) {
    const known = new Set(
      (
        await db
          .selectFrom('expansions')
          .select('idExpansion')
          .where('idExpansion', 'in', expansionIds)
          .execute()
      ).map((r) => r.idExpansion),
    );
    const missing = expansionIds.filter((id) => !known.has(id));
    await insertMany(
      db,
      'expansions',
      ['idExpansion', 'idGame', 'enName', 'abbreviation', 'icon', 'releaseDate', 'isReleased'],
      missing.map((id) => [id, idGame, `Expansion ${id}`, '', 0, null, 1]),
    );
    await insertMany(
      db,
      'expansionNames',
      ['idExpansion', 'idLanguage', 'name'],
      missing.map((id) => [id, 1, `Expansion ${id}`]),
    );
  }
  const metacards = new Map<number, string>();
  for (const r of records)
    if (r.idMetacard !== null && !metacards.has(r.idMetacard)) metacards.set(r.idMetacard, r.name);
  await insertMany(db, 'metaproducts', ['idMetaproduct', 'enName'], [...metacards], {
    onConflict: 'nothing',
  });
  const updated = [
    'idGame',
    'idExpansion',
    'idMetaproduct',
    'idCategory',
    'categoryName',
    'enName',
    'isSingle',
    'dateAdded',
  ] as const;
  await insertMany(
    db,
    'products',
    ['idProduct', ...updated],
    records.map((r) => [
      r.idProduct,
      idGame,
      r.idExpansion,
      r.idMetacard,
      r.idCategory,
      r.categoryName,
      r.name,
      /single/i.test(r.categoryName) ? 1 : 0,
      r.dateAdded,
    ]),
    { onConflict: { key: ['idProduct'], update: [...updated] } },
  );
  // Pictures only where a record names one: a file without them keeps what the catalog has.
  for (const r of records) {
    if (r.image !== null) {
      await db.updateTable('products').set({ image: r.image }).where('idProduct', '=', r.idProduct).execute();
    }
  }
  await insertMany(
    db,
    'productNames',
    ['idProduct', 'idLanguage', 'name'],
    records.map((r) => [r.idProduct, 1, r.name]),
    { onConflict: { key: ['idProduct', 'idLanguage'], update: ['name'] } },
  );
  const ids = records.map((r) => r.idProduct);
  const names = await productNames(db, ids);
  await reindexProducts(
    db,
    records.map((r) => ({ idProduct: r.idProduct, idGame, names: names.get(r.idProduct) ?? { 1: r.name } })),
  );
}

/** The values of an imported price guide, in the order rows of `importedPriceGuides` are written. */
export const IMPORTED_GUIDE_VALUES = [
  'sell',
  'low',
  'trend',
  'avg1',
  'avg7',
  'avg30',
  'sellFoil',
  'lowFoil',
  'trendFoil',
  'foilAvg1',
  'foilAvg7',
  'foilAvg30',
] as const;

/** Upserts imported price guides of the products that exist; returns the ids written. */
export async function upsertImportedGuides(
  db: Executor,
  records: PriceGuideRecord[],
  now: number,
): Promise<number[]> {
  if (records.length === 0) return [];
  const known = new Set(
    (
      await db
        .selectFrom('products')
        .select('idProduct')
        .where(
          'idProduct',
          'in',
          records.map((r) => r.idProduct),
        )
        .execute()
    ).map((r) => r.idProduct),
  );
  const rows = records.filter((r) => known.has(r.idProduct));
  await insertMany(
    db,
    'importedPriceGuides',
    ['idProduct', ...IMPORTED_GUIDE_VALUES, 'importedAt'],
    rows.map((r) => [r.idProduct, ...IMPORTED_GUIDE_VALUES.map((c) => r[c]), now]),
    { onConflict: { key: ['idProduct'], update: [...IMPORTED_GUIDE_VALUES, 'importedAt'] } },
  );
  return rows.map((r) => r.idProduct);
}
