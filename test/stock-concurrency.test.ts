import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { User } from '../src/store/schema.js';
import { createArticle, createProduct, type ProductFixture } from './fixtures.js';
import {
  ApiClient,
  type ApiResult,
  createTestApp,
  createTestClient,
  createTestUser,
  DIALECTS,
  startTestServer,
  type TestServer,
  xmlRequest,
} from './helpers.js';
import { articleRow, articleXml, reserve } from './stock-helpers.js';

/**
 * Two tools syncing one stock at once, and buyers reserving while the seller edits: no update may
 * be lost and no count may go below zero. Many requests are started together and the final counts
 * checked against what the answers say happened (the order they run in is up to the database).
 */
for (const dialect of DIALECTS) {
  describe(`concurrent stock writes (${dialect})`, () => {
    let server: TestServer;
    let api: ApiClient;
    let other: ApiClient;
    let seller: User;
    let card: ProductFixture;
    before(async () => {
      server = await startTestServer({ dialect });
      ({ api, user: seller } = await createTestClient(server));
      // A second app of the same seller: two tools syncing at once.
      other = new ApiClient(server, await createTestApp(server, seller, 'dedicated'));
      card = await createProduct(server);
    });
    after(() => server.close());

    const succeeded = (res: ApiResult) => res.json.article.length === 1;

    it('parallel increases and decreases of one article lose nothing and never go below zero', async () => {
      const a = await createArticle(server, seller, card, { count: 30, price: 111 });
      const requests: Array<Promise<ApiResult>> = [];
      for (let i = 0; i < 60; i++) {
        const path = i % 3 === 0 ? '/stock/increase' : '/stock/decrease';
        const client = i % 2 === 0 ? api : other;
        requests.push(
          client.put(path, xmlRequest(articleXml({ idArticle: a.idArticle, amount: 1 })), { json: true }),
        );
      }
      const results = await Promise.all(requests);
      const increases = results.filter((r, i) => i % 3 === 0 && succeeded(r)).length;
      const decreases = results.filter((r, i) => i % 3 !== 0 && succeeded(r)).length;
      const refused = results.filter((r, i) => i % 3 !== 0 && !succeeded(r));
      assert.ok(results.every((r) => r.status === 200));
      assert.equal(increases, 20, 'every increase applies');
      assert.equal(decreases + refused.length, 40);
      for (const r of refused) assert.match(r.json.failed[0].error, /has only 0 copies|not in your stock/);
      const row = await articleRow(server, a.idArticle);
      assert.equal(row?.count ?? 0, 30 + increases - decreases);
      assert.ok((row?.count ?? 0) >= 0);
    });

    it('parallel decreases never take more copies than there are', async () => {
      const a = await createArticle(server, seller, card, { count: 10, price: 222 });
      const results = await Promise.all(
        Array.from({ length: 25 }, () =>
          api.put('/stock/decrease', xmlRequest(articleXml({ idArticle: a.idArticle, amount: 1 })), {
            json: true,
          }),
        ),
      );
      assert.equal(results.filter(succeeded).length, 10);
      assert.equal(await articleRow(server, a.idArticle), undefined, 'emptied and removed');
    });

    it('parallel POSTs of the same article merge into one with every copy', async () => {
      const product = await createProduct(server);
      const body = xmlRequest(articleXml({ idProduct: product.idProduct, count: 2, price: '3.33' }));
      const results = await Promise.all(
        Array.from({ length: 15 }, () => api.post('/stock', body, { json: true })),
      );
      assert.ok(results.every((r) => r.json.inserted[0].success === true));
      const rows = await server.services.database.db
        .selectFrom('articles')
        .selectAll()
        .where('idProduct', '=', product.idProduct)
        .execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.count, 30);
    });

    it('price changes racing with increases lose neither', async () => {
      const a = await createArticle(server, seller, card, { count: 5, price: 333 });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0
            ? api.put('/stock/increase', xmlRequest(articleXml({ idArticle: a.idArticle, amount: 1 })), {
                json: true,
              })
            : api.put(
                '/stock',
                xmlRequest(articleXml({ idArticle: a.idArticle, amount: 1, comments: `tool ${i}` })),
                { json: true },
              ),
        ),
      );
      const updates = results.filter((r, i) => i % 2 === 1 && r.json.updatedArticles.length === 1).length;
      assert.equal(updates, 10, 'each update moves one copy to an article with its comment');
      const rows = await server.services.database.db
        .selectFrom('articles')
        .select(['count', 'comments'])
        .where('idUser', '=', seller.idUser)
        .where('idProduct', '=', card.idProduct)
        .where('price', '=', 333)
        .execute();
      assert.equal(
        rows.reduce((n, r) => n + r.count, 0),
        15,
        'the 5 copies, plus 10 increases, all still there',
      );
    });

    it('buyers reserving while the seller decreases never drive the count below zero', async () => {
      const a = await createArticle(server, seller, card, { count: 12, price: 444 });
      const buyers = await Promise.all(Array.from({ length: 8 }, () => createTestUser(server)));
      const reservations = buyers.map((b) =>
        reserve(server, b, a, 1).then(
          () => true,
          () => false,
        ),
      );
      const decreases = Array.from({ length: 8 }, () =>
        api
          .put('/stock/decrease', xmlRequest(articleXml({ idArticle: a.idArticle, amount: 1 })), {
            json: true,
          })
          .then(succeeded),
      );
      const reserved = (await Promise.all(reservations)).filter(Boolean).length;
      const decreased = (await Promise.all(decreases)).filter(Boolean).length;
      const row = await articleRow(server, a.idArticle);
      assert.ok(row, 'copies in carts keep the article');
      assert.equal(row.count, 12 - reserved - decreased);
      assert.ok(row.count >= 0);
      const held = await server.services.database.db
        .selectFrom('reservationArticles')
        .select((eb) => eb.fn.sum<number>('count').as('n'))
        .where('idArticle', '=', a.idArticle)
        .executeTakeFirstOrThrow();
      assert.equal(Number(held.n), reserved);
    });
  });
}
