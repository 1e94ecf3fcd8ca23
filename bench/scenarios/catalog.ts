import type { ClientCredentials } from '../../src/auth/client.js';
import { progressBar } from '../../src/cli/progress.js';
import { PRICE_GUIDE_REFRESHED_SETTING } from '../../src/domain/priceguide.js';
import { seedDemo } from '../../src/seed/index.js';
import { Rng } from '../../src/seed/prng.js';
import { ARTICLE_COLUMNS, articleRow } from '../../src/seed/stock.js';
import type { Services } from '../../src/services.js';
import { insertMany } from '../../src/store/bulk.js';
import { insertProduct } from '../../src/store/catalog.js';
import { putSetting } from '../../src/store/settings.js';
import { cachedDatabase, dedicatedCredentials, shortCount, sizeFromEnv } from '../prepare.js';
import type { Scenario } from '../scenario.js';

/**
 * The catalog benchmarks run on demo marketplaces of two sizes: about 10,000 offers (scale 0.2) and
 * 1,000,000 offers over 106,000 products (scale 20). Each has the same "hot" product with 1,500
 * offers, so one page of its offers can be compared between the two: it must cost the same.
 * Building the large one takes minutes, so each is built once into `bench/.cache/` under a key of
 * the generator version and the migrations, and copied for every run.
 */
const GENERATOR_VERSION = 'catalog-v3';
export const HOT_PRODUCT = 999_001;
const HOT_OFFERS = 1_500;
const SMALL_SCALE = sizeFromEnv('BENCH_CATALOG_SMALL_SCALE', 0.2);
const LARGE_SCALE = sizeFromEnv('BENCH_CATALOG_LARGE_SCALE', 20);

/** The prepared demo marketplace for `scale`, built once (seedDemo writes with multi-row inserts). */
export function preparedCatalog(scale: number): Promise<string> {
  return cachedDatabase(catalogKey(scale), (services) => buildCatalog(services, scale));
}

/** What `preparedCatalog` builds, for a cache that starts from it (the market's). */
export async function buildCatalog(services: Services, scale: number): Promise<void> {
  await seedDemo(services, { scale, progress: progressBar(process.stdout) });
  await addHotProduct(services);
}

/** The key of a cache built on `preparedCatalog(scale)`: rebuilt when the catalog's generator changes. */
export const catalogKey = (scale: number) => `${GENERATOR_VERSION}-scale${scale}`;

/** A product with exactly HOT_OFFERS offers from the demo sellers, the same in every database. */
async function addHotProduct(services: Services): Promise<void> {
  const db = services.database.db;
  const sellers = await db
    .selectFrom('users')
    .select('idUser')
    .where('onVacation', '=', 0)
    .orderBy('idUser')
    .limit(40)
    .execute();
  await services.database.transaction(async (tx) => {
    const product = {
      idProduct: HOT_PRODUCT,
      idGame: 1,
      idExpansion: 1002,
      idMetaproduct: null,
      idCategory: 1,
      categoryName: 'Magic Single',
      enName: 'Benchmark Dragon',
      number: '1',
      rarity: 'Mythic',
      isSingle: 1,
      dateAdded: null,
      image: '',
    };
    await insertProduct(tx, product);
    const rng = new Rng('bench-hot-product');
    const plan = { ...product, dateAdded: 0, names: ['', '', '', '', ''] as const, basePrice: 2500 };
    const rows = Array.from({ length: HOT_OFFERS }, (_, i) =>
      articleRow(rng, sellers[i % sellers.length]!.idUser, plan),
    );
    await insertMany(tx, 'articles', ARTICLE_COLUMNS, rows);
  });
}

export interface CatalogState {
  credentials: ClientCredentials;
  searches: string[];
}

export async function catalogState(services: Services): Promise<CatalogState> {
  // The scheduled price guide refresh must not run in the middle of a measurement.
  await putSetting(services.database.db, PRICE_GUIDE_REFRESHED_SETTING, String(services.clock.now()));
  // Searches as people type them: the first two words of product names, spread over the catalog.
  const names = await services.database.db
    .selectFrom('products')
    .select('enName')
    .where('isSingle', '=', 1)
    .orderBy('idProduct')
    .execute();
  const searches: string[] = [];
  for (let i = 0; i < 64; i++) {
    const words = names[Math.floor((i * names.length) / 64)]!.enName.split(/[ ,]+/);
    searches.push(words.slice(0, 2).join(' '));
  }
  return { credentials: await dedicatedCredentials(services, 'demo-seller'), searches };
}

export const productSearchScenario: Scenario<CatalogState> = {
  name: `GET /products/find (${shortCount(LARGE_SCALE * 5_300)} products)`,
  description: `signed product search, first page of up to 100, on the scale-${LARGE_SCALE} demo marketplace (106,000 products and 1,000,000 offers at 20)`,
  database: () => preparedCatalog(LARGE_SCALE),
  prepare: catalogState,
  request: (state, i) => ({
    method: 'GET',
    path: `/products/find?search=${encodeURIComponent(state.searches[Math.abs(i) % state.searches.length]!)}&start=0&maxResults=100`,
    credentials: state.credentials,
  }),
  expectStatus: 200,
};

function offersPage(state: CatalogState, i: number) {
  // Pages 1 to 10 of the hot product's offers, cheapest first (the deepest page walks 1,000 offers).
  return {
    method: 'GET' as const,
    path: `/articles/${HOT_PRODUCT}?start=${(Math.abs(i) % 10) * 100}&maxResults=100`,
    credentials: state.credentials,
  };
}

export const offersSmallScenario: Scenario<CatalogState> = {
  name: `GET /articles/:idProduct page (${shortCount(SMALL_SCALE * 50_000)} offers)`,
  description: `one page of 100 offers of a product with 1,500, in the scale-${SMALL_SCALE} demo marketplace (about 12,000 offers at 0.2)`,
  database: () => preparedCatalog(SMALL_SCALE),
  prepare: catalogState,
  request: offersPage,
  expectStatus: 206,
};

export const offersLargeScenario: Scenario<CatalogState> = {
  name: `GET /articles/:idProduct page (${shortCount(LARGE_SCALE * 50_000)} offers)`,
  description: `one page of 100 offers of a product with 1,500, in the scale-${LARGE_SCALE} demo marketplace (1,000,000 offers at 20)`,
  database: () => preparedCatalog(LARGE_SCALE),
  prepare: catalogState,
  request: offersPage,
  expectStatus: 206,
};
