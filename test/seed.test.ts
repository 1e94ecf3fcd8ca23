import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { seedDemo } from '../src/seed/index.js';
import { findUserByUsername } from '../src/store/users.js';
import { countRows, DIALECTS, startTestServer, type TestServer } from './helpers.js';

/** A digest of what the demo generator decides, independent of anything the server assigns. */
async function fingerprint(server: TestServer): Promise<string> {
  const db = server.services.database.db;
  const hash = createHash('sha256');
  const products = await db
    .selectFrom('products')
    .select(['idProduct', 'idGame', 'idExpansion', 'idMetaproduct', 'enName', 'number', 'rarity'])
    .orderBy('idProduct')
    .execute();
  hash.update(JSON.stringify(products));
  const names = await db
    .selectFrom('productNames')
    .selectAll()
    .orderBy('idProduct')
    .orderBy('idLanguage')
    .execute();
  hash.update(JSON.stringify(names));
  const articles = await db
    .selectFrom('articles as a')
    .innerJoin('users as u', 'u.idUser', 'a.idUser')
    .select([
      'u.username',
      'a.idProduct',
      'a.idLanguage',
      'a.price',
      'a.condition',
      'a.isFoil',
      'a.count',
      'a.comments',
    ])
    .orderBy('a.idArticle')
    .execute();
  hash.update(JSON.stringify(articles));
  return hash.digest('hex');
}

const count = countRows;

for (const dialect of DIALECTS) {
  describe(`the demo data (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ dialect });
      await seedDemo(server.services);
    });
    after(() => server.close());

    it('has at least three games with their real ids, dozens of expansions, thousands of products', async () => {
      const db = server.services.database.db;
      const games = await db.selectFrom('games').selectAll().orderBy('idGame').execute();
      assert.ok(games.length >= 3);
      assert.deepEqual(
        games.slice(0, 3).map((g) => [g.idGame, g.name]),
        [
          [1, 'Magic the Gathering'],
          [3, 'Yu-Gi-Oh!'],
          [6, 'Pokémon'],
        ],
      );
      assert.ok((await count(server, 'expansions')) >= 24);
      assert.ok((await count(server, 'products')) >= 2000);
    });

    it('names every product in the five display languages, with reprints under one metaproduct', async () => {
      const db = server.services.database.db;
      const missing = await db
        .selectFrom('products as p')
        .select('p.idProduct')
        .where((eb) =>
          eb(
            eb
              .selectFrom('productNames as n')
              .select(eb.fn.countAll().as('c'))
              .whereRef('n.idProduct', '=', 'p.idProduct'),
            '<',
            5,
          ),
        )
        .execute();
      assert.equal(missing.length, 0);
      const reprinted = await db
        .selectFrom('products')
        .select(['idMetaproduct', (eb) => eb.fn.countAll().as('n')])
        .where('idMetaproduct', 'is not', null)
        .groupBy('idMetaproduct')
        .having((eb) => eb.fn.countAll(), '>', 1)
        .execute();
      assert.ok(reprinted.length >= 100, `${reprinted.length} cards with reprints`);
      const french = await db
        .selectFrom('productNames')
        .select('name')
        .where('idLanguage', '=', 2)
        .limit(1)
        .executeTakeFirst();
      const english = await db
        .selectFrom('productNames')
        .select('name')
        .where('idLanguage', '=', 1)
        .limit(1)
        .executeTakeFirst();
      assert.notEqual(french?.name, english?.name);
    });

    it('has tens of thousands of offers from sellers of several countries and every account type', async () => {
      assert.ok((await count(server, 'articles')) >= 40_000);
      const db = server.services.database.db;
      const sellers = await db
        .selectFrom('users as u')
        .select(['u.country', 'u.isCommercial', 'u.onVacation'])
        .where(({ exists, selectFrom }) =>
          exists(selectFrom('articles as a').select('a.idArticle').whereRef('a.idUser', '=', 'u.idUser')),
        )
        .execute();
      assert.ok(new Set(sellers.map((s) => s.country)).size >= 5);
      assert.deepEqual([...new Set(sellers.map((s) => s.isCommercial))].sort(), [0, 1, 2]);
      assert.ok(
        sellers.some((s) => s.onVacation === 1),
        'some seller is on vacation',
      );
      const conditions = await db.selectFrom('articles').select('condition').distinct().execute();
      assert.ok(conditions.length >= 7);
      const languages = await db.selectFrom('articles').select('idLanguage').distinct().execute();
      assert.ok(languages.length >= 5);
    });

    it('gives the demo accounts stock of their own, and computes the price guide', async () => {
      const db = server.services.database.db;
      for (const username of ['demo-seller', 'demo-powerseller', 'demo-buyer']) {
        const user = await findUserByUsername(db, username);
        assert.ok(user, username);
        const n = await db
          .selectFrom('articles')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('idUser', '=', user.idUser)
          .executeTakeFirstOrThrow();
        assert.ok(Number(n.n) > 0, `${username} has stock`);
      }
      assert.ok((await count(server, 'priceGuides')) >= 2000);
    });

    it('loading again adds nothing', async () => {
      const before = [
        await count(server, 'products'),
        await count(server, 'articles'),
        await count(server, 'users'),
      ];
      const credentials = [await count(server, 'apps'), await count(server, 'accessTokens')];
      await seedDemo(server.services);
      assert.deepEqual(
        [await count(server, 'products'), await count(server, 'articles'), await count(server, 'users')],
        before,
      );
      assert.deepEqual(
        [await count(server, 'apps'), await count(server, 'accessTokens')],
        credentials,
        'no second widget or third-party app, no second access token',
      );
    });
  });
}

describe('the demo generator', () => {
  it('is deterministic: two empty databases get the same data', async () => {
    const prints: string[] = [];
    for (let i = 0; i < 2; i++) {
      const server = await startTestServer();
      try {
        await seedDemo(server.services, { scale: 0.2 });
        prints.push(await fingerprint(server));
      } finally {
        await server.close();
      }
    }
    assert.equal(prints[0], prints[1]);
  });

  it('grows a smaller catalog into a larger one without changing what exists', async () => {
    const small = await startTestServer();
    const large = await startTestServer();
    try {
      await seedDemo(small.services, { scale: 0.1 });
      const firstProducts = await count(small, 'products');
      await seedDemo(small.services, { scale: 0.3 });
      await seedDemo(large.services, { scale: 0.3 });
      assert.ok((await count(small, 'products')) > firstProducts);
      assert.equal(await count(small, 'products'), await count(large, 'products'));
      assert.ok((await count(small, 'articles')) >= 15_000);
    } finally {
      await small.close();
      await large.close();
    }
  });
});
