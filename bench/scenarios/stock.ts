import { createApp } from '../../src/auth/apps.js';
import type { ClientCredentials } from '../../src/auth/client.js';
import { createUser } from '../../src/domain/users.js';
import type { Services } from '../../src/services.js';
import type { NewArticle } from '../../src/store/schema.js';
import { benchArticle, issuedCredentials, shortCount, sizeFromEnv } from '../prepare.js';
import type { Scenario } from '../scenario.js';

/**
 * Stock writes of 100 articles (the most a request may carry) against a seller who already has
 * 100,000 articles spread over 20,000 products, as a large shop's sync tool sends them. The seller
 * is prepared with multi-row inserts in one transaction (a few seconds), so no cache is needed.
 * BENCH_STOCK_ARTICLES changes the seller's size (a multiple of 1,000).
 */
const ARTICLES = Math.max(1000, Math.round(sizeFromEnv('BENCH_STOCK_ARTICLES', 100_000) / 1000) * 1000);
const PRODUCTS = ARTICLES / 5;
const BATCH = 100;

interface StockBenchState {
  credentials: ClientCredentials;
  /** The seller's article ids, oldest first. */
  articleIds: number[];
  /** Product ids of the prepared catalog. */
  productIds: number[];
}

async function prepareSeller(services: Services): Promise<StockBenchState> {
  const db = services.database.db;
  const seller = await createUser(services, {
    username: 'bench-stock-seller',
    country: 'D',
    accountType: 'powerseller',
  });
  const app = await createApp(services, {
    idUser: seller.idUser,
    kind: 'dedicated',
    name: 'bench sync tool',
  });
  const now = services.clock.now();
  const productIds = Array.from({ length: PRODUCTS }, (_, i) => 500_000 + i);
  await services.database.transaction(async (tx) => {
    await tx
      .insertInto('games')
      .values({ idGame: 1, name: 'Magic the Gathering', abbreviation: 'MtG' })
      .execute();
    await tx
      .insertInto('expansions')
      .values(
        Array.from({ length: 20 }, (_, e) => ({
          idExpansion: 7000 + e,
          idGame: 1,
          enName: `Bench Expansion ${e}`,
          abbreviation: `B${e}`,
          icon: e,
          releaseDate: now,
          isReleased: 1,
        })),
      )
      .execute();
    for (let i = 0; i < PRODUCTS; i += 1000) {
      const ids = productIds.slice(i, i + 1000);
      await tx
        .insertInto('products')
        .values(
          ids.map((idProduct, k) => ({
            idProduct,
            idGame: 1,
            idExpansion: 7000 + ((i + k) % 20),
            idMetaproduct: null,
            idCategory: 1,
            categoryName: 'Magic Single',
            enName: `Bench Card ${idProduct}`,
            number: String(k),
            rarity: 'Common',
            isSingle: 1,
            dateAdded: now,
            image: '',
          })),
        )
        .execute();
      await tx
        .insertInto('productNames')
        .values(ids.map((idProduct) => ({ idProduct, idLanguage: 1, name: `Bench Card ${idProduct}` })))
        .execute();
    }
    // Five articles per product, differing in price; one copy each, so a PUT of amount 1 changes
    // the whole article in place (what price bots do).
    for (let i = 0; i < ARTICLES; i += 1000) {
      const rows: NewArticle[] = [];
      for (let k = i; k < i + 1000; k++) {
        rows.push(
          benchArticle(seller.idUser, productIds[k % PRODUCTS]!, now, {
            price: 100 + Math.floor(k / PRODUCTS),
            count: 1,
          }),
        );
      }
      await tx.insertInto('articles').values(rows).execute();
    }
  });
  const articleIds = (
    await db
      .selectFrom('articles')
      .select('idArticle')
      .where('idUser', '=', seller.idUser)
      .orderBy('idArticle')
      .execute()
  ).map((r) => r.idArticle);
  return {
    credentials: issuedCredentials(app),
    articleIds,
    productIds,
  };
}

const cents = (n: number) => `${Math.floor(n / 100)}.${String(n % 100).padStart(2, '0')}`;
const positive = (i: number) => i + 1_000_000;

/**
 * PUT /stock: new prices for 100 whole articles; request i takes block i mod 1000 of the stock. Each
 * pass over the stock raises every price 5 cents and keeps the five articles of a product at five
 * different prices, so every request changes 100 rows in place: none becomes equal to another of
 * the seller's articles (which would merge it, and leave later passes naming articles gone).
 */
export const stockPutScenario: Scenario<StockBenchState> = {
  name: `PUT /stock 100 articles (seller with ${shortCount(ARTICLES)})`,
  description: `signed PUT /ws/v2.0/stock, 100 price changes in one transaction, seller with ${ARTICLES.toLocaleString('en')} articles`,
  expectedRps: 1000,
  prepare: prepareSeller,
  request(state, i) {
    const block = positive(i) % (ARTICLES / BATCH);
    const pass = Math.floor(positive(i) / (ARTICLES / BATCH)) % 10_000;
    let body = '<?xml version="1.0" encoding="UTF-8"?><request>';
    for (let k = 0; k < BATCH; k++) {
      const index = block * BATCH + k;
      const idArticle = state.articleIds[index]!;
      const price = cents(200 + 5 * pass + Math.floor(index / PRODUCTS));
      body += `<article><idArticle>${idArticle}</idArticle><amount>1</amount><price>${price}</price></article>`;
    }
    body += '</request>';
    return { method: 'PUT', path: '/stock', body, credentials: state.credentials };
  },
  expectStatus: 200,
};

/** POST /stock: 100 new articles per request (prices unseen so far, so none merges). */
export const stockPostScenario: Scenario<StockBenchState> = {
  name: `POST /stock 100 articles (seller with ${shortCount(ARTICLES)})`,
  description: `signed POST /ws/v2.0/stock, 100 new articles in one transaction, seller with ${ARTICLES.toLocaleString('en')} articles`,
  expectedRps: 1000,
  prepare: prepareSeller,
  request(state, i) {
    const n = positive(i);
    let body = '<?xml version="1.0" encoding="UTF-8"?><request>';
    for (let k = 0; k < BATCH; k++) {
      const idProduct = state.productIds[(n * BATCH + k) % PRODUCTS]!;
      body +=
        `<article><idProduct>${idProduct}</idProduct><idLanguage>1</idLanguage><count>1</count>` +
        `<price>${cents(1000 + n)}</price><condition>NM</condition></article>`;
    }
    body += '</request>';
    return { method: 'POST', path: '/stock', body, credentials: state.credentials };
  },
  expectStatus: 200,
};
