import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { MIN_AGE_MS } from '../src/domain/catalog-downloads.js';
import { refreshPriceGuide } from '../src/domain/priceguide.js';
import { importCatalogFiles } from '../src/importer/import.js';
import { seedDemo } from '../src/seed/index.js';
import { createArticle, createProduct, ensureGame } from './fixtures.js';
import { createTestClient, DIALECTS, startTestServer, type TestServer } from './helpers.js';

/**
 * The catalog download files (reference §1.9): public, in the live shapes, gzip on request,
 * conditional requests, rebuilt when the catalog changes, and read back by the importer.
 */

async function download(server: TestServer, path: string, headers: Record<string, string> = {}) {
  const res = await server.app.inject({ method: 'GET', url: path, headers });
  return res;
}

const json = (res: { rawPayload: Buffer; headers: Record<string, unknown> }) =>
  JSON.parse(
    (res.headers['content-encoding'] === 'gzip' ? gunzipSync(res.rawPayload) : res.rawPayload).toString(),
  );

for (const dialect of DIALECTS) {
  describe(`catalog download files (${dialect})`, () => {
    let server: TestServer;
    let single: Awaited<ReturnType<typeof createProduct>>;
    let sealed: Awaited<ReturnType<typeof createProduct>>;

    before(async () => {
      server = await startTestServer({ dialect, config: { limitsEnabled: true } });
      await ensureGame(server, 1);
      single = await createProduct(server, { enName: 'Download "Quoted" Card' });
      sealed = await createProduct(server, { enName: 'Download Booster', isSingle: false });
      const { user } = await createTestClient(server, { accountType: 'professional' });
      await createArticle(server, user, single, { price: 150 });
      await refreshPriceGuide(server.services);
    });
    after(() => server.close());

    it('serves the singles list in the live shape, without authentication', async () => {
      const res = await download(server, '/productCatalog/productList/products_singles_1.json');
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.equal(res.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS');
      assert.equal(res.headers['x-request-limit-count'], undefined, 'outside the request limits');
      const body = json(res);
      assert.deepEqual(Object.keys(body), ['version', 'createdAt', 'products']);
      assert.equal(body.version, 1);
      assert.match(body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}$/);
      const product = body.products.find((p: { idProduct: number }) => p.idProduct === single.idProduct);
      assert.deepEqual(product, {
        idProduct: single.idProduct,
        name: 'Download "Quoted" Card',
        idCategory: 1,
        categoryName: 'Magic Single',
        idExpansion: single.idExpansion,
        idMetacard: null,
        dateAdded: '2020-01-01 01:00:00',
      });
      assert.ok(
        body.products.every((p: { idProduct: number }) => p.idProduct !== sealed.idProduct),
        'sealed product is not in the singles list',
      );
    });

    it('serves the non-singles list with the sealed product only', async () => {
      const body = json(await download(server, '/productCatalog/productList/products_nonsingles_1.json'));
      assert.deepEqual(
        body.products.map((p: { idProduct: number }) => p.idProduct),
        [sealed.idProduct],
      );
      assert.equal(body.products[0].categoryName, 'Magic Booster');
    });

    it('serves the price guide with every key of the live file, prices in euros', async () => {
      const body = json(await download(server, '/productCatalog/priceGuide/price_guide_1.json'));
      assert.deepEqual(Object.keys(body), ['version', 'createdAt', 'priceGuides']);
      const guide = body.priceGuides.find((g: { idProduct: number }) => g.idProduct === single.idProduct);
      assert.deepEqual(Object.keys(guide), [
        'idProduct',
        'idCategory',
        'avg',
        'low',
        'trend',
        'avg1',
        'avg7',
        'avg30',
        'avg-foil',
        'low-foil',
        'trend-foil',
        'avg1-foil',
        'avg7-foil',
        'avg30-foil',
      ]);
      assert.equal(guide.idCategory, 1);
      assert.equal(guide.low, 1.5, 'the one offer at 1.50 is the lowest price');
      assert.equal(guide['low-foil'], null);
    });

    it('gzips when asked, with the same document', async () => {
      const plain = await download(server, '/productCatalog/productList/products_singles_1.json');
      const gz = await download(server, '/productCatalog/productList/products_singles_1.json', {
        'accept-encoding': 'br;q=1, gzip;q=0.8',
      });
      assert.equal(gz.headers['content-encoding'], 'gzip');
      assert.equal(gz.headers.vary, 'Accept-Encoding');
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.ok(gz.rawPayload.length < plain.rawPayload.length);
      assert.deepEqual(json(gz), json(plain));
      const refused = await download(server, '/productCatalog/productList/products_singles_1.json', {
        'accept-encoding': 'gzip;q=0',
      });
      assert.equal(refused.headers['content-encoding'], undefined);
    });

    it('answers 304 to a client that has the current file, and a new file after a change', async () => {
      const path = '/productCatalog/productList/products_singles_1.json';
      const first = await download(server, path);
      const etag = String(first.headers.etag);
      assert.match(etag, /^W\/"[\w-]+"$/);
      const again = await download(server, path, { 'if-none-match': etag });
      assert.equal(again.statusCode, 304);
      assert.equal(again.rawPayload.length, 0);
      const since = await download(server, path, {
        'if-modified-since': String(first.headers['last-modified']),
      });
      assert.equal(since.statusCode, 304);
      // A stale validator gets the file.
      assert.equal((await download(server, path, { 'if-none-match': 'W/"old"' })).statusCode, 200);

      await createProduct(server, { enName: 'Download Newcomer' });
      // A file is a snapshot at most a minute old: within the minute the same one is served.
      assert.equal((await download(server, path, { 'if-none-match': etag })).statusCode, 304);
      server.clock.advance(MIN_AGE_MS);
      const changed = await download(server, path, { 'if-none-match': etag });
      assert.equal(changed.statusCode, 200);
      assert.notEqual(changed.headers.etag, etag);
      assert.ok(json(changed).products.some((p: { name: string }) => p.name === 'Download Newcomer'));
    });

    it('rebuilds the price guide when a guide changes', async () => {
      const path = '/productCatalog/priceGuide/price_guide_1.json';
      const before = await download(server, path);
      const { user } = await createTestClient(server, { accountType: 'professional' });
      await createArticle(server, user, single, { price: 90 });
      await refreshPriceGuide(server.services);
      server.clock.advance(MIN_AGE_MS);
      const after = await download(server, path, { 'if-none-match': String(before.headers.etag) });
      assert.equal(after.statusCode, 200);
      const guide = json(after).priceGuides.find(
        (g: { idProduct: number }) => g.idProduct === single.idProduct,
      );
      assert.equal(guide.low, 0.9);
    });

    it('answers HEAD and OPTIONS, refuses other methods with 405', async () => {
      const head = await server.app.inject({
        method: 'HEAD',
        url: '/productCatalog/priceGuide/price_guide_1.json',
      });
      assert.equal(head.statusCode, 200);
      assert.equal(head.rawPayload.length, 0);
      assert.ok(Number(head.headers['content-length']) > 0);
      const options = await server.app.inject({
        method: 'OPTIONS',
        url: '/productCatalog/priceGuide/price_guide_1.json',
      });
      assert.equal(options.statusCode, 200);
      assert.equal(options.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS');
      const post = await server.app.inject({
        method: 'POST',
        url: '/productCatalog/priceGuide/price_guide_1.json',
      });
      assert.equal(post.statusCode, 405);
      assert.equal(post.headers.allow, 'GET, HEAD, OPTIONS');
      assert.equal(JSON.parse(post.body).http_status_code, 405);
    });

    it('answers 404 in JSON for an unknown game or file name, never building anything', async () => {
      for (const path of [
        '/productCatalog/productList/products_singles_77.json',
        '/productCatalog/priceGuide/price_guide_77.json',
        '/productCatalog/productList/products_all_1.json',
        '/productCatalog/priceGuide/price_guide_1.csv',
        '/productCatalog/priceGuide/price_guide_99999999999999.json',
        '/productCatalog/productList/products_singles_1.json%00',
      ]) {
        const res = await download(server, path);
        assert.equal(res.statusCode, 404, path);
        assert.match(String(res.headers['content-type']), /^application\/json/, path);
        const body = JSON.parse(res.body);
        assert.equal(body.http_status_code, 404);
        assert.ok(body.mkm_error_description.length > 10);
      }
    });
  });
}

describe('catalog download files read back by the importer', () => {
  let source: TestServer;
  let target: TestServer;
  let dir: string;

  before(async () => {
    source = await startTestServer();
    target = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'cardbazaar-downloads-'));
    await seedDemo(source.services, { scale: 0.1 });
    await refreshPriceGuide(source.services);
  });
  after(async () => {
    await source.close();
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const games = async (server: TestServer) =>
    (await server.services.database.db.selectFrom('games').select('idGame').orderBy('idGame').execute()).map(
      (g) => g.idGame,
    );

  const files = (idGame: number) => [
    `/productCatalog/productList/products_singles_${idGame}.json`,
    `/productCatalog/productList/products_nonsingles_${idGame}.json`,
    `/productCatalog/priceGuide/price_guide_${idGame}.json`,
  ];

  it('imports what it downloads into an empty cardbazaar and gets the same catalog', async () => {
    const paths: string[] = [];
    const expected = new Map<string, unknown>();
    for (const idGame of await games(source)) {
      for (const url of files(idGame)) {
        const res = await download(source, url, { 'accept-encoding': 'gzip' });
        assert.equal(res.statusCode, 200, url);
        const body = json(res);
        expected.set(url, body.products ?? body.priceGuides);
        // The importer refuses a file without records (a game with no sealed product has none).
        if ((body.products ?? body.priceGuides).length === 0) continue;
        const path = join(dir, url.split('/').pop()!);
        writeFileSync(path, gunzipSync(res.rawPayload));
        paths.push(path);
      }
    }
    const products = [...expected.values()].flat().length;
    assert.ok(products > 1000, `a real catalog to compare (${products} records)`);
    // Products before price guides, as a client would import them.
    paths.sort((a, b) => Number(a.includes('price_guide')) - Number(b.includes('price_guide')));
    await importCatalogFiles(target.services, paths);

    // Every game with products is there again (a game without any has no file to bring it).
    const traded = (await games(source)).filter((idGame) =>
      files(idGame).some((url) => (expected.get(url) as unknown[]).length > 0),
    );
    assert.ok(traded.length >= 2, `several games to compare (${traded.join(', ')})`);
    assert.deepEqual(await games(target), traded);
    for (const idGame of traded) {
      for (const url of files(idGame)) {
        const body = json(await download(target, url));
        assert.deepEqual(body.products ?? body.priceGuides, expected.get(url), url);
      }
    }
  });
});
