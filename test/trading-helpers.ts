import { randomBytes } from 'node:crypto';
import { createUser } from '../src/domain/users.js';
import type { Article, User } from '../src/store/schema.js';
import { type ArticleOptions, createArticle, createProduct, type ProductFixture } from './fixtures.js';
import { ApiClient, createTestApp, type TestServer, xmlRequest } from './helpers.js';

/**
 * Helpers for the trading suites: users with a full postal address (a checkout needs one), their
 * articles, and the cart and order requests a client sends.
 */
let counter = 0;

export interface Trader {
  user: User;
  api: ApiClient;
}

export async function createTrader(
  server: TestServer,
  options: { country?: string; balanceCents?: number; name?: string } = {},
): Promise<Trader> {
  counter++;
  const username = `${options.name ?? 'trader'}${counter}-${randomBytes(3).toString('hex')}`;
  const user = await createUser(server.services, {
    username,
    country: options.country ?? 'D',
    accountType: 'private',
    balanceCents: options.balanceCents ?? 0,
    firstName: 'Test',
    lastName: `Trader ${counter}`,
    street: `Teststraße ${counter}`,
    zip: '10115',
    city: 'Berlin',
    phoneNumber: `+49 30 ${counter}`,
  });
  const cred = await createTestApp(server, user);
  return { user, api: new ApiClient(server, cred) };
}

let sharedProduct: ProductFixture | undefined;
let sharedProductServer: TestServer | undefined;

/** An article of `seller` (a product of its own unless given), default 1 copy at 1.00. */
export async function offer(
  server: TestServer,
  seller: User,
  options: ArticleOptions & { product?: ProductFixture } = {},
): Promise<Article> {
  const { product: given, ...fields } = options;
  let product = given;
  if (!product) {
    if (sharedProductServer !== server) {
      sharedProduct = await createProduct(server, { enName: 'Trading Test Card' });
      sharedProductServer = server;
    }
    product = sharedProduct!;
  }
  return createArticle(server, seller, product, fields);
}

export const articleXml = (idArticle: number, count = 1, element = 'count') =>
  `<article><idArticle>${idArticle}</idArticle><${element}>${count}</${element}></article>`;

export function cartBody(action: 'add' | 'remove', items: Array<[number, number]>): string {
  return xmlRequest(`<action>${action}</action>${items.map(([id, n]) => articleXml(id, n)).join('')}`);
}

export async function addToCart(api: ApiClient, items: Array<[number, number]>) {
  return api.put('/shoppingcart', cartBody('add', items), { json: true });
}

/** Adds the items and checks out; returns the JSON orders of the checkout. */
export async function buy(api: ApiClient, items: Array<[number, number]>) {
  const added = await addToCart(api, items);
  if (added.status !== 200 || added.json.failed.length > 0) {
    throw new Error(`add failed: ${added.status} ${added.text}`);
  }
  const res = await api.put('/shoppingcart/checkout', undefined, { json: true });
  if (res.status !== 200) throw new Error(`checkout failed: ${res.status} ${res.text}`);
  return res.json.order as Array<{ idOrder: number; [k: string]: unknown }>;
}

export const orderAction = (action: string, extra = '') => xmlRequest(`<action>${action}</action>${extra}`);

/** Stock and money as the database holds them, for conservation checks. */
export async function articleCount(server: TestServer, idArticle: number): Promise<number | undefined> {
  const row = await server.services.database.db
    .selectFrom('articles')
    .select('count')
    .where('idArticle', '=', idArticle)
    .executeTakeFirst();
  return row?.count;
}

export async function balances(server: TestServer, idUser: number) {
  return server.services.database.db
    .selectFrom('users')
    .select(['moneyBalance', 'bonusBalance'])
    .where('idUser', '=', idUser)
    .executeTakeFirstOrThrow();
}
