import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ImportError } from '../src/importer/errors.js';
import { importCatalogFiles } from '../src/importer/import.js';
import {
  type ApiClient,
  countRows,
  createTestClient,
  DIALECTS,
  startTestServer,
  type TestServer,
} from './helpers.js';

const SINGLES = {
  version: 1,
  createdAt: '2024-06-01T02:00:13+0200',
  products: [
    {
      idProduct: 3001,
      name: 'Pernicious Deed',
      idCategory: 1,
      categoryName: 'Magic Single',
      idExpansion: 34,
      idMetacard: 4145,
      dateAdded: '2007-01-01 00:00:00',
    },
    {
      idProduct: 3002,
      name: 'Pernicious Deed',
      idCategory: 1,
      categoryName: 'Magic Single',
      idExpansion: 77,
      idMetacard: 4145,
      dateAdded: '2007-01-01 00:00:00',
    },
    {
      idProduct: 3003,
      name: 'Jace, the Mind Sculptor',
      idCategory: 1,
      categoryName: 'Magic Single',
      idExpansion: 34,
      idMetacard: 4146,
      dateAdded: null,
    },
  ],
};

const NONSINGLES = {
  version: 1,
  createdAt: '2024-06-01T02:00:13+0200',
  products: [
    {
      idProduct: 4001,
      name: 'Apocalypse Booster',
      idCategory: 7,
      categoryName: 'Magic Booster',
      idExpansion: 34,
      idMetacard: null,
      dateAdded: '2007-01-01 00:00:00',
    },
  ],
};

const GUIDE = {
  version: 1,
  createdAt: '2024-06-01T02:00:13+0200',
  priceGuides: [
    {
      idProduct: 3001,
      idCategory: 1,
      avg: 4.5,
      low: 2.1,
      trend: 4.25,
      avg1: 4.0,
      avg7: 4.4,
      avg30: 4.6,
      'avg-foil': 12,
      'low-foil': 9.99,
      'trend-foil': 11.5,
      'avg1-foil': null,
      'avg7-foil': 11,
      'avg30-foil': 12.2,
    },
    { idProduct: 999999, avg: 1, low: 1, trend: 1, avg1: 1, avg7: 1, avg30: 1 },
  ],
};

for (const dialect of DIALECTS) {
  describe(`catalog import (${dialect})`, () => {
    let server: TestServer;
    let api: ApiClient;
    let dir: string;
    const file = (name: string, content: unknown) => {
      const path = join(dir, name);
      writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
      return path;
    };
    const count = (table: Parameters<typeof countRows>[1]) => countRows(server, table);
    const refused = async (paths: string[], pattern: RegExp, options = {}) => {
      await assert.rejects(importCatalogFiles(server.services, paths, options), (err: Error) => {
        assert.ok(err instanceof ImportError, String(err));
        assert.match(err.message, pattern);
        return true;
      });
    };

    before(async () => {
      server = await startTestServer({ dialect });
      ({ api } = await createTestClient(server));
      dir = mkdtempSync(join(tmpdir(), 'cardbazaar-import-'));
    });
    after(async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('imports product files: products, names, metaproducts, placeholder expansions, search', async () => {
      const summary = await importCatalogFiles(server.services, [
        file('products_singles_1.json', SINGLES),
        file('products_nonsingles_1.json', NONSINGLES),
      ]);
      assert.deepEqual(summary, [
        { file: 'products_singles_1.json', kind: 'products', records: 3, skipped: 0 },
        { file: 'products_nonsingles_1.json', kind: 'products', records: 1, skipped: 0 },
      ]);
      const deed = await api.get('/products/3001', { json: true });
      assert.equal(deed.status, 200);
      assert.equal(deed.json.product.enName, 'Pernicious Deed');
      assert.equal(deed.json.product.idMetaproduct, 4145);
      assert.equal(deed.json.product.countReprints, 2);
      assert.equal(deed.json.product.categoryName, 'Magic Single');
      assert.equal(deed.json.product.gameName, 'Magic the Gathering');
      assert.deepEqual(deed.json.product.expansion, {
        idExpansion: 34,
        enName: 'Expansion 34',
        expansionIcon: 0,
      });
      const booster = await api.get('/products/4001', { json: true });
      assert.equal(booster.json.product.idMetaproduct, null);
      const found = await api.get('/products/find?search=jace%20mind', { json: true });
      assert.deepEqual(
        found.json.product.map((p: { idProduct: number }) => p.idProduct),
        [3003],
      );
      assert.equal((await api.get('/metaproducts/4145', { json: true })).json.product.length, 2);
    });

    it('a second import updates and never duplicates', async () => {
      const before = [await count('products'), await count('productNames'), await count('metaproducts')];
      const renamed = structuredClone(SINGLES);
      renamed.products[2]!.name = 'Jace, the Mind Sculptor (Borderless)';
      await importCatalogFiles(server.services, [file('products_singles_1.json', renamed)]);
      await importCatalogFiles(server.services, [file('products_singles_1.json', renamed)]);
      assert.deepEqual(
        [await count('products'), await count('productNames'), await count('metaproducts')],
        before,
      );
      const jace = await api.get('/products/3003', { json: true });
      assert.equal(jace.json.product.enName, 'Jace, the Mind Sculptor (Borderless)');
      const found = await api.get('/products/find?search=borderless', { json: true });
      assert.equal(found.json.product[0].idProduct, 3003);
    });

    it("takes a product's picture where a record names one (an extension), and keeps it where none is named", async () => {
      const pictured = structuredClone(SINGLES);
      (pictured.products[0] as Record<string, unknown>).image = 'https://cards.example.org/deed.jpg';
      (pictured.products[1] as Record<string, unknown>).image = './img/items/1/APC/3002.jpg';
      await importCatalogFiles(server.services, [file('products_singles_1.json', pictured)]);
      const image = async (id: number) =>
        (await api.get(`/products/${id}`, { json: true })).json.product.image;
      assert.equal(await image(3001), 'https://cards.example.org/deed.jpg');
      assert.equal(await image(3002), './img/items/1/APC/3002.jpg');
      // The file without pictures (Cardmarket's own) leaves them as they are.
      await importCatalogFiles(server.services, [file('products_singles_1.json', SINGLES)]);
      assert.equal(await image(3001), 'https://cards.example.org/deed.jpg');
      for (const bad of [
        'http://cards.example.org/deed.jpg',
        'javascript:alert(1)',
        './img/../../etc/passwd',
      ]) {
        const refusedPicture = structuredClone(SINGLES);
        (refusedPicture.products[0] as Record<string, unknown>).image = bad;
        await refused(
          [file('products_singles_1.json', refusedPicture)],
          /"image" must be an https:\/\/ address/,
        );
      }
      assert.equal(await image(3001), 'https://cards.example.org/deed.jpg');
    });

    it('imports a price guide file; unknown products are skipped, imported values stand in', async () => {
      const [summary] = await importCatalogFiles(server.services, [file('price_guide_1.json', GUIDE)]);
      assert.deepEqual(summary, { file: 'price_guide_1.json', kind: 'priceGuides', records: 2, skipped: 1 });
      const deed = await api.get('/products/3001', { json: true });
      assert.deepEqual(deed.json.product.priceGuide, {
        SELL: 4.5,
        LOW: 2.1,
        LOWFOIL: 9.99,
        TREND: 4.25,
        TRENDFOIL: 11.5,
      });
      await importCatalogFiles(server.services, [file('price_guide_1.json', GUIDE)]);
      assert.equal(await count('importedPriceGuides'), 1);
    });

    it('imports the legacy CSV product list (quoted fields, commas in names) with --game', async () => {
      const csv = file(
        'productlist.csv',
        '"idProduct","Name","Category ID","Category","Expansion ID","Metacard ID","Date Added"\n' +
          '"5001","Dark Magician","5","Yugioh Single","1500","7001","2010-05-06 10:00:00"\n' +
          '"5002","Blue-Eyes White Dragon, Ultra","5","Yugioh Single","1500","","2010-05-06 10:00:00"\n',
      );
      await refused([csv], /productlist\.csv: cannot tell which game/);
      const [summary] = await importCatalogFiles(server.services, [csv], { idGame: 3 });
      assert.deepEqual(summary, { file: 'productlist.csv', kind: 'products', records: 2, skipped: 0 });
      const p = await api.get('/products/5002', { json: true });
      assert.equal(p.json.product.enName, 'Blue-Eyes White Dragon, Ultra');
      assert.equal(p.json.product.idGame, 3);
      assert.equal(p.json.product.gameName, 'Yu-Gi-Oh!');
      assert.equal(p.json.product.idMetaproduct, null);
    });

    it('refuses malformed files naming the line and record, and imports nothing of any file given', async () => {
      const products = await count('products');
      const good = file('products_singles_6.json', {
        products: [
          {
            idProduct: 6001,
            name: 'Pikachu',
            idCategory: 51,
            categoryName: 'Pokémon Single',
            idExpansion: 1,
            idMetacard: 1,
          },
        ],
      });
      const syntax = file(
        'products_singles_1.json',
        '{\n  "version": 1,\n  "products": [\n    {"idProduct": 7001, "name": "A" "idCategory": 1}\n  ]\n}\n',
      );
      await refused([good, syntax], /^products_singles_1\.json: line 4: malformed JSON/);
      const badRecord = structuredClone(SINGLES);
      (badRecord.products[1] as Record<string, unknown>).idCategory = 'one';
      await refused(
        [good, file('products_singles_1.json', badRecord)],
        /^products_singles_1\.json: line 14, record products\[1\] \(idProduct 3002\): "idCategory" must be a positive integer id/,
      );
      // Many records a line each, over several read chunks: the line of a late bad record is exact.
      const rows = Array.from({ length: 20000 }, (_, i) =>
        JSON.stringify({
          idProduct: 900000 + i,
          name: `Card ${i}`,
          idCategory: 1,
          categoryName: 'Magic Single',
          idExpansion: 1,
        }),
      );
      rows[15000] = rows[15000]!.replace('"idCategory":1', '"idCategory":"one"');
      await refused(
        [file('products_singles_1.json', `{"products": [\n${rows.join(',\n')}\n]}\n`)],
        /^products_singles_1\.json: line 15002, record products\[15000\] \(idProduct 915000\): "idCategory"/,
      );
      const noName = { products: [{ idProduct: 7002, idCategory: 1, categoryName: 'Magic Single' }] };
      await refused(
        [file('products_singles_1.json', noName)],
        /record products\[0\] \(idProduct 7002\): "name" must be a non-empty text/,
      );
      await refused(
        [file('products_singles_1.json', '{"products": [{"idProduct": 1,')],
        /line 1: unexpected end of file/,
      );
      await refused([file('products_singles_1.json', '')], /the file is empty/);
      await refused(
        [file('products_singles_1.json', '{"version": 1}')],
        /neither a "products" nor a "priceGuides"/,
      );
      await refused(
        [file('price_guide_1.json', { priceGuides: [{ idProduct: 3001, avg: -1 }] })],
        /price_guide_1\.json: line 3, record priceGuides\[0\] \(idProduct 3001\): "avg" must be a price/,
      );
      await refused(
        [file('bad_3.csv', '"idProduct","Name"\n"1","x"\n')],
        /^bad_3\.csv: line 1: the header must be idProduct,Name,Category ID/,
      );
      await refused(
        [
          file(
            'list_3.csv',
            'idProduct,Name,Category ID,Category,Expansion ID,Metacard ID,Date Added\n8001,Ok,5,Yugioh Single,1,,\n8002,Bad,x,Yugioh Single,1,,\n',
          ),
        ],
        /^list_3\.csv: line 3, row idProduct 8002: "Category ID" must be a positive integer id/,
      );
      await refused(
        [
          file(
            'list_3.csv',
            'idProduct,Name,Category ID,Category,Expansion ID,Metacard ID,Date Added\n"8001,Ok\n',
          ),
        ],
        /^list_3\.csv: line \d+: malformed CSV/,
      );
      await refused([join(dir, 'missing_1.json')], /missing_1\.json: cannot read/);
      await refused([file('notes.txt', 'x')], /notes\.txt: unknown format/);
      assert.equal(await count('products'), products, 'nothing was imported');
      assert.equal((await api.get('/products/6001', { json: true })).status, 404);
    });
  });
}
