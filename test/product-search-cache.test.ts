import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createArticle, createExpansion, createMetaproduct, createProduct } from './fixtures.js';
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
    let user: Awaited<ReturnType<typeof createTestClient>>['user'];
    let idExpansion: number;
    let first: number;

    before(async () => {
      server = await startTestServer({ dialect });
      ({ api, user } = await createTestClient(server));
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

    it('shows the catalog as it is now and the offers as they are now, from kept products too', async () => {
      const product = await createProduct(server, {
        idExpansion,
        enName: 'Marsh Viper',
        names: { 3: 'Sumpfviper' },
      });
      const shown = async () => {
        const res = await api.get('/products/find?search=marsh%20viper', { json: true });
        const p = (res.json.product as Record<string, unknown>[])[0]!;
        const xml = (await api.get('/products/find?search=marsh%20viper')).text;
        return { p, xml };
      };
      let { p, xml } = await shown();
      assert.equal(p.expansionName, 'Kept Searches');
      assert.equal(p.countArticles, 0);
      assert.match(xml, /<expansionName>Kept Searches<\/expansionName>/);
      // Written beside the code: the database raises the version in each of these transactions.
      const db = server.services.database.db;
      const edits = [
        () =>
          sql`update ${sql.table('expansions')} set ${sql.ref('enName')} = 'Renamed Set' where ${sql.ref('idExpansion')} = ${idExpansion}`.execute(
            db,
          ),
        () =>
          sql`update ${sql.table('games')} set ${sql.ref('name')} = 'Magic Renamed' where ${sql.ref('idGame')} = 1`.execute(
            db,
          ),
        () =>
          sql`update ${sql.table('products')} set ${sql.ref('image')} = '/img/new.jpg' where ${sql.ref('idProduct')} = ${product.idProduct}`.execute(
            db,
          ),
        () =>
          sql`update ${sql.table('productNames')} set ${sql.ref('name')} = 'Moorviper' where ${sql.ref('idProduct')} = ${product.idProduct}`.execute(
            db,
          ),
      ];
      for (const edit of edits) await edit();
      ({ p, xml } = await shown());
      assert.equal(p.expansionName, 'Renamed Set');
      assert.equal(p.gameName, 'Magic Renamed');
      assert.equal(p.image, '/img/new.jpg');
      assert.match(JSON.stringify(p.localization), /Moorviper/);
      assert.match(xml, /<expansionName>Renamed Set<\/expansionName>/);
      // The XML of a listed product is kept per catalog version too (src/mappers/catalog-product.ts).
      assert.match(xml, /<name>Moorviper<\/name><idLanguage>3<\/idLanguage>/);
      assert.match(xml, /<gameName>Magic Renamed<\/gameName>/);
      assert.match(xml, /<image>\/img\/new.jpg<\/image>/);
      await createArticle(server, user, product, { count: 3, isFoil: 1 });
      ({ p, xml } = await shown());
      assert.equal(p.countArticles, 3);
      assert.equal(p.countFoils, 3);
      assert.match(xml, /<countArticles>3<\/countArticles>/);
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
