import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  article,
  EXPANSION,
  GAME,
  LINKS,
  list,
  METAPRODUCT,
  productDetail,
  productListed,
  USER_PUBLIC,
} from './conformance-shapes.js';
import { buildWorld, getBoth, type World } from './conformance-world.js';
import { DIALECTS } from './helpers.js';

/**
 * Conformance of the public marketplace (reference §1.3): every entity of games, expansions,
 * products, metaproducts, users and offers, key by key and type by type, in JSON and XML, for the
 * app kinds that read them.
 */
for (const dialect of DIALECTS) {
  describe(`conformance: catalog and marketplace (${dialect})`, () => {
    let w: World;
    before(async () => {
      w = await buildWorld(dialect);
      await w.server.services.database.db
        .insertInto('priceGuides')
        .values({ idProduct: w.magic.idProduct, sell: 310, low: 120, lowEx: 150, trend: 299, updatedAt: 0 })
        .execute();
    });
    after(() => w.server.close());

    it('GET /games: game[] and links', async () => {
      const res = await getBoth(w.buyer.api, '/games', { game: list(GAME, 3), links: LINKS });
      assert.deepEqual(
        res.json.game.map((g: { idGame: number }) => g.idGame),
        [1, 3, 6],
      );
    });

    it('GET /games/:idGame/expansions: expansion[] and links', async () => {
      await getBoth(w.buyer.api, '/games/1/expansions', { expansion: list(EXPANSION, 3), links: LINKS });
    });

    it('GET /expansions/:id/singles: the expansion, single[] in the list form, links', async () => {
      const res = await getBoth(w.buyer.api, `/expansions/${w.magic.idExpansion}/singles`, {
        expansion: EXPANSION,
        single: list(productListed()),
        links: LINKS,
      });
      assert.equal(res.json.single[0].idProduct, w.magic.idProduct);
    });

    it('GET /products/:id: the detailed product, its price guide keys in order', async () => {
      const res = await getBoth(w.buyer.api, `/products/${w.magic.idProduct}`, {
        product: productDetail({ guide: ['SELL', 'LOW', 'LOWEX', 'TREND'] }),
      });
      const p = res.json.product;
      assert.deepEqual(p.priceGuide, { SELL: 3.1, LOW: 1.2, LOWEX: 1.5, TREND: 2.99 });
      assert.deepEqual(
        p.reprint.map((r: { idProduct: number }) => r.idProduct),
        [w.magic.idProduct, w.reprint.idProduct],
      );
      assert.deepEqual(p.links, [
        { rel: 'self', href: `/products/${w.magic.idProduct}`, method: 'GET' },
        { rel: 'articles', href: `/articles/${w.magic.idProduct}`, method: 'GET' },
      ]);
      // A sealed product: number and rarity null, no price guide known (an empty object).
      await getBoth(w.buyer.api, `/products/${w.sealed.idProduct}`, {
        product: productDetail({ single: false, guide: [] }),
      });
    });

    it('GET /products/find and /metaproducts: the list form, the same product everywhere', async () => {
      const found = await getBoth(w.buyer.api, '/products/find?search=Conformance%20Bolt', {
        product: list(productListed(), 2),
        links: LINKS,
      });
      const meta = await getBoth(w.buyer.api, `/metaproducts/${w.idMetaproduct}`, {
        metaproduct: METAPRODUCT,
        product: list(productListed(), 2),
      });
      const metaFound = await getBoth(w.buyer.api, '/metaproducts/find?search=Conformance%20Bolt', {
        metaproduct: list({ metaproduct: METAPRODUCT, product: list(productListed(), 2) }),
        links: LINKS,
      });
      const singles = await w.buyer.api.get(`/expansions/${w.magic.idExpansion}/singles`, { json: true });
      // One mapper: the product reads the same from every endpoint that lists it.
      assert.deepEqual(meta.json.product[0], found.json.product[0]);
      assert.deepEqual(metaFound.json.metaproduct[0].product[0], found.json.product[0]);
      assert.deepEqual(singles.json.single[0], found.json.product[0]);
      assert.deepEqual(metaFound.json.metaproduct[0].metaproduct, meta.json.metaproduct);
      // The detailed form shares the list form's core, field for field.
      const detail = (await w.buyer.api.get(`/products/${w.magic.idProduct}`, { json: true })).json.product;
      const core = Object.keys(found.json.product[0]).slice(0, 13);
      for (const key of core) assert.deepEqual(detail[key], found.json.product[0][key], key);
    });

    it('GET /articles/:idProduct: marketplace articles of each game, with the public seller', async () => {
      const cases = [
        { product: w.magic, spec: article({ context: 'marketplace' }) },
        { product: w.sealed, spec: article({ context: 'marketplace', single: false }) },
        { product: w.ygo, spec: article({ context: 'marketplace', idGame: 3 }) },
        { product: w.pkm, spec: article({ context: 'marketplace', idGame: 6 }) },
      ];
      for (const { product, spec } of cases) {
        const res = await getBoth(w.buyer.api, `/articles/${product.idProduct}`, { article: list(spec) });
        const a = res.json.article[0];
        assert.equal(a.seller.idUser, w.seller.user.idUser);
        assert.deepEqual(a.prices, [{ price: a.price, idCurrency: 1, currencyCode: 'EUR' }]);
        assert.equal(a.seller.email, '', 'a listing hides contact details as empty strings');
        assert.equal(a.seller.phone, '');
        assert.deepEqual(a.seller.name, { company: 'Card Shop GmbH', firstName: 'Test' });
      }
      const pkm = (await w.buyer.api.get(`/articles/${w.pkm.idProduct}`, { json: true })).json.article[0];
      assert.deepEqual(pkm.language, { idLanguage: 7, languageName: 'Japanese' });
      assert.equal(pkm.isReverseHolo, true);
    });

    it('widget apps read the same shapes (articles, products, users)', async () => {
      await getBoth(w.widget, `/articles/${w.magic.idProduct}`, {
        article: list(article({ context: 'marketplace' })),
      });
      await getBoth(w.widget, `/products/${w.magic.idProduct}`, { product: productDetail() });
      await getBoth(w.widget, `/users/${w.seller.user.idUser}`, { user: USER_PUBLIC });
    });

    it('GET /users/:idUser/articles: the same marketplace article as /articles/:idProduct', async () => {
      // Singles only (`minCondition`), then the sealed product: each in its own form.
      const singles = await getBoth(w.buyer.api, `/users/${w.seller.user.idUser}/articles?minCondition=PO`, {
        article: list(article({ context: 'marketplace' })),
      });
      const sealed = await getBoth(w.buyer.api, `/users/${w.seller.user.idUser}/articles?name=Booster`, {
        article: list(article({ context: 'marketplace', single: false })),
      });
      assert.equal(sealed.json.article[0].idArticle, w.offers.sealed.idArticle);
      const offers = await w.buyer.api.get(`/articles/${w.magic.idProduct}`, { json: true });
      assert.deepEqual(singles.json.article[0], offers.json.article[0]);
      assert.equal(singles.headers['content-range'], '0-0/1');
    });

    it('GET /users/:idUser and /users/find: the public User, the same as an offer’s seller', async () => {
      const one = await getBoth(w.buyer.api, `/users/${w.seller.user.idUser}`, { user: USER_PUBLIC });
      const found = await getBoth(w.buyer.api, `/users/find?search=${w.seller.user.username}`, {
        user: list(USER_PUBLIC),
      });
      const offer = (await w.buyer.api.get(`/articles/${w.magic.idProduct}`, { json: true })).json.article[0];
      assert.deepEqual(found.json.user[0], one.json.user);
      assert.deepEqual(offer.seller, one.json.user);
      assert.equal(one.json.user.vat, 'DE123456789');
      assert.equal(one.json.user.isCommercial, 1);
    });
  });
}
