import type { Executor } from './db.js';
import type { CatalogVersionsTable } from './schema.js';

/** Reads for the catalog download files (`domain/catalog-downloads.ts`), in pages of the product id. */

export async function catalogVersions(db: Executor): Promise<Record<CatalogVersionsTable['name'], number>> {
  const rows = await db.selectFrom('catalogVersions').select(['name', 'version']).execute();
  const out = { products: 0, priceGuides: 0, productSearch: 0, productInfo: 0 };
  for (const r of rows) out[r.name] = Number(r.version);
  return out;
}

export async function gameExists(db: Executor, idGame: number): Promise<boolean> {
  const row = await db.selectFrom('games').select('idGame').where('idGame', '=', idGame).executeTakeFirst();
  return row !== undefined;
}

export function productListPage(
  db: Executor,
  idGame: number,
  singles: boolean,
  after: number,
  limit: number,
) {
  return db
    .selectFrom('products')
    .select([
      'idProduct',
      'enName',
      'idCategory',
      'categoryName',
      'idExpansion',
      'idMetaproduct',
      'dateAdded',
    ])
    .where('idGame', '=', idGame)
    .where('isSingle', '=', singles ? 1 : 0)
    .where('idProduct', '>', after)
    .orderBy('idProduct')
    .limit(limit)
    .execute();
}

export function priceGuidePage(db: Executor, idGame: number, after: number, limit: number) {
  return db
    .selectFrom('products as p')
    .innerJoin('priceGuides as g', 'g.idProduct', 'p.idProduct')
    .select([
      'p.idProduct',
      'p.idCategory',
      'g.sell',
      'g.low',
      'g.trend',
      'g.avg1',
      'g.avg7',
      'g.avg30',
      'g.sellFoil',
      'g.lowFoil',
      'g.trendFoil',
      'g.foilAvg1',
      'g.foilAvg7',
      'g.foilAvg30',
    ])
    .where('p.idGame', '=', idGame)
    .where('p.idProduct', '>', after)
    .orderBy('p.idProduct')
    .limit(limit)
    .execute();
}
