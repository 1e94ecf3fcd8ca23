import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { User } from '../src/store/schema.js';
import { updateUser } from '../src/store/users.js';
import {
  createArticle,
  createArticles,
  createExpansion,
  createProduct,
  type ProductFixture,
} from './fixtures.js';
import {
  ApiClient,
  createTestApp,
  createTestClient,
  createTestUser,
  DIALECTS,
  startTestServer,
  type TestServer,
  xmlValue,
} from './helpers.js';

type Json = { json: { article: { idArticle: number; price: number }[] } };
const articleIds = (res: Json) => res.json.article.map((a) => a.idArticle);

const ARTICLE_FIELDS = [
  'idArticle',
  'idProduct',
  'language',
  'comments',
  'price',
  'idCurrency',
  'currencyCode',
  'prices',
  'count',
  'inShoppingCart',
  'product',
  'seller',
  'condition',
  'isFoil',
  'isSigned',
  'isPlayset',
  'isAltered',
  'links',
];

for (const dialect of DIALECTS) {
  describe(`the public marketplace: offers and users (${dialect})`, () => {
    let server: TestServer;
    let api: ApiClient;
    let buyer: User;
    let widget: ApiClient;
    let privateDE: User;
    let proFR: User;
    let powerIT: User;
    let away: User;
    let bulkSeller: User;
    let card: ProductFixture;
    let pokemon: ProductFixture;
    let sealed: ProductFixture;
    let crowded: ProductFixture;
    const a: Record<string, number> = {};

    before(async () => {
      server = await startTestServer({ dialect });
      const db = server.services.database.db;
      ({ api, user: buyer } = await createTestClient(server, { username: `buyer-${dialect}` }));
      widget = new ApiClient(server, await createTestApp(server, await createTestUser(server), 'widget'));
      privateDE = await createTestUser(server, {
        username: `kartenfan-${dialect}`,
        country: 'D',
        accountType: 'private',
      });
      proFR = await createTestUser(server, {
        username: `cartes-pro-${dialect}`,
        country: 'FR',
        accountType: 'professional',
      });
      powerIT = await createTestUser(server, {
        username: `carte-power-${dialect}`,
        country: 'IT',
        accountType: 'powerseller',
      });
      away = await createTestUser(server, {
        username: `on-holiday-${dialect}`,
        country: 'ES',
        accountType: 'professional',
      });
      bulkSeller = await createTestUser(server, {
        username: `bulk-${dialect}`,
        country: 'NL',
        accountType: 'powerseller',
      });
      await updateUser(db, privateDE.idUser, { reputation: 1 });
      await updateUser(db, proFR.idUser, { reputation: 3 });
      await updateUser(db, powerIT.idUser, { reputation: 0 });
      await updateUser(db, away.idUser, { onVacation: 1, reputation: 1 });
      const exp = await createExpansion(server, { enName: 'Khans of Tarkir' });
      card = await createProduct(server, { idExpansion: exp, enName: 'Polluted Delta', rarity: 'Rare' });
      pokemon = await createProduct(server, { idGame: 6, enName: 'Pikachu' });
      sealed = await createProduct(server, {
        idExpansion: exp,
        enName: 'Khans of Tarkir Booster',
        isSingle: false,
      });
      crowded = await createProduct(server, { idExpansion: exp, enName: 'Island', rarity: 'Common' });

      a.cheapPL = (
        await createArticle(server, privateDE, card, { price: 800, condition: 'PL', count: 1 })
      ).idArticle;
      a.nmDE = (
        await createArticle(server, privateDE, card, { price: 1500, idLanguage: 3, count: 2 })
      ).idArticle;
      a.foilFR = (await createArticle(server, proFR, card, { price: 3000, isFoil: 1, count: 1 })).idArticle;
      a.signedFR = (
        await createArticle(server, proFR, card, { price: 2500, isSigned: 1, condition: 'EX', count: 4 })
      ).idArticle;
      a.alteredIT = (
        await createArticle(server, powerIT, card, { price: 1800, isAltered: 1, idLanguage: 5, count: 7 })
      ).idArticle;
      a.mtIT = (
        await createArticle(server, powerIT, card, { price: 2000, condition: 'MT', count: 1 })
      ).idArticle;
      a.soldOut = (await createArticle(server, powerIT, card, { price: 100, count: 0 })).idArticle;
      a.vacation = (await createArticle(server, away, card, { price: 200, count: 3 })).idArticle;
      a.pika1st = (await createArticle(server, powerIT, pokemon, { price: 500, isFirstEd: 1 })).idArticle;
      a.pika = (await createArticle(server, powerIT, pokemon, { price: 300 })).idArticle;
      a.sealed = (
        await createArticle(server, proFR, sealed, { price: 400, condition: null, count: 12 })
      ).idArticle;

      // 1,005 offers of one product: past the 1,000 cap.
      await createArticles(server, bulkSeller, crowded, 1005, (i) => ({ price: 10 + i }));
      const now = server.clock.now();

      // The buyer holds a copy of the signed article in their cart.
      const reservation = await db
        .insertInto('reservations')
        .values({
          idBuyer: buyer.idUser,
          idSeller: proFR.idUser,
          idShippingMethod: null,
          createdAt: now,
          expiresAt: now + 3_600_000,
        })
        .returning('idReservation')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('reservationArticles')
        .values({ idReservation: reservation.idReservation, idArticle: a.signedFR!, count: 1 })
        .execute();
    });
    after(() => server.close());

    const offers = (query = '', client = api) =>
      client.get(`/articles/${card.idProduct}${query ? `?${query}` : ''}`, { json: true });

    it('lists offers cheapest first, without sold-out articles or sellers on vacation', async () => {
      const res = await offers();
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.json), ['article']);
      assert.deepEqual(articleIds(res), [a.cheapPL, a.nmDE, a.alteredIT, a.mtIT, a.signedFR, a.foilFR]);
      const first = res.json.article[0];
      assert.deepEqual(Object.keys(first), ARTICLE_FIELDS);
      assert.equal(first.price, 8);
      assert.deepEqual(first.prices, [{ price: 8, idCurrency: 1, currencyCode: 'EUR' }]);
      assert.equal(first.seller.idUser, privateDE.idUser);
      assert.equal(first.seller.username, privateDE.username);
      assert.deepEqual(first.seller.address, { country: 'D' });
      assert.equal(first.seller.email, '', 'a listing shows no contact details');
      assert.equal(first.product.enName, 'Polluted Delta');
      assert.equal(first.condition, 'PL');
    });

    it('marks the articles the caller has in their cart (never for widget apps)', async () => {
      const res = await offers();
      const flags = Object.fromEntries(
        res.json.article.map((x: { idArticle: number; inShoppingCart: boolean }) => [
          x.idArticle,
          x.inShoppingCart,
        ]),
      );
      assert.equal(flags[a.signedFR!], true);
      assert.equal(flags[a.nmDE!], false);
      const w = await offers('', widget);
      assert.equal(w.status, 200);
      assert.ok(w.json.article.every((x: { inShoppingCart: boolean }) => x.inShoppingCart === false));
    });

    it('filters by seller type, score, language, condition, flags, amount and country', async () => {
      assert.deepEqual(articleIds(await offers('userType=private')), [a.cheapPL, a.nmDE]);
      assert.deepEqual(articleIds(await offers('userType=commercial')), [
        a.alteredIT,
        a.mtIT,
        a.signedFR,
        a.foilFR,
      ]);
      assert.deepEqual(articleIds(await offers('userType=powerseller')), [a.alteredIT, a.mtIT]);
      assert.deepEqual(articleIds(await offers('minUserScore=1')), [a.cheapPL, a.nmDE]);
      assert.deepEqual(articleIds(await offers('minUserScore=3')), [a.cheapPL, a.nmDE, a.signedFR, a.foilFR]);
      assert.deepEqual(articleIds(await offers('idLanguage=3')), [a.nmDE]);
      assert.deepEqual(articleIds(await offers('idLanguage=3&idLanguage=5')), [a.nmDE, a.alteredIT]);
      assert.deepEqual(articleIds(await offers('minCondition=EX')), [
        a.nmDE,
        a.alteredIT,
        a.mtIT,
        a.signedFR,
        a.foilFR,
      ]);
      assert.deepEqual(articleIds(await offers('minCondition=MT')), [a.mtIT]);
      assert.deepEqual(articleIds(await offers('isFoil=true')), [a.foilFR]);
      assert.deepEqual(articleIds(await offers('isFoil=false&isSigned=false&isAltered=false')), [
        a.cheapPL,
        a.nmDE,
        a.mtIT,
      ]);
      assert.deepEqual(articleIds(await offers('isSigned=true')), [a.signedFR]);
      assert.deepEqual(articleIds(await offers('isAltered=true')), [a.alteredIT]);
      assert.deepEqual(articleIds(await offers('minAvailable=4')), [a.alteredIT, a.signedFR]);
      assert.deepEqual(articleIds(await offers('sellerCountry=D')), [a.cheapPL, a.nmDE]);
      // Numeric ids (7 Germany, 12 France), repeatable.
      assert.deepEqual(articleIds(await offers('sellerCountry=7&sellerCountry=12')), [
        a.cheapPL,
        a.nmDE,
        a.signedFR,
        a.foilFR,
      ]);
      assert.deepEqual(articleIds(await offers('sellerCountry=FR&isFoil=true&userType=commercial')), [
        a.foilFR,
      ]);
      assert.equal((await offers('sellerCountry=ES')).status, 204, 'the Spanish seller is on vacation');
    });

    it('refuses malformed filters with a 400 naming the parameter', async () => {
      for (const [query, field] of [
        ['userType=rich', 'userType'],
        ['minUserScore=9', 'minUserScore'],
        ['idLanguage=99', 'idLanguage'],
        ['minCondition=GOOD', 'minCondition'],
        ['isFoil=yes', 'isFoil'],
        ['minAvailable=0', 'minAvailable'],
        ['sellerCountry=99', 'sellerCountry'],
        ['start=-1&maxResults=10', 'start'],
      ]) {
        const res = await offers(query!);
        assert.equal(res.status, 400, query);
        assert.equal(res.json.post_data_field, field, query);
      }
      assert.equal((await api.get('/articles/42', { json: true })).status, 404);
    });

    it('ignores filters that do not apply: foil on Pokémon, condition on sealed product', async () => {
      const pika = await api.get(`/articles/${pokemon.idProduct}?isFoil=true`, { json: true });
      assert.deepEqual(
        pika.json.article.map((x: { idArticle: number }) => x.idArticle),
        [a.pika, a.pika1st],
      );
      assert.equal(pika.json.article[0].isFoil, undefined, 'Pokémon articles carry no isFoil');
      const first = await api.get(`/articles/${pokemon.idProduct}?isFirstEd=true`, { json: true });
      assert.deepEqual(
        first.json.article.map((x: { idArticle: number }) => x.idArticle),
        [a.pika1st],
      );
      const box = await api.get(`/articles/${sealed.idProduct}?minCondition=MT`, { json: true });
      assert.deepEqual(
        box.json.article.map((x: { idArticle: number }) => x.idArticle),
        [a.sealed],
      );
      assert.equal(box.json.article[0].condition, undefined);
    });

    it('caps a product’s offers at 1,000: 307 unpaginated, pages of 100, total 1000+', async () => {
      const unpaginated = await api.get(`/articles/${crowded.idProduct}?minCondition=NM`, { json: true });
      assert.equal(unpaginated.status, 307);
      assert.equal(
        unpaginated.headers.location,
        `http://api.cardbazaar.test/ws/v2.0/output.json/articles/${crowded.idProduct}?minCondition=NM&start=0&maxResults=100`,
      );
      const first = await api.requestUrl('GET', String(unpaginated.headers.location));
      assert.equal(first.status, 206);
      assert.equal(first.headers['content-range'], '0-99/1000+');
      assert.equal(first.json.article[0].price, 0.1);
      const last = await api.get(`/articles/${crowded.idProduct}?start=950&maxResults=100`, { json: true });
      assert.equal(last.status, 206);
      assert.equal(last.headers['content-range'], '950-999/1000+');
      assert.equal(last.json.article.length, 50);
      assert.equal(last.json.article[49].price, 10.09, 'the 1,000th cheapest');
      assert.equal(
        (await api.get(`/articles/${crowded.idProduct}?start=1000&maxResults=100`, { json: true })).status,
        204,
      );
      const narrowed = await api.get(
        `/articles/${crowded.idProduct}?start=0&maxResults=100&minAvailable=1&userType=private`,
        {
          json: true,
        },
      );
      assert.equal(narrowed.status, 204);
      assert.equal(
        (await api.get(`/articles/${crowded.idProduct}?start=0&maxResults=101`, { json: true })).status,
        400,
      );
      const xml = await api.get(`/articles/${crowded.idProduct}?start=10&maxResults=5`);
      assert.equal(xml.status, 206);
      assert.equal(xml.headers['content-range'], '10-14/1000+');
      assert.equal(xmlValue(xml.text, 'price'), '0.20');
    });

    it('a small paginated list is 206 only when it is a part: 200 for the whole', async () => {
      const whole = await offers('start=0&maxResults=100');
      assert.equal(whole.status, 200);
      assert.equal(whole.headers['content-range'], '0-5/6');
      const part = await offers('start=2&maxResults=2');
      assert.equal(part.status, 206);
      assert.equal(part.headers['content-range'], '2-3/6');
      assert.deepEqual(articleIds(part), [a.alteredIT, a.mtIT]);
    });

    it('a product’s page answers the same as the general path: ties in price, sellers on vacation, sold out', async () => {
      const tiedSeller = await createTestUser(server, { username: `ties-${dialect}`, country: 'AT' });
      const exp = await createExpansion(server, { enName: `Ties ${dialect}` });
      const few = await createProduct(server, { idExpansion: exp, enName: 'Plains' });
      const many = await createProduct(server, { idExpansion: exp, enName: 'Swamp' });
      // Three offers a price, the vacationer's and the sold out ones among them.
      await createArticles(server, tiedSeller, few, 12, (i) => ({ price: 100 + 10 * (i % 4), count: i % 5 }));
      await createArticles(server, away, few, 4, (i) => ({ price: 100 + 10 * i }));
      await createArticles(server, bulkSeller, few, 6, (i) => ({ price: 110 + 10 * (i % 2) }));
      // Past the cap, ten offers a price.
      await createArticles(server, bulkSeller, many, 1003, (i) => ({ price: 10 + Math.floor(i / 10) }));
      await createArticles(server, away, many, 20, (i) => ({ price: 10 + i }));
      await createArticles(server, tiedSeller, many, 20, (i) => ({ price: 10 + i, count: i % 2 }));
      const windows: Array<[product: ProductFixture, start: number, maxResults: number]> = [];
      for (let start = 0; start <= 22; start++) {
        for (const max of [1, 2, 3, 7, 100]) windows.push([few, start, max]);
      }
      for (const start of [0, 1, 99, 100, 899, 900, 901, 950, 990, 999, 1000, 1001]) {
        for (const max of [1, 10, 100]) windows.push([many, start, max]);
      }
      for (const [product, start, max] of windows) {
        const path = `/articles/${product.idProduct}?start=${start}&maxResults=${max}`;
        for (const json of [true, false]) {
          const plain = await api.get(path, { json });
          // A filter every offer passes takes the general path.
          const general = await api.get(`${path}&minAvailable=1`, { json });
          assert.equal(plain.status, general.status, path);
          assert.equal(plain.headers['content-range'], general.headers['content-range'], path);
          assert.equal(plain.text, general.text, path);
        }
      }
      const unpaginated = await api.get(`/articles/${few.idProduct}`, { json: true });
      assert.equal(unpaginated.status, 200);
      assert.equal(unpaginated.json.article.length, 15);
    });

    it('GET /users/:idUser by id or exact name, public fields only', async () => {
      const byId = await widget.get(`/users/${proFR.idUser}`, { json: true });
      assert.equal(byId.status, 200);
      assert.deepEqual(Object.keys(byId.json), ['user']);
      assert.equal(byId.json.user.username, proFR.username);
      assert.equal(byId.json.user.isCommercial, 1);
      assert.deepEqual(byId.json.user.address, { country: 'FR' });
      assert.equal(byId.json.user.email, '');
      const byName = await api.get(`/users/${proFR.username}`);
      assert.equal(byName.status, 200);
      assert.equal(xmlValue(byName.text, 'idUser'), String(proFR.idUser));
      assert.equal((await api.get('/users/nobody-here', { json: true })).status, 404);
      assert.equal((await api.get('/users/99999999', { json: true })).status, 404);
    });

    it('GET /users/find finds users whose name starts with the search, any case', async () => {
      const res = await api.get(`/users/find?search=CARTE`, { json: true });
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.json.user.map((u: { username: string }) => u.username),
        [powerIT.username, proFR.username],
      );
      assert.equal((await api.get('/users/find?search=zzzz', { json: true })).status, 204);
      const missing = await api.get('/users/find', { json: true });
      assert.equal(missing.status, 400);
      assert.equal(missing.json.post_data_field, 'search');
      const page = await api.get('/users/find?search=carte&start=1&maxResults=1', { json: true });
      assert.equal(page.status, 206);
      assert.equal(page.headers['content-range'], '1-1/2');
    });

    it('GET /users/:idUser/articles lists a user’s offers of one game (default Magic) with filters', async () => {
      const res = await api.get(`/users/${powerIT.username}/articles`, { json: true });
      assert.equal(res.status, 200);
      assert.deepEqual(articleIds(res), [a.alteredIT, a.mtIT]);
      assert.equal(res.json.article[0].seller.idUser, powerIT.idUser);
      assert.deepEqual(
        articleIds(await api.get(`/users/${powerIT.idUser}/articles?idGame=6`, { json: true })),
        [a.pika1st, a.pika],
      );
      assert.deepEqual(
        articleIds(
          await api.get(`/users/${powerIT.idUser}/articles?idGame=6&isFirstEd=true`, { json: true }),
        ),
        [a.pika1st],
      );
      const fr = (q: string) => api.get(`/users/${proFR.idUser}/articles${q ? `?${q}` : ''}`, { json: true });
      assert.deepEqual(articleIds(await fr('')), [a.foilFR, a.signedFR, a.sealed]);
      assert.deepEqual(
        articleIds(await fr('minCondition=PO')),
        [a.foilFR, a.signedFR],
        'minCondition keeps singles only',
      );
      assert.deepEqual(articleIds(await fr('isFoil=true')), [a.foilFR]);
      assert.deepEqual(articleIds(await fr('rarity=Rare')), [a.foilFR, a.signedFR]);
      assert.deepEqual(articleIds(await fr('name=booster')), [a.sealed]);
      assert.deepEqual(articleIds(await fr('name=POLLUTED%20del')), [a.foilFR, a.signedFR]);
      for (const punctuation of ['%25', '_', '((((']) {
        const res = await fr(`name=${punctuation}`);
        assert.equal(res.status, 204, `a name of punctuation only (${punctuation}) matches no product`);
      }
      assert.deepEqual(articleIds(await fr('minPrice=25&maxPrice=29,99')), [a.signedFR]);
      assert.deepEqual(articleIds(await fr('expansionName=Khans%20of%20Tarkir&minAvailable=5')), [a.sealed]);
      assert.equal((await fr('minPrice=abc')).status, 400);
      assert.equal((await fr('maxResults=1001')).status, 400);
    });

    it('GET /users/:idUser/articles truncates to 1,000 and pages up to 1,000 at a time', async () => {
      const res = await api.get(`/users/${bulkSeller.idUser}/articles`, { json: true });
      assert.equal(res.status, 206);
      assert.equal(res.headers['content-range'], '0-999/1000+');
      assert.equal(res.json.article.length, 1000);
      const page = await api.get(`/users/${bulkSeller.idUser}/articles?start=990&maxResults=100`, {
        json: true,
      });
      assert.equal(page.status, 206);
      assert.equal(page.headers['content-range'], '990-999/1000+');
      assert.equal(
        (await api.get(`/users/${away.idUser}/articles`, { json: true })).status,
        204,
        'on vacation',
      );
      assert.equal((await api.get('/users/nobody-here/articles', { json: true })).status, 404);
    });
  });
}
