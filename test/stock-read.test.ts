import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccessToken } from '../src/auth/apps.js';
import type { Article, User } from '../src/store/schema.js';
import { createArticle, createProduct, type ProductFixture } from './fixtures.js';
import {
  ApiClient,
  BASE,
  createTestApp,
  createTestClient,
  createTestUser,
  DIALECTS,
  startTestServer,
  type TestServer,
} from './helpers.js';
import { reserve } from './stock-helpers.js';

const ids = (json: { article: Array<{ idArticle: number }> }) => json.article.map((a) => a.idArticle);

for (const dialect of DIALECTS) {
  describe(`stock reads (${dialect})`, () => {
    let server: TestServer;
    let api: ApiClient;
    let seller: User;
    let buyer: User;
    let card: ProductFixture;
    let articles: Article[];
    before(async () => {
      server = await startTestServer({ dialect });
      ({ api, user: seller } = await createTestClient(server));
      buyer = await createTestUser(server);
      card = await createProduct(server, { enName: 'Lightning Bolt', names: { 2: 'Foudre' } });
      articles = [];
      for (let i = 0; i < 130; i++) {
        articles.push(await createArticle(server, seller, card, { price: 100 + i, count: 1 + (i % 3) }));
      }
    });
    after(() => server.close());

    describe('GET /stock', () => {
      it('pages of 100 by path: /stock/1 and /stock/101 answer 206 with Content-Range', async () => {
        const first = await api.get('/stock/1', { json: true });
        assert.equal(first.status, 206);
        assert.equal(first.headers['content-range'], '0-99/130');
        assert.deepEqual(
          ids(first.json),
          articles.slice(0, 100).map((a) => a.idArticle),
        );
        const second = await api.get('/stock/101', { json: true });
        assert.equal(second.status, 206);
        assert.equal(second.headers['content-range'], '100-129/130');
        assert.deepEqual(
          ids(second.json),
          articles.slice(100).map((a) => a.idArticle),
        );
        assert.equal((await api.get('/stock/131')).status, 204);
      });

      it('pages by query, and 307 to /stock/1 when unpaginated and over 100', async () => {
        const page = await api.get('/stock?start=10&maxResults=5', { json: true });
        assert.equal(page.status, 206);
        assert.equal(page.headers['content-range'], '10-14/130');
        assert.deepEqual(
          ids(page.json),
          articles.slice(10, 15).map((a) => a.idArticle),
        );
        const redirect = await api.get('/stock', { json: true });
        assert.equal(redirect.status, 307);
        assert.equal(redirect.headers.location, `${BASE}/ws/v2.0/output.json/stock/1`);
        assert.equal(redirect.text, '');
        assert.equal((await api.get('/stock?start=0&maxResults=101')).status, 400);
        assert.equal((await api.get('/stock/0')).status, 400);
        assert.equal((await api.get('/stock/abc')).status, 400);
      });

      it('a redirect target signed for the original URL answers 403 saying to sign it anew (spec §7)', async () => {
        const redirect = await api.get('/stock', { json: true });
        assert.equal(redirect.status, 307);
        const location = redirect.headers.location as string;
        // Followed with a signature of the URL first asked for, as clients that follow 307s do.
        const followed = await api.requestUrl('GET', location, { signUrl: api.url('/stock', true) });
        assert.equal(followed.status, 403, followed.text);
        const body = JSON.parse(followed.text);
        assert.equal(body.internal_error_code, 'redirect_not_resigned');
        assert.match(body.mkm_error_description, /sign the exact URL of the Location/i);
        // The query form the other collections redirect to.
        const query = await api.get('/stock?start=0&maxResults=100', {
          json: true,
          signUrl: api.url('/stock', true),
        });
        assert.equal(query.status, 403);
        // Signed anew, the same URL is served; signed for something else, it stays a 401.
        assert.equal((await api.requestUrl('GET', location)).status, 206);
        const other = await api.get('/stock/1', { json: true, signUrl: api.url('/account', true) });
        assert.equal(other.status, 401);
        assert.equal(other.json.internal_error_code, 'invalid_signature');
      });

      it('the path form wins over start and maxResults in the query (as a common Python client sends)', async () => {
        const both = await api.get('/stock/1?start=1&maxResults=100', { json: true });
        assert.equal(both.status, 206, both.text);
        assert.equal(both.headers['content-range'], '0-99/130');
        assert.deepEqual(
          ids(both.json),
          articles.slice(0, 100).map((a) => a.idArticle),
        );
        const second = await api.get('/stock/101?start=0&maxResults=5', { json: true });
        assert.equal(second.headers['content-range'], '100-129/130');
      });

      it('shows own articles with lastEdited, onSale and inShoppingCart (XML)', async () => {
        const { api: small, user } = await createTestClient(server);
        const a = await createArticle(server, user, card, { count: 2, price: 345, comments: 'x & y' });
        await reserve(server, buyer, a, 1);
        const res = await small.get('/stock');
        assert.equal(res.status, 200);
        assert.equal(res.headers['content-range'], '0-0/1');
        assert.match(res.text, /<article><idArticle>\d+<\/idArticle>/);
        assert.match(res.text, /<comments>x &amp; y<\/comments>/);
        assert.match(res.text, /<price>3.45<\/price>/);
        assert.match(res.text, /<count>1<\/count><inShoppingCart>true<\/inShoppingCart>/);
        assert.match(
          res.text,
          /<lastEdited>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}<\/lastEdited><onSale>true<\/onSale>/,
        );
        assert.doesNotMatch(res.text, /<seller>/);
      });

      it('answers 204 for an empty stock', async () => {
        const { api: empty } = await createTestClient(server);
        const res = await empty.get('/stock');
        assert.equal(res.status, 204);
        assert.equal(res.text, '');
      });
    });

    describe('GET /stock/article/:idArticle', () => {
      it('answers one own article', async () => {
        const a = articles[5]!;
        const res = await api.get(`/stock/article/${a.idArticle}`, { json: true });
        assert.equal(res.status, 200);
        assert.deepEqual(Object.keys(res.json), ['article', 'product']);
        assert.equal(res.json.article.idArticle, a.idArticle);
        assert.equal(res.json.article.price, 1.05);
        assert.equal(res.json.product.enName, 'Lightning Bolt');
      });

      it("never shows another user's article: 400, like an unknown id", async () => {
        const { user: other } = await createTestClient(server);
        const theirs = await createArticle(server, other, card, { comments: 'secret' });
        const res = await api.get(`/stock/article/${theirs.idArticle}`, { json: true });
        assert.equal(res.status, 400);
        assert.doesNotMatch(res.text, /secret/);
        assert.equal(res.json.post_data_field, 'idArticle');
        assert.equal((await api.get('/stock/article/2147483647')).status, 400);
        assert.equal((await api.get('/stock/article/99999999999')).status, 400);
        assert.equal((await api.get('/stock/article/abc')).status, 400);
      });
    });

    describe('GET /stock/articles/:name/:idGame', () => {
      it('finds own articles by part of a name in any language, case-insensitively', async () => {
        const res = await api.get('/stock/articles/lightning/1?start=0&maxResults=100', { json: true });
        assert.equal(res.status, 206);
        assert.equal(res.headers['content-range'], '0-99/130');
        const fr = await api.get(
          `/stock/articles/${encodeURIComponent('FOUDR')}/1?start=120&maxResults=100`,
          {
            json: true,
          },
        );
        assert.equal(fr.status, 206);
        assert.equal(fr.json.article.length, 10);
      });

      it('answers 204 when nothing matches, and treats % and _ literally', async () => {
        assert.equal((await api.get('/stock/articles/Ancestral/1')).status, 204);
        assert.equal((await api.get(`/stock/articles/${encodeURIComponent('%')}/1`)).status, 204);
        assert.equal((await api.get('/stock/articles/Lightning_Bolt/1')).status, 204);
        assert.equal((await api.get('/stock/articles/Lightning/3')).status, 204, 'another game');
        assert.equal((await api.get('/stock/articles/Lightning/x')).status, 400);
        assert.equal((await api.get(`/stock/articles/${encodeURIComponent(' ')}/1`)).status, 400);
      });
    });

    describe('GET /stock/products/:idProduct', () => {
      it("answers the caller's articles of that product only", async () => {
        const other = await createProduct(server);
        const { api: mine, user } = await createTestClient(server);
        const a = await createArticle(server, user, other, { price: 999 });
        await createArticle(server, seller, other, { price: 998 });
        const res = await mine.get(`/stock/products/${other.idProduct}`, { json: true });
        assert.equal(res.status, 200);
        assert.deepEqual(ids(res.json), [a.idArticle]);
        assert.equal((await mine.get(`/stock/products/${card.idProduct}`)).status, 204);
        assert.equal((await mine.get('/stock/products/123456789')).status, 404);
      });
    });

    describe('GET /stock/shoppingcart-articles', () => {
      it('lists own articles in other users carts with the copies reserved', async () => {
        const { api: shop, user } = await createTestClient(server);
        const a = await createArticle(server, user, card, { count: 5, price: 1111 });
        const b = await createArticle(server, user, card, { count: 5, price: 2222 });
        await createArticle(server, user, card, { count: 5, price: 3333 });
        const other = await createTestUser(server);
        await reserve(server, buyer, a, 2);
        await reserve(server, other, a, 1);
        await reserve(server, other, b, 4);
        const res = await shop.get('/stock/shoppingcart-articles', { json: true });
        assert.equal(res.status, 200);
        assert.deepEqual(ids(res.json), [a.idArticle, b.idArticle]);
        assert.deepEqual(
          res.json.article.map((x: { count: number; inShoppingCart: boolean }) => [
            x.count,
            x.inShoppingCart,
          ]),
          [
            [3, true],
            [4, true],
          ],
        );
        assert.equal((await api.get('/stock/shoppingcart-articles')).status, 204);
      });
    });

    it('answers every stock read in XML with article elements', async () => {
      const { api: shop, user } = await createTestClient(server);
      const a = await createArticle(server, user, card, { count: 2, price: 1999 });
      await reserve(server, buyer, a, 1);
      for (const path of [
        `/stock/article/${a.idArticle}`,
        '/stock/articles/Lightning/1',
        `/stock/products/${card.idProduct}`,
        '/stock/shoppingcart-articles',
        '/stock/1',
      ]) {
        const res = await shop.get(path);
        assert.equal(res.status, 200, path);
        assert.match(String(res.headers['content-type']), /^application\/xml/);
        assert.match(
          res.text,
          new RegExp(`^<\\?xml[^>]*\\?>\\n<response><article><idArticle>${a.idArticle}</idArticle>`),
          path,
        );
        assert.match(res.text, /<price>19.99<\/price>/, path);
        assert.match(res.text, /<inShoppingCart>true<\/inShoppingCart>/, path);
      }
    });

    it('serves third-party apps acting for the seller', async () => {
      const { user: owner } = await createTestClient(server);
      const mine = await createArticle(server, owner, card, { price: 4321 });
      const third = await createTestApp(server, owner, 'thirdParty');
      const token = await createAccessToken(server.services, { idApp: third.idApp, idUser: owner.idUser });
      const client = new ApiClient(server, {
        ...third,
        accessToken: token.token,
        accessTokenSecret: token.secret,
        idUser: owner.idUser,
      });
      const res = await client.get('/stock', { json: true });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(ids(res.json), [mine.idArticle]);
    });

    it('refuses widget apps on every stock read', async () => {
      const { api: widget } = await createTestClient(server, { kind: 'widget' });
      for (const path of [
        '/stock',
        '/stock/1',
        `/stock/article/${articles[0]!.idArticle}`,
        '/stock/articles/Lightning/1',
        `/stock/products/${card.idProduct}`,
        '/stock/shoppingcart-articles',
        '/stock/file',
      ]) {
        const res = await widget.get(path, { json: true });
        assert.equal(res.status, 403, path);
        assert.equal(res.json.internal_error_code, 'app_kind_not_allowed');
      }
    });

    it('answers 405 for methods a stock resource lacks, naming the allowed ones', async () => {
      const res = await api.request('PUT', '/stock/article/1');
      assert.equal(res.status, 405);
      assert.equal(res.headers['access-control-allow-methods'], 'GET, OPTIONS');
      assert.equal(
        (await api.request('GET', '/stock/increase')).headers['access-control-allow-methods'],
        'PUT, OPTIONS',
      );
    });
  });
}
