import { insertExpansion, insertGame, insertProduct } from '../src/store/catalog.js';
import type { TestServer } from './helpers.js';

/** Where the market tests start the marketplace clock: fixed, so runs are comparable to the byte. */
export const START = Date.UTC(2026, 10, 2, 9, 0, 0);

/** A catalog with fixed ids, so two databases built alike are alike to the byte. */
export async function catalog(server: TestServer, products = 8): Promise<number[]> {
  const db = server.services.database.db;
  await insertGame(db, { idGame: 1, name: 'Magic the Gathering', abbreviation: 'MtG' });
  await insertExpansion(db, {
    idExpansion: 7001,
    idGame: 1,
    enName: 'Market Test Set',
    abbreviation: 'MTS',
    icon: 1,
    releaseDate: Date.UTC(2020, 0, 1),
    isReleased: 1,
  });
  const ids: number[] = [];
  for (let i = 1; i <= products; i++) {
    const idProduct = 700_000 + i;
    await insertProduct(
      db,
      {
        idProduct,
        idGame: 1,
        idExpansion: 7001,
        idMetaproduct: null,
        idCategory: 1,
        categoryName: 'Magic Single',
        enName: `Market Card ${i}`,
        number: String(i),
        rarity: 'Rare',
        isSingle: 1,
        dateAdded: Date.UTC(2020, 0, 1),
        image: `/img/items/1/${idProduct}.jpg`,
      },
      {},
    );
    ids.push(idProduct);
  }
  return ids;
}
