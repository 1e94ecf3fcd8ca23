import type { Executor } from './db.js';
import { prepared } from './prepared.js';
import type { ExpansionsTable, GamesTable, ProductsTable } from './schema.js';
import { indexRows, insertIndexRows } from './search.js';

/** Plain inserts of catalog rows, used by the demo generator, the importers and test fixtures. */

export async function insertGame(db: Executor, game: GamesTable): Promise<void> {
  await db.insertInto('games').values(game).execute();
}

/** An expansion and its localized names (`names[idLanguage]`; English defaults to `enName`). */
export async function insertExpansion(
  db: Executor,
  expansion: ExpansionsTable,
  names: Partial<Record<number, string>> = {},
): Promise<void> {
  await db.insertInto('expansions').values(expansion).execute();
  const rows = Object.entries({ 1: expansion.enName, ...names }).map(([idLanguage, name]) => ({
    idExpansion: expansion.idExpansion,
    idLanguage: Number(idLanguage),
    name: name as string,
  }));
  await db.insertInto('expansionNames').values(rows).execute();
}

export async function insertMetaproduct(db: Executor, idMetaproduct: number, enName: string): Promise<void> {
  await db.insertInto('metaproducts').values({ idMetaproduct, enName }).execute();
}

/**
 * A product and its localized names (`names[idLanguage]`; English defaults to `enName`), indexed
 * for search in the same breath.
 */
export async function insertProduct(
  db: Executor,
  product: ProductsTable,
  names: Partial<Record<number, string>> = {},
): Promise<void> {
  await db.insertInto('products').values(product).execute();
  const rows = Object.entries({ 1: product.enName, ...names }).map(([idLanguage, name]) => ({
    idProduct: product.idProduct,
    idLanguage: Number(idLanguage),
    name: name as string,
  }));
  await db.insertInto('productNames').values(rows).execute();
  await insertIndexRows(
    db,
    indexRows([
      {
        idProduct: product.idProduct,
        idGame: product.idGame,
        names: Object.fromEntries(rows.map((r) => [r.idLanguage, r.name])),
      },
    ]),
  );
}

// Every offer page and product read starts here: prepared once.
const productById = prepared(
  (db, idProduct: number) => db.selectFrom('products').selectAll().where('idProduct', '=', idProduct),
  [0],
);

export async function findProduct(db: Executor, idProduct: number) {
  return (await productById(db, idProduct))[0];
}
