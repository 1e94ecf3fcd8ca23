import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../src/store/db.js';
import { runCli } from './cli-helpers.js';

describe('catalog commands', () => {
  let dir: string;
  let db: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cardbazaar-cli-'));
    db = join(dir, 'data.sqlite');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('catalog import imports files, shows progress, and says what it did', async () => {
    const file = join(dir, 'products_singles_1.json');
    writeFileSync(
      file,
      JSON.stringify({
        products: [
          {
            idProduct: 11,
            name: 'Llanowar Elves',
            idCategory: 1,
            categoryName: 'Magic Single',
            idExpansion: 5,
            idMetacard: 9,
          },
        ],
      }),
    );
    const res = await runCli('--database-url', db, 'catalog', 'import', file);
    assert.equal(res.code, 0, res.err);
    assert.match(res.out, /products_singles_1\.json: 1 products imported/);
    assert.match(res.err, /Importing\s+\[#+\]\s+100%/);
    const database = openDatabase(db);
    try {
      const row = await database.db
        .selectFrom('products')
        .select('enName')
        .where('idProduct', '=', 11)
        .executeTakeFirst();
      assert.equal(row?.enName, 'Llanowar Elves');
    } finally {
      await database.close();
    }
  });

  it('catalog import counts only the price guides it imported, beside the ones it skipped', async () => {
    const file = join(dir, 'price_guide_1.json');
    writeFileSync(
      file,
      JSON.stringify({
        priceGuides: [
          { idProduct: 11, avg: 1, low: 0.5, trend: 1.1 },
          { idProduct: 990001, avg: 1 },
          { idProduct: 990002, avg: 1 },
        ],
      }),
    );
    const res = await runCli('--database-url', db, 'catalog', 'import', file);
    assert.equal(res.code, 0, res.err);
    assert.match(
      res.out,
      /price_guide_1\.json: 1 price guides imported \(2 of products not in the catalog skipped\)/,
    );
  });

  it('catalog import of a malformed file exits 1 naming the line, and imports nothing', async () => {
    const file = join(dir, 'products_singles_1.json');
    writeFileSync(
      file,
      '{"products": [\n{"idProduct": 12, "name": "X", "idCategory": 1, "categoryName": "Magic Single"},\n{"idProduct": "twelve"}\n]}',
    );
    const res = await runCli('--database-url', db, 'catalog', 'import', file);
    assert.equal(res.code, 1);
    assert.match(
      res.err,
      /cardbazaar: products_singles_1\.json: line 3, record products\[1\] \(idProduct twelve\): "idProduct" must be a positive integer id.* — nothing was imported/,
    );
    const database = openDatabase(db);
    try {
      assert.equal(
        await database.db
          .selectFrom('products')
          .select('idProduct')
          .where('idProduct', '=', 12)
          .executeTakeFirst(),
        undefined,
      );
    } finally {
      await database.close();
    }
    const badGame = await runCli('--database-url', db, 'catalog', 'import', '--game', 'x', file);
    assert.equal(badGame.code, 1);
    assert.match(badGame.err, /--game must be a game id/);
  });

  it('priceguide refresh recomputes the guide', async () => {
    const res = await runCli('--database-url', db, 'priceguide', 'refresh');
    assert.equal(res.code, 0, res.err);
    assert.match(res.out, /Price guide refreshed: \d+ product guides changed\./);
  });

  it('seed --demo --scale loads the demo marketplace with a progress bar', async () => {
    const res = await runCli('--database-url', join(dir, 'demo.sqlite'), 'seed', '--demo', '--scale', '0.1');
    assert.equal(res.code, 0, res.err);
    assert.match(
      res.out,
      /Demo marketplace: 4 expansions \(\d+ new products\), 12 sellers, \d+ new offers\./,
    );
    assert.match(res.err, /Catalog\s+\[#+\]\s+100%/);
    assert.match(res.err, /Offers\s+\[#+\]\s+100%/);
  });
});
