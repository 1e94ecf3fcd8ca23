import { insertArticle } from '../src/store/articles.js';
import { insertMany } from '../src/store/bulk.js';
import { insertExpansion, insertGame, insertMetaproduct, insertProduct } from '../src/store/catalog.js';
import type { Article, NewArticle, User } from '../src/store/schema.js';
import type { TestServer } from './helpers.js';

/**
 * Small catalog fixtures for tests that need products and articles without the demo catalog.
 * Ids are allocated from counters so several fixtures can share one database.
 */
let nextExpansion = 9000;
let nextProduct = 900000;
let nextMetaproduct = 90000;

const GAMES: Record<number, [string, string]> = {
  1: ['Magic the Gathering', 'MtG'],
  3: ['Yu-Gi-Oh!', 'YGO'],
  6: ['Pokémon', 'PKM'],
};

export async function ensureGame(server: TestServer, idGame = 1): Promise<void> {
  const db = server.services.database.db;
  const exists = await db
    .selectFrom('games')
    .select('idGame')
    .where('idGame', '=', idGame)
    .executeTakeFirst();
  if (exists) return;
  const [name, abbreviation] = GAMES[idGame] ?? [`Game ${idGame}`, `G${idGame}`];
  await insertGame(db, { idGame, name, abbreviation });
}

export async function createExpansion(
  server: TestServer,
  options: { idGame?: number; enName?: string } = {},
) {
  const idGame = options.idGame ?? 1;
  await ensureGame(server, idGame);
  const idExpansion = nextExpansion++;
  await insertExpansion(server.services.database.db, {
    idExpansion,
    idGame,
    enName: options.enName ?? `Expansion ${idExpansion}`,
    abbreviation: `X${idExpansion}`,
    icon: idExpansion % 500,
    releaseDate: Date.UTC(2020, 0, 1),
    isReleased: 1,
  });
  return idExpansion;
}

export interface ProductFixture {
  idProduct: number;
  idGame: number;
  idExpansion: number;
  enName: string;
}

export async function createProduct(
  server: TestServer,
  options: {
    idGame?: number;
    enName?: string;
    isSingle?: boolean;
    idExpansion?: number;
    idMetaproduct?: number | null;
    names?: Partial<Record<number, string>>;
    rarity?: string;
  } = {},
): Promise<ProductFixture> {
  const idGame = options.idGame ?? 1;
  const idExpansion = options.idExpansion ?? (await createExpansion(server, { idGame }));
  const idProduct = nextProduct++;
  const enName = options.enName ?? `Test Card ${idProduct}`;
  const isSingle = options.isSingle ?? true;
  await insertProduct(
    server.services.database.db,
    {
      idProduct,
      idGame,
      idExpansion,
      idMetaproduct: options.idMetaproduct ?? null,
      idCategory: isSingle ? 1 : 2,
      categoryName: isSingle ? 'Magic Single' : 'Magic Booster',
      enName,
      number: isSingle ? String(idProduct % 300) : null,
      rarity: isSingle ? (options.rarity ?? 'Rare') : null,
      isSingle: isSingle ? 1 : 0,
      dateAdded: Date.UTC(2020, 0, 1),
      image: `/img/items/${idGame}/${idProduct}.jpg`,
    },
    options.names ?? {},
  );
  return { idProduct, idGame, idExpansion, enName };
}

export async function createMetaproduct(server: TestServer, enName: string): Promise<number> {
  const id = nextMetaproduct++;
  await insertMetaproduct(server.services.database.db, id, enName);
  return id;
}

export type ArticleOptions = Partial<Omit<Article, 'idArticle' | 'idUser' | 'idProduct'>>;

/** An article row of `seller` (not written): defaults to an English NM copy at 1.00, count 1. */
function articleFixture(
  seller: Pick<User, 'idUser'>,
  product: Pick<ProductFixture, 'idProduct'>,
  now: number,
  options: ArticleOptions = {},
): NewArticle {
  return {
    idUser: seller.idUser,
    idProduct: product.idProduct,
    idLanguage: 1,
    comments: '',
    price: 100,
    condition: 'NM',
    isFoil: 0,
    isSigned: 0,
    isAltered: 0,
    isPlayset: 0,
    isFirstEd: 0,
    isReverseHolo: 0,
    count: 1,
    createdAt: now,
    lastEdited: now,
    ...options,
  };
}

/** An article offered by `seller`, as `articleFixture` describes it. */
export async function createArticle(
  server: TestServer,
  seller: User,
  product: ProductFixture,
  options: ArticleOptions = {},
): Promise<Article> {
  return insertArticle(
    server.services.database.db,
    articleFixture(seller, product, server.clock.now(), options),
  );
}

/**
 * `n` articles of `seller` written in a few statements (a large stock, a crowded product), the
 * i-th as `articleFixture` with `options(i)`; returns the rows written, in order.
 */
export async function createArticles(
  server: TestServer,
  seller: User,
  product: ProductFixture,
  n: number,
  options: (i: number) => ArticleOptions,
): Promise<NewArticle[]> {
  const now = server.clock.now();
  const rows = Array.from({ length: n }, (_, i) => articleFixture(seller, product, now, options(i)));
  const columns = Object.keys(rows[0] ?? {}) as Array<keyof NewArticle>;
  await insertMany(
    server.services.database.db,
    'articles',
    columns,
    rows.map((r) => columns.map((c) => r[c])),
  );
  return rows;
}
