import { describeApps, type IssuedApp } from '../src/auth/apps.js';
import type { ClientCredentials } from '../src/auth/client.js';
import { seedDemo } from '../src/seed/index.js';
import type { Services } from '../src/services.js';
import { insertExpansion, insertGame, insertProduct } from '../src/store/catalog.js';
import type { Executor } from '../src/store/db.js';
import type { NewArticle } from '../src/store/schema.js';
import { findUserByUsername } from '../src/store/users.js';

/** What the scenarios' `prepare` functions share: users' credentials, a small catalog, articles. */

/** The credentials `createApp` issued for a dedicated app. */
export function issuedCredentials(issued: IssuedApp): ClientCredentials {
  return {
    appToken: issued.appToken,
    appSecret: issued.appSecret,
    accessToken: issued.accessToken!.token,
    accessTokenSecret: issued.accessToken!.secret,
  };
}

/** The credentials of a user's dedicated app, derived again from the database (e.g. a cached one). */
export async function dedicatedCredentials(services: Services, username: string): Promise<ClientCredentials> {
  const user = await findUserByUsername(services.database.db, username);
  const app = (await describeApps(services, user!.idUser)).find((a) => a.kind === 'dedicated')!;
  const token = app.accessTokens[0]!;
  return {
    appToken: app.appToken,
    appSecret: app.appSecret,
    accessToken: token.token,
    accessTokenSecret: token.secret,
  };
}

/** Loads the demo data unless the database has it already. */
export async function ensureDemo(services: Services): Promise<void> {
  if (!(await findUserByUsername(services.database.db, 'demo-seller'))) await seedDemo(services);
}

/** Magic with one expansion of `products` single cards, ids 1 to `products`. */
export async function benchCatalog(db: Executor, products: number): Promise<void> {
  await insertGame(db, { idGame: 1, name: 'Magic the Gathering', abbreviation: 'MtG' });
  await insertExpansion(db, {
    idExpansion: 1,
    idGame: 1,
    enName: 'Bench Expansion',
    abbreviation: 'BEN',
    icon: 1,
    releaseDate: Date.UTC(2020, 0, 1),
    isReleased: 1,
  });
  for (let p = 1; p <= products; p++) {
    await insertProduct(db, {
      idProduct: p,
      idGame: 1,
      idExpansion: 1,
      idMetaproduct: null,
      idCategory: 1,
      categoryName: 'Magic Single',
      enName: `Bench Card ${p}`,
      number: String(p),
      rarity: 'Rare',
      isSingle: 1,
      dateAdded: Date.UTC(2020, 0, 1),
      image: `/img/items/1/BEN/${p}.jpg`,
    });
  }
}

/** An article row (not written): English, near mint, no flags, no comment. */
export function benchArticle(
  idUser: number,
  idProduct: number,
  now: number,
  offer: { price: number; count: number },
): NewArticle {
  return {
    idUser,
    idProduct,
    idLanguage: 1,
    comments: '',
    price: offer.price,
    condition: 'NM',
    isFoil: 0,
    isSigned: 0,
    isAltered: 0,
    isPlayset: 0,
    isFirstEd: 0,
    isReverseHolo: 0,
    count: offer.count,
    createdAt: now,
    lastEdited: now,
  };
}
