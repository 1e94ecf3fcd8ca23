import { gameRules } from '../domain/catalog.js';
import type { Services } from '../services.js';
import { insertMany } from '../store/bulk.js';
import { IMPORTED_GUIDE_VALUES } from '../store/catalog-import.js';
import type { Tx } from '../store/db.js';
import { indexRows, insertIndexRows } from '../store/search.js';
import {
  type CatalogPlan,
  DEMO_EPOCH,
  DEMO_GAMES,
  type ExpansionPlan,
  FIRST_EXPANSION_ID,
  type ProductPlan,
} from './catalog-plan.js';
import { unit } from './prng.js';
import type { Progress } from './progress.js';

/**
 * Loads the planned catalog: games, then expansions with their products, names, search index and a
 * stand-in imported price guide, a batch of expansions per transaction. Expansions that exist are
 * skipped, so loading a larger scale over a smaller one adds only what is new.
 */
const EXPANSIONS_PER_TRANSACTION = 36;

export async function seedCatalog(
  services: Services,
  plan: CatalogPlan,
  progress: Progress,
): Promise<number> {
  const db = services.database.db;
  await insertMany(
    db,
    'games',
    ['idGame', 'name', 'abbreviation'],
    DEMO_GAMES.map((g) => [g.idGame, g.name, g.abbreviation]),
    { onConflict: 'nothing' },
  );
  const existing = new Set(
    (
      await db
        .selectFrom('expansions')
        .select('idExpansion')
        .where('idExpansion', '>=', FIRST_EXPANSION_ID)
        .where('idExpansion', '<', FIRST_EXPANSION_ID + plan.expansions.length)
        .execute()
    ).map((r) => r.idExpansion),
  );
  const missing = plan.expansions.filter((e) => !existing.has(e.idExpansion));
  let products = 0;
  for (let i = 0; i < missing.length; i += EXPANSIONS_PER_TRANSACTION) {
    const batch = missing.slice(i, i + EXPANSIONS_PER_TRANSACTION);
    await services.database.transaction((tx) => insertExpansionPlans(tx, batch));
    products += batch.reduce((n, e) => n + e.products.length, 0);
    progress.advance(batch.length);
  }
  return products;
}

/**
 * One statement shape per table for the whole batch (rows of every expansion together), so the
 * multi-row statements are prepared once and reused.
 */
async function insertExpansionPlans(tx: Tx, batch: ExpansionPlan[]): Promise<void> {
  const all = batch.flatMap((e) => e.products);
  await insertMany(
    tx,
    'expansions',
    ['idExpansion', 'idGame', 'enName', 'abbreviation', 'icon', 'releaseDate', 'isReleased'],
    batch.map((e) => [
      e.idExpansion,
      e.idGame,
      e.names[0],
      e.abbreviation,
      e.icon,
      e.releaseDate,
      e.isReleased,
    ]),
  );
  await insertMany(
    tx,
    'expansionNames',
    ['idExpansion', 'idLanguage', 'name'],
    batch.flatMap((e) => e.names.map((name, l) => [e.idExpansion, l + 1, name])),
  );
  // A reprint's metaproduct was introduced by an earlier expansion; only new cards add one.
  await insertMany(
    tx,
    'metaproducts',
    ['idMetaproduct', 'enName'],
    batch.flatMap((e) => e.newMetaproducts),
    { onConflict: 'nothing' },
  );
  await insertMany(
    tx,
    'products',
    [
      'idProduct',
      'idGame',
      'idExpansion',
      'idMetaproduct',
      'idCategory',
      'categoryName',
      'enName',
      'number',
      'rarity',
      'isSingle',
      'dateAdded',
      'image',
    ],
    all.map((p) => [
      p.idProduct,
      p.idGame,
      p.idExpansion,
      p.idMetaproduct,
      p.idCategory,
      p.categoryName,
      p.names[0],
      p.number,
      p.rarity,
      p.isSingle,
      p.dateAdded,
      p.image,
    ]),
  );
  await insertMany(
    tx,
    'productNames',
    ['idProduct', 'idLanguage', 'name'],
    all.flatMap((p) => p.names.map((name, l) => [p.idProduct, l + 1, name])),
  );
  await insertIndexRows(
    tx,
    indexRows(
      all.map((p) => ({
        idProduct: p.idProduct,
        idGame: p.idGame,
        names: Object.fromEntries(p.names.map((n, l) => [l + 1, n])),
      })),
    ),
  );
  await insertMany(
    tx,
    'importedPriceGuides',
    ['idProduct', ...IMPORTED_GUIDE_VALUES, 'importedAt'],
    all.flatMap((p) => {
      const row = importedGuide(p);
      return row ? [row] : [];
    }),
  );
}

/**
 * What a published price guide might say about a product, drawn around its reference price: the
 * demo's stand-in for an imported guide, so products nobody trades yet still show prices.
 */
function importedGuide(p: ProductPlan): unknown[] | null {
  if (unit(`guide-${p.idProduct}`) < 0.1) return null;
  const around = (key: string, spread: number) =>
    Math.max(2, Math.round(p.basePrice * (1 + (unit(`${key}-${p.idProduct}`) - 0.5) * spread)));
  const foil = p.isSingle === 1 && gameRules(p.idGame).flags.includes('isFoil');
  const foilPrice = (key: string) => (foil ? Math.round(around(key, 0.4) * 2.5) : null);
  return [
    p.idProduct,
    around('sell', 0.3),
    Math.max(2, Math.round(p.basePrice * 0.6)),
    around('trend', 0.2),
    around('avg1', 0.5),
    around('avg7', 0.3),
    around('avg30', 0.2),
    foilPrice('sellfoil'),
    foil ? Math.max(2, Math.round(p.basePrice * 1.5)) : null,
    foilPrice('trendfoil'),
    foilPrice('avg1foil'),
    foilPrice('avg7foil'),
    foilPrice('avg30foil'),
    DEMO_EPOCH,
  ];
}
