import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS, startTestServer } from './helpers.js';

/**
 * Every table the code declares (src/store/schema.ts) must exist after migrating, on each dialect:
 * a declared table without a migration compiles fine and fails only when a query reaches it.
 */
const DECLARED = [
  'users',
  'apps',
  'accessTokens',
  'coupons',
  'settings',
  'events',
  'games',
  'expansions',
  'metaproducts',
  'products',
  'productNames',
  'articles',
  'priceGuides',
  'reservations',
  'reservationArticles',
  'orders',
  'orderArticles',
  'messages',
  'systemAccounts',
  'wantslists',
  'wants',
  'exports',
  'exportChunks',
  'shippingMethods',
  'cartShippingAddresses',
  'orderEvaluations',
  'orderCounts',
  'sellerStats',
  'expansionNames',
  'productSearchNames',
  'productSearchWords',
  'importedPriceGuides',
  'oauthNonces',
  'sellerActivations',
  'catalogVersions',
  'messagePairVersions',
];

for (const dialect of DIALECTS) {
  describe(`the migrated schema (${dialect})`, () => {
    it('has every declared table', async () => {
      const server = await startTestServer({ dialect });
      try {
        const db = server.services.database.db;
        for (const table of DECLARED) {
          // A query per table: it fails if the table is missing, whatever schema the dialect uses.
          await db
            .selectFrom(table as 'users')
            .selectAll()
            .limit(1)
            .execute()
            .catch((err: Error) => assert.fail(`${table}: ${err.message}`));
        }
      } finally {
        await server.close();
      }
    });
  });
}
