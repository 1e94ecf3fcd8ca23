import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccessToken } from '../src/auth/apps.js';
import { refreshPriceGuide } from '../src/domain/priceguide.js';
import { insertExpansion, insertMetaproduct, insertProduct } from '../src/store/catalog.js';
import type { ProductsTable } from '../src/store/schema.js';
import { updateUser } from '../src/store/users.js';
import { createArticle, ensureGame } from './fixtures.js';
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

const PRODUCT_CORE = [
  'idProduct',
  'idMetaproduct',
  'countReprints',
  'enName',
  'locName',
  'localization',
  'website',
  'image',
  'gameName',
  'categoryName',
  'idGame',
  'number',
  'rarity',
];
const PRODUCT_DETAIL = [
  ...PRODUCT_CORE,
  'expansion',
  'priceGuide',
  'reprint',
  'countArticles',
  'countFoils',
  'links',
];
const PRODUCT_LISTED = [
  ...PRODUCT_CORE,
  'expansionName',
  'expansionIcon',
  'countArticles',
  'countFoils',
  'links',
];
const EXPANSION_FIELDS = [
  'idExpansion',
  'enName',
  'localization',
  'abbreviation',
  'icon',
  'releaseDate',
  'isReleased',
  'idGame',
  'links',
];

const DRUM_NAMES = {
  2: 'Tambour de printefeuille',
  3: 'Frühlingslaubtrommel',
  4: 'Tambor de hojaprimavera',
  5: 'Tamburo di Fogliaprimaverile',
};

function product(
  idProduct: number,
  idExpansion: number,
  enName: string,
  extra: Partial<ProductsTable> = {},
): ProductsTable {
  return {
    idProduct,
    idGame: 1,
    idExpansion,
    idMetaproduct: null,
    idCategory: 1,
    categoryName: 'Magic Single',
    enName,
    number: String(idProduct % 1000),
    rarity: 'Uncommon',
    isSingle: 1,
    dateAdded: Date.UTC(2014, 0, 10),
    image: `./img/items/1/X/${idProduct}.jpg`,
    ...extra,
  };
}

for (const dialect of DIALECTS) {
  describe(`the catalog (${dialect})`, () => {
    let server: TestServer;
    let api: ApiClient;
    let widget: ApiClient;
    const BNG = 71469;
    const THS = 71470;
    const DRUM = 765882;
    const DRUM_REPRINT = 765883;
    const BOOSTER = 765884;

    before(async () => {
      server = await startTestServer({ dialect });
      const db = server.services.database.db;
      ({ api } = await createTestClient(server));
      const owner = await createTestUser(server, { accountType: 'private' });
      widget = new ApiClient(server, await createTestApp(server, owner, 'widget'));
      await ensureGame(server, 1);
      await ensureGame(server, 6);
      await insertExpansion(
        db,
        {
          idExpansion: BNG,
          idGame: 1,
          enName: 'Born of the Gods',
          abbreviation: 'BNG',
          icon: 246,
          releaseDate: Date.UTC(2014, 1, 7),
          isReleased: 1,
        },
        { 2: 'Créations divines', 3: 'Geboren aus den Göttern' },
      );
      await insertExpansion(db, {
        idExpansion: THS,
        idGame: 1,
        enName: 'Theros',
        abbreviation: 'THS',
        icon: 240,
        releaseDate: Date.UTC(2013, 8, 27),
        isReleased: 1,
      });
      await insertMetaproduct(db, 7204395, 'Springleaf Drum');
      await insertProduct(
        db,
        product(DRUM, BNG, 'Springleaf Drum', { idMetaproduct: 7204395, number: '162' }),
        DRUM_NAMES,
      );
      await insertProduct(
        db,
        product(DRUM_REPRINT, THS, 'Springleaf Drum', { idMetaproduct: 7204395, number: '12' }),
        DRUM_NAMES,
      );
      await insertProduct(
        db,
        product(BOOSTER, BNG, 'Born of the Gods Booster', {
          idCategory: 7,
          categoryName: 'Magic Booster',
          isSingle: 0,
          number: null,
          rarity: null,
        }),
      );
      const seller = await createTestUser(server, { accountType: 'professional', country: 'D' });
      const away = await createTestUser(server, { accountType: 'private', country: 'FR' });
      await updateUser(db, away.idUser, { onVacation: 1 });
      const drum = { idProduct: DRUM, idGame: 1, idExpansion: BNG, enName: 'Springleaf Drum' };
      await createArticle(server, seller, drum, { price: 120, count: 3 });
      await createArticle(server, seller, drum, { price: 450, count: 2, isFoil: 1 });
      await createArticle(server, seller, drum, { price: 90, count: 1, condition: 'PL' });
      await createArticle(server, seller, drum, { price: 10, count: 0 });
      await createArticle(server, away, drum, { price: 5, count: 4 });
      await refreshPriceGuide(server.services);
    });
    after(() => server.close());

    it('GET /games lists the games with their links (JSON and XML)', async () => {
      const res = await api.get('/games', { json: true });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.json), ['game', 'links']);
      const magic = res.json.game.find((g: { idGame: number }) => g.idGame === 1);
      assert.deepEqual(magic, {
        idGame: 1,
        name: 'Magic the Gathering',
        abbreviation: 'MtG',
        links: [{ rel: 'expansions', href: '/games/1/expansions', method: 'GET' }],
      });
      const xml = await api.get('/games');
      assert.equal(xml.status, 200);
      assert.match(
        xml.text,
        /<game><idGame>1<\/idGame><name>Magic the Gathering<\/name><abbreviation>MtG<\/abbreviation>/,
      );
    });

    it('GET /games/:idGame/expansions gives each expansion with five localizations, newest first', async () => {
      const res = await api.get('/games/1/expansions', { json: true });
      assert.equal(res.status, 200);
      const [bng, ths] = res.json.expansion;
      assert.deepEqual(Object.keys(bng), EXPANSION_FIELDS);
      assert.equal(bng.idExpansion, BNG);
      assert.equal(ths.idExpansion, THS);
      assert.deepEqual(bng.localization, [
        { name: 'Born of the Gods', idLanguage: 1, languageName: 'English' },
        { name: 'Créations divines', idLanguage: 2, languageName: 'French' },
        { name: 'Geboren aus den Göttern', idLanguage: 3, languageName: 'German' },
        { name: 'Born of the Gods', idLanguage: 4, languageName: 'Spanish' },
        { name: 'Born of the Gods', idLanguage: 5, languageName: 'Italian' },
      ]);
      assert.equal(bng.releaseDate, '2014-02-07T01:00:00+0100');
      assert.equal(bng.isReleased, true);
      assert.equal((await api.get('/games/999/expansions', { json: true })).status, 404);
      const bad = await api.get('/games/x/expansions', { json: true });
      assert.equal(bad.status, 400);
      assert.equal(bad.json.post_data_field, 'idGame');
      const xml = await api.get('/games/1/expansions');
      assert.match(
        xml.text,
        /<expansion><idExpansion>71469<\/idExpansion><enName>Born of the Gods<\/enName><localization>/,
      );
    });

    it('GET /expansions/:id/singles gives the expansion and its singles in the list form, no sealed product', async () => {
      const res = await api.get(`/expansions/${BNG}/singles`, { json: true });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.json), ['expansion', 'single', 'links']);
      assert.equal(res.json.expansion.idExpansion, BNG);
      assert.deepEqual(
        res.json.single.map((s: { idProduct: number }) => s.idProduct),
        [DRUM],
      );
      const drum = res.json.single[0];
      assert.deepEqual(Object.keys(drum), PRODUCT_LISTED);
      assert.equal(drum.expansionName, 'Born of the Gods');
      assert.equal(drum.expansionIcon, 246);
      assert.equal(drum.countArticles, 6, 'copies of count > 0 and not on vacation');
      assert.equal(drum.countFoils, 2);
      assert.equal(drum.countReprints, 2);
      assert.deepEqual(drum.links, [{ rel: 'product', href: `/products/${DRUM}`, method: 'GET' }]);
      assert.equal((await api.get('/expansions/1/singles', { json: true })).status, 404);
      const xml = await widget.get(`/expansions/${BNG}/singles`);
      assert.equal(xml.status, 200);
      assert.match(xml.text, /<single><idProduct>765882<\/idProduct>/);
    });

    it('GET /products/:id gives the detailed product with price guide, reprints and counts', async () => {
      const res = await api.get(`/products/${DRUM}`, { json: true });
      assert.equal(res.status, 200);
      const p = res.json.product;
      assert.deepEqual(Object.keys(p), PRODUCT_DETAIL);
      assert.equal(p.enName, 'Springleaf Drum');
      assert.equal(p.locName, 'Springleaf Drum');
      assert.equal(p.localization.length, 5);
      assert.deepEqual(p.localization[2], {
        name: 'Frühlingslaubtrommel',
        idLanguage: 3,
        languageName: 'German',
      });
      assert.equal(p.website, '/en/Magic/Products/Singles/Born+of+the+Gods/Springleaf-Drum');
      assert.equal(p.gameName, 'Magic the Gathering');
      assert.equal(p.idGame, 1);
      assert.equal(p.number, '162');
      assert.deepEqual(p.expansion, { idExpansion: BNG, enName: 'Born of the Gods', expansionIcon: 246 });
      // Offers: 1.20 ×3 NM, 0.90 ×1 PL, foil 4.50 ×2; the vacationing seller's 0.05 is not offered.
      assert.deepEqual(p.priceGuide, { LOW: 0.9, LOWEX: 1.2, LOWFOIL: 4.5, AVG: 1.13 });
      assert.deepEqual(p.reprint, [
        { idProduct: DRUM, expansion: 'Born of the Gods', expIcon: 246 },
        { idProduct: DRUM_REPRINT, expansion: 'Theros', expIcon: 240 },
      ]);
      assert.equal(p.countArticles, 6);
      assert.equal(p.countFoils, 2);
      assert.deepEqual(p.links, [
        { rel: 'self', href: `/products/${DRUM}`, method: 'GET' },
        { rel: 'articles', href: `/articles/${DRUM}`, method: 'GET' },
      ]);
      const xml = await api.get(`/products/${DRUM}`);
      assert.equal(xmlValue(xml.text, 'LOW'), '0.90');
      assert.equal(xmlValue(xml.text, 'countArticles'), '6');
      assert.equal((await api.get('/products/123', { json: true })).status, 404);
      assert.equal((await api.get('/products/abc', { json: true })).status, 400);
    });

    it('writes locName in the viewer’s display language (English for widget apps)', async () => {
      await updateUser(server.services.database.db, api.cred.idUser, { idDisplayLanguage: 3 });
      try {
        const res = await api.get(`/products/${DRUM}`, { json: true });
        assert.equal(res.json.product.locName, 'Frühlingslaubtrommel');
        const w = await widget.get(`/products/${DRUM}`, { json: true });
        assert.equal(w.json.product.locName, 'Springleaf Drum');
      } finally {
        await updateUser(server.services.database.db, api.cred.idUser, { idDisplayLanguage: 1 });
      }
    });

    it('sealed product has no condition-graded shelf and a product without sales or offers an empty guide', async () => {
      const res = await api.get(`/products/${BOOSTER}`, { json: true });
      assert.equal(res.status, 200);
      assert.deepEqual(res.json.product.priceGuide, {});
      assert.equal(res.json.product.countReprints, 1);
      assert.deepEqual(res.json.product.reprint, [
        { idProduct: BOOSTER, expansion: 'Born of the Gods', expIcon: 246 },
      ]);
      assert.equal(
        res.json.product.website,
        '/en/Magic/Products/Magic-Booster/Born+of+the+Gods/Born-of-the-Gods-Booster',
      );
    });

    it('GET /metaproducts/:id gives the card and all its printings', async () => {
      const res = await widget.get('/metaproducts/7204395', { json: true });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.json), ['metaproduct', 'product']);
      assert.deepEqual(Object.keys(res.json.metaproduct), [
        'idMetaproduct',
        'enName',
        'locName',
        'localization',
        'image',
        'links',
      ]);
      assert.equal(res.json.metaproduct.enName, 'Springleaf Drum');
      assert.equal(res.json.metaproduct.localization[1].name, 'Tambour de printefeuille');
      assert.equal(res.json.metaproduct.image, `./img/items/1/X/${DRUM}.jpg`);
      assert.deepEqual(
        res.json.product.map((p: { idProduct: number }) => p.idProduct),
        [DRUM, DRUM_REPRINT],
      );
      assert.equal((await api.get('/metaproducts/1', { json: true })).status, 404);
    });

    it('every catalog and marketplace resource answers dedicated, widget and third-party apps, in XML and JSON', async () => {
      const buyer = await createTestUser(server);
      const third = await createTestApp(
        server,
        await createTestUser(server, { accountType: 'professional' }),
        'thirdParty',
      );
      const token = await createAccessToken(server.services, { idApp: third.idApp, idUser: buyer.idUser });
      const thirdParty = new ApiClient(server, {
        ...third,
        accessToken: token.token,
        accessTokenSecret: token.secret,
        idUser: buyer.idUser,
      });
      const paths: [string, string][] = [
        ['/games', 'game'],
        ['/games/1/expansions', 'expansion'],
        [`/expansions/${BNG}/singles`, 'expansion'],
        [`/products/${DRUM}`, 'product'],
        ['/products/find?search=springleaf', 'product'],
        ['/metaproducts/7204395', 'metaproduct'],
        ['/metaproducts/find?search=springleaf', 'metaproduct'],
        [`/articles/${DRUM}`, 'article'],
        [`/users/${api.cred.idUser}`, 'user'],
        ['/users/find?search=user', 'user'],
        ['/productlist', 'productsfile'],
      ];
      for (const client of [api, widget, thirdParty]) {
        for (const [path, key] of paths) {
          const json = await client.get(path, { json: true });
          assert.ok(
            json.status === 200 || json.status === 206,
            `${client.cred.kind} ${path}: ${json.status} ${json.text}`,
          );
          assert.ok(key in json.json, `${path} has ${key}`);
          const xml = await client.get(path);
          assert.equal(xml.status, json.status, `${client.cred.kind} ${path} (XML)`);
          assert.match(xml.text, new RegExp(`^<\\?xml[^>]*>\\s*<response><${key}>`), path);
        }
      }
    });

    it('GET /metaproducts/find groups matching printings under their metaproduct', async () => {
      const res = await api.get('/metaproducts/find?search=springleaf', { json: true });
      assert.equal(res.status, 200);
      assert.equal(res.json.metaproduct.length, 1);
      assert.equal(res.json.metaproduct[0].metaproduct.idMetaproduct, 7204395);
      assert.equal(res.json.metaproduct[0].product.length, 2);
      assert.equal((await api.get('/metaproducts/find?search=zzzzzz', { json: true })).status, 204);
      const short = await api.get('/metaproducts/find?search=dru', { json: true });
      assert.equal(short.status, 400);
    });
  });
}
