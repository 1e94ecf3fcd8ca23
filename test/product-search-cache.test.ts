import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createExpansion, createMetaproduct, createProduct } from './fixtures.js';
import { type ApiClient, createTestClient, DIALECTS, startTestServer, type TestServer } from './helpers.js';

/**
 * Searches are answered from the products found at the search index's current version (kept per
 * version, `src/domain/products.ts`): whatever writes the index, through the code or beside it,
 * moves the version in its own transaction, and the next search sees the write.
 */
for (const dialect of DIALECTS) {
  describe(`GET /products/find after the search index changed (${dialect})`, () => {
    let server: TestServer;
    let api: ApiClient;
    let idExpansion: number;
    let first: number;

    before(async () => {
      server = await startTestServer({ dialect });
      ({ api } = await createTestClient(server));
      idExpansion = await createExpansion(server, { idGame: 1, enName: 'Kept Searches' });
      first = (await createProduct(server, { idExpansion, enName: 'Quillback Heron' })).idProduct;
    });
    after(() => server.close());

    const idsOf = (res: { status: number; json: { product?: { idProduct: number }[] } }) =>
      res.status === 204 ? [] : res.json.product!.map((p) => p.idProduct);
    const xmlIds = (text: string) =>
      [...text.matchAll(/<idProduct>(\d+)<\/idProduct>/g)].map((m) => Number(m[1]));

    it('finds a product added after the same search, in JSON and XML, with the new total', async () => {
      assert.deepEqual(idsOf(await api.get('/products/find?search=quillback', { json: true })), [first]);
      assert.deepEqual(xmlIds((await api.get('/products/find?search=quillback')).text), [first]);
      const second = (await createProduct(server, { idExpansion, enName: 'Quillback Egret' })).idProduct;
      assert.deepEqual(idsOf(await api.get('/products/find?search=quillback', { json: true })), [
        first,
        second,
      ]);
      assert.deepEqual(xmlIds((await api.get('/products/find?search=quillback')).text), [first, second]);
      const page = await api.get('/products/find?search=quillback&start=1&maxResults=1', { json: true });
      assert.equal(page.status, 206);
      assert.equal(page.headers['content-range'], '1-1/2');
      assert.deepEqual(idsOf(page), [second]);
    });

    it('sees index rows written beside the code (another process, plain SQL) at the next search', async () => {
      const egret = idsOf(await api.get('/products/find?search=quillback%20egret', { json: true }));
      assert.equal(egret.length, 1);
      await server.services.database.transaction(async (tx) => {
        await sql`delete from ${sql.table('productSearchWords')} where ${sql.ref('idProduct')} = ${egret[0]}`.execute(
          tx,
        );
        await sql`delete from ${sql.table('productSearchNames')} where ${sql.ref('idProduct')} = ${egret[0]}`.execute(
          tx,
        );
      });
      assert.equal((await api.get('/products/find?search=quillback%20egret', { json: true })).status, 204);
      assert.deepEqual(idsOf(await api.get('/products/find?search=quillback', { json: true })), [first]);
      // Exact searches and metaproduct searches read the same kept results.
      assert.deepEqual(
        idsOf(await api.get('/products/find?search=Quillback%20Heron&exact=true', { json: true })),
        [first],
      );
    });

    it('groups metaproducts from the current index too', async () => {
      const meta = await createMetaproduct(server, 'Tidewater Skink');
      assert.equal((await api.get('/metaproducts/find?search=tidewater', { json: true })).status, 204);
      await createProduct(server, { idExpansion, enName: 'Tidewater Skink', idMetaproduct: meta });
      const res = await api.get('/metaproducts/find?search=tidewater', { json: true });
      assert.equal(res.status, 200);
      assert.deepEqual(
        (res.json.metaproduct as { metaproduct: { idMetaproduct: number } }[]).map(
          (m) => m.metaproduct.idMetaproduct,
        ),
        [meta],
      );
    });
  });
}
