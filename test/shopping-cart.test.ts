import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccessToken } from '../src/auth/apps.js';
import { sweepExpiredReservations } from '../src/domain/cart.js';
import {
  ApiClient,
  createTestApp,
  DIALECTS,
  startTestServer,
  type TestServer,
  xmlRequest,
} from './helpers.js';
import { createProduct } from './fixtures.js';
import {
  addToCart,
  articleCount,
  articleXml,
  cartBody,
  createTrader,
  offer,
  type Trader,
} from './trading-helpers.js';

const CART_KEYS = ['account', 'shippingAddress', 'shoppingCart'];
const RESERVATION_KEYS = [
  'idReservation',
  'isBuyer',
  'seller',
  'article',
  'articleValue',
  'articleCount',
  'shippingMethod',
  'totalValue',
];
const SHIPPING_KEYS = [
  'idShippingMethod',
  'name',
  'price',
  'idCurrency',
  'currencyCode',
  'isLetter',
  'isInsured',
];
const HOUR = 3_600_000;

for (const dialect of DIALECTS) {
  describe(`the shopping cart (${dialect})`, () => {
    let server: TestServer;
    let seller: Trader;
    before(async () => {
      server = await startTestServer({ dialect });
      seller = await createTrader(server, { name: 'seller' });
    });
    after(() => server.close());

    it('GET /shoppingcart of an empty cart: the account, the home address and no reservations', async () => {
      const buyer = await createTrader(server, { country: 'FR' });
      const res = await buyer.api.get('/shoppingcart', { json: true });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.json), CART_KEYS);
      assert.equal(res.json.account.idUser, buyer.user.idUser);
      assert.deepEqual(res.json.account.name, { firstName: 'Test', lastName: buyer.user.lastName });
      assert.deepEqual(res.json.shippingAddress, {
        name: buyer.user.addressName,
        extra: null,
        street: buyer.user.street,
        zip: '10115',
        city: 'Berlin',
        country: 'FR',
      });
      assert.deepEqual(res.json.shoppingCart, []);
    });

    it('adding reserves the copies: they leave the available count and show in the cart', async () => {
      const buyer = await createTrader(server);
      const a = await offer(server, seller.user, { count: 5, price: 250 });
      const b = await offer(server, seller.user, { count: 1, price: 1000 });
      const res = await addToCart(buyer.api, [
        [a.idArticle, 2],
        [b.idArticle, 1],
      ]);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json.failed, []);
      assert.equal(await articleCount(server, a.idArticle), 3);
      assert.equal(await articleCount(server, b.idArticle), 0);
      const [reservation] = res.json.shoppingCart;
      assert.deepEqual(Object.keys(reservation), RESERVATION_KEYS);
      assert.equal(reservation.isBuyer, true);
      assert.equal(reservation.seller.idUser, seller.user.idUser);
      assert.equal(reservation.seller.email, '', 'a cart shows the seller as the public does');
      assert.deepEqual(
        reservation.article.map(
          (x: { idArticle: number; count: number; price: number; inShoppingCart: boolean }) => [
            x.idArticle,
            x.count,
            x.price,
            x.inShoppingCart,
          ],
        ),
        [
          [a.idArticle, 2, 2.5, true],
          [b.idArticle, 1, 10, true],
        ],
      );
      assert.equal(reservation.articleCount, 3);
      assert.equal(reservation.articleValue, 15);
      // Three articles worth 15.00 from Germany to Germany: the cheapest letter that takes them.
      assert.deepEqual(Object.keys(reservation.shippingMethod), SHIPPING_KEYS);
      assert.equal(reservation.shippingMethod.name, 'Standard letter');
      assert.equal(reservation.shippingMethod.price, 1.15);
      assert.equal(reservation.totalValue, 16.15);
      assert.equal(res.json.account.articlesInShoppingCart, 3);
      const account = await buyer.api.get('/account', { json: true });
      assert.equal(account.json.account.articlesInShoppingCart, 3);
    });

    it('accepts amount for count, and adding again adds to the same reservation', async () => {
      const buyer = await createTrader(server);
      const a = await offer(server, seller.user, { count: 4 });
      const first = await buyer.api.put(
        '/shoppingcart',
        xmlRequest(`<action>add</action>${articleXml(a.idArticle, 1, 'amount')}`),
        { json: true },
      );
      assert.equal(first.status, 200, first.text);
      const second = await addToCart(buyer.api, [[a.idArticle, 2]]);
      assert.equal(second.json.shoppingCart.length, 1);
      assert.equal(second.json.shoppingCart[0].idReservation, first.json.shoppingCart[0].idReservation);
      assert.equal(second.json.shoppingCart[0].article[0].count, 3);
      assert.equal(await articleCount(server, a.idArticle), 1);
    });

    it('shows and sells an article whose texts hold the unit separator as they are', async () => {
      // Cart lines are read packed into one text joined by U+001F; such a line is read plainly.
      const buyer = await createTrader(server);
      const product = await createProduct(server, { enName: 'Sep\u001fCard' });
      const odd = await offer(server, seller.user, { product, comments: 'a\u001fb', count: 2, price: 120 });
      const plain = await offer(server, seller.user, { comments: 'plain', count: 1, price: 300 });
      const cart = await addToCart(buyer.api, [
        [odd.idArticle, 1],
        [plain.idArticle, 1],
      ]);
      assert.equal(cart.status, 200, cart.text);
      const lines = cart.json.shoppingCart[0].article;
      assert.deepEqual(
        lines.map((l: { comments: string; product: { enName: string } }) => [l.comments, l.product.enName]),
        [
          ['a\u001fb', 'Sep\u001fCard'],
          ['plain', 'Trading Test Card'],
        ],
      );
      const bought = await buyer.api.put('/shoppingcart/checkout', undefined, { json: true });
      assert.equal(bought.status, 200, bought.text);
      assert.deepEqual(
        bought.json.order[0].article.map((l: { comments: string; count: number }) => [l.comments, l.count]),
        [
          ['a\u001fb', 1],
          ['plain', 1],
        ],
      );
      assert.equal(bought.json.order[0].articleValue, 4.2);
    });

    it('one reservation per seller', async () => {
      const buyer = await createTrader(server);
      const other = await createTrader(server, { name: 'seller', country: 'IT' });
      const a = await offer(server, seller.user);
      const b = await offer(server, other.user);
      const res = await addToCart(buyer.api, [
        [a.idArticle, 1],
        [b.idArticle, 1],
      ]);
      assert.deepEqual(
        res.json.shoppingCart.map((r: { seller: { idUser: number } }) => r.seller.idUser).sort(),
        [seller.user.idUser, other.user.idUser].sort(),
      );
    });

    it('refuses own articles, vacationing sellers, unknown articles and too many copies, per article', async () => {
      const buyer = await createTrader(server);
      const own = await offer(server, buyer.user);
      const away = await createTrader(server, { name: 'away' });
      const awayArticle = await offer(server, away.user);
      await server.services.database.db
        .updateTable('users')
        .set({ onVacation: 1 })
        .where('idUser', '=', away.user.idUser)
        .execute();
      const scarce = await offer(server, seller.user, { count: 2 });
      const fine = await offer(server, seller.user, { count: 1 });
      const res = await addToCart(buyer.api, [
        [own.idArticle, 1],
        [awayArticle.idArticle, 1],
        [99_999_999, 1],
        [scarce.idArticle, 3],
        [fine.idArticle, 1],
      ]);
      assert.equal(res.status, 200, res.text);
      const failed = res.json.failed as Array<{ idArticle: number; count: number; error: string }>;
      assert.deepEqual(
        failed.map((f) => [f.idArticle, f.count]),
        [
          [own.idArticle, 1],
          [awayArticle.idArticle, 1],
          [99_999_999, 1],
          [scarce.idArticle, 3],
        ],
      );
      assert.match(failed[0]!.error, /your own/);
      assert.match(failed[1]!.error, /vacation/);
      assert.match(failed[2]!.error, /does not exist/);
      assert.match(failed[3]!.error, /Only 2 copies/);
      assert.equal(await articleCount(server, scarce.idArticle), 2, 'a refused article keeps its copies');
      assert.deepEqual(
        res.json.shoppingCart[0].article.map((x: { idArticle: number }) => x.idArticle),
        [fine.idArticle],
      );
    });

    it('reports refusals in XML as repeated failed elements', async () => {
      const buyer = await createTrader(server);
      const res = await buyer.api.put('/shoppingcart', cartBody('add', [[88_888_888, 1]]));
      assert.equal(res.status, 200);
      assert.match(
        res.text,
        /<failed><idArticle>88888888<\/idArticle><count>1<\/count><error>[^<]+<\/error><\/failed>/,
      );
      assert.match(res.text, /<account><idUser>/);
    });

    it('answers 400 for more than 100 articles, and changes nothing', async () => {
      const buyer = await createTrader(server);
      const a = await offer(server, seller.user, { count: 200 });
      const items: Array<[number, number]> = Array.from({ length: 101 }, () => [a.idArticle, 1]);
      const res = await buyer.api.put('/shoppingcart', cartBody('add', items), { json: true });
      assert.equal(res.status, 400);
      assert.equal(res.json.post_data_field, 'article');
      assert.equal(await articleCount(server, a.idArticle), 200);
      assert.deepEqual((await buyer.api.get('/shoppingcart', { json: true })).json.shoppingCart, []);
      const hundred = await buyer.api.put('/shoppingcart', cartBody('add', items.slice(1)), { json: true });
      assert.equal(hundred.status, 200);
      assert.equal(await articleCount(server, a.idArticle), 100);
    });

    it('answers 400 naming the field for malformed requests', async () => {
      const buyer = await createTrader(server);
      const cases: Array<[string | undefined, string | null]> = [
        [undefined, null],
        [xmlRequest(`<action>buy</action>${articleXml(1)}`), 'action'],
        [xmlRequest(articleXml(1)), 'action'],
        [xmlRequest('<action>add</action>'), 'article'],
        [xmlRequest('<action>add</action><action>remove</action>'), 'action'],
        [xmlRequest('<action>add</action><article><count>1</count></article>'), 'idArticle'],
        [
          xmlRequest('<action>add</action><article><idArticle>x</idArticle><count>1</count></article>'),
          'idArticle',
        ],
        [xmlRequest('<action>add</action><article><idArticle>1</idArticle></article>'), 'count'],
        [
          xmlRequest('<action>add</action><article><idArticle>1</idArticle><count>0</count></article>'),
          'count',
        ],
        [
          xmlRequest('<action>add</action><article><idArticle>1</idArticle><count>1.5</count></article>'),
          'count',
        ],
        [
          xmlRequest(
            '<action>add</action><article><idArticle>1</idArticle><count>1</count><amount>2</amount></article>',
          ),
          'count',
        ],
      ];
      for (const [body, field] of cases) {
        const res = await buyer.api.put('/shoppingcart', body, { json: true });
        assert.equal(res.status, 400, `${body}: ${res.text}`);
        assert.equal(res.json.post_data_field, field, body);
      }
    });

    it('answers 400 for an <action> inside an <article>: one request only adds or only removes', async () => {
      const buyer = await createTrader(server);
      const a = await offer(server, seller.user, { count: 5 });
      await buyer.api.put('/shoppingcart', cartBody('add', [[a.idArticle, 2]]));
      // "Remove one, add one" in one request: before, the inner action was ignored and both added.
      const body = xmlRequest(
        `<action>add</action><article><idArticle>${a.idArticle}</idArticle><count>1</count></article>` +
          `<article><action>remove</action><idArticle>${a.idArticle}</idArticle><count>1</count></article>`,
      );
      const res = await buyer.api.put('/shoppingcart', body, { json: true });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.post_data_field, 'action');
      assert.match(res.json.mkm_error_description, /only adds or only removes/);
      assert.equal(await articleCount(server, a.idArticle), 3, 'nothing changed');
      const inner = xmlRequest(
        `<article><action>add</action><idArticle>${a.idArticle}</idArticle><count>1</count></article>`,
      );
      assert.equal((await buyer.api.put('/shoppingcart', inner)).status, 400);
    });

    it('removing releases the copies; a reservation left empty disappears', async () => {
      const buyer = await createTrader(server);
      const a = await offer(server, seller.user, { count: 3 });
      await addToCart(buyer.api, [[a.idArticle, 3]]);
      const partial = await buyer.api.put('/shoppingcart', cartBody('remove', [[a.idArticle, 1]]), {
        json: true,
      });
      assert.equal(partial.status, 200, partial.text);
      assert.deepEqual(partial.json.failed, []);
      assert.equal(partial.json.shoppingCart[0].article[0].count, 2);
      assert.equal(await articleCount(server, a.idArticle), 1);
      const tooMany = await buyer.api.put('/shoppingcart', cartBody('remove', [[a.idArticle, 5]]), {
        json: true,
      });
      assert.match(tooMany.json.failed[0].error, /Only 2 copies .* in your shopping cart/);
      const notThere = await buyer.api.put('/shoppingcart', cartBody('remove', [[77_777_777, 1]]), {
        json: true,
      });
      assert.match(notThere.json.failed[0].error, /not in your shopping cart/);
      const rest = await buyer.api.put('/shoppingcart', cartBody('remove', [[a.idArticle, 2]]), {
        json: true,
      });
      assert.deepEqual(rest.json.shoppingCart, []);
      assert.equal(await articleCount(server, a.idArticle), 3);
      assert.equal(rest.json.account.articlesInShoppingCart, 0);
    });

    it("another buyer's copies cannot be removed", async () => {
      const buyer = await createTrader(server);
      const other = await createTrader(server);
      const a = await offer(server, seller.user, { count: 2 });
      await addToCart(buyer.api, [[a.idArticle, 1]]);
      const res = await other.api.put('/shoppingcart', cartBody('remove', [[a.idArticle, 1]]), {
        json: true,
      });
      assert.match(res.json.failed[0].error, /not in your shopping cart/);
      assert.equal(await articleCount(server, a.idArticle), 1);
    });

    it('DELETE /shoppingcart empties it and releases everything', async () => {
      const buyer = await createTrader(server);
      const a = await offer(server, seller.user, { count: 2 });
      const b = await offer(server, seller.user, { count: 1 });
      await addToCart(buyer.api, [
        [a.idArticle, 2],
        [b.idArticle, 1],
      ]);
      const res = await buyer.api.delete('/shoppingcart', undefined, { json: true });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json.shoppingCart, []);
      assert.equal(await articleCount(server, a.idArticle), 2);
      assert.equal(await articleCount(server, b.idArticle), 1);
    });

    it('reservations expire after the configured time and release their copies', async () => {
      const buyer = await createTrader(server);
      const a = await offer(server, seller.user, { count: 2 });
      await addToCart(buyer.api, [[a.idArticle, 2]]);
      server.clock.advance(HOUR - 1000);
      assert.equal((await buyer.api.get('/shoppingcart', { json: true })).json.shoppingCart.length, 1);
      server.clock.advance(1000);
      const res = await buyer.api.get('/shoppingcart', { json: true });
      assert.deepEqual(res.json.shoppingCart, []);
      assert.equal(await articleCount(server, a.idArticle), 2);
    });

    it('a change to a reservation starts its time anew', async () => {
      const buyer = await createTrader(server);
      const a = await offer(server, seller.user, { count: 3 });
      await addToCart(buyer.api, [[a.idArticle, 1]]);
      server.clock.advance(HOUR / 2);
      await addToCart(buyer.api, [[a.idArticle, 1]]);
      server.clock.advance(HOUR / 2 + 1000);
      const res = await buyer.api.get('/shoppingcart', { json: true });
      assert.equal(res.json.shoppingCart[0].article[0].count, 2);
    });

    it("copies of someone else's expired reservation can be added at once", async () => {
      const first = await createTrader(server);
      const second = await createTrader(server);
      const a = await offer(server, seller.user, { count: 1 });
      await addToCart(first.api, [[a.idArticle, 1]]);
      const refused = await addToCart(second.api, [[a.idArticle, 1]]);
      assert.match(refused.json.failed[0].error, /Only 0 copies/);
      server.clock.advance(HOUR + 1);
      const res = await addToCart(second.api, [[a.idArticle, 1]]);
      assert.deepEqual(res.json.failed, []);
      assert.equal(res.json.shoppingCart[0].article[0].count, 1);
      assert.deepEqual((await first.api.get('/shoppingcart', { json: true })).json.shoppingCart, []);
    });

    it('the background sweep releases abandoned reservations', async () => {
      const buyer = await createTrader(server);
      const a = await offer(server, seller.user, { count: 4 });
      await addToCart(buyer.api, [[a.idArticle, 4]]);
      await sweepExpiredReservations(server.services);
      assert.equal(await articleCount(server, a.idArticle), 0, 'a live reservation is kept');
      server.clock.advance(HOUR + 1);
      assert.ok((await sweepExpiredReservations(server.services)) >= 1);
      assert.equal(await articleCount(server, a.idArticle), 4);
      const account = await buyer.api.get('/account', { json: true });
      assert.equal(account.json.account.articlesInShoppingCart, 0);
    });

    it('PUT /shoppingcart/shippingaddress sets where the next checkout ships to', async () => {
      const buyer = await createTrader(server);
      const body = xmlRequest(
        '<name>Ada Lovelace</name><extra>c/o Babbage</extra><street>1 St James Sq</street><zip>SW1Y 4JH</zip><city>London</city><country>GB</country>',
      );
      const res = await buyer.api.put('/shoppingcart/shippingaddress', body, { json: true });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json.shippingAddress, {
        name: 'Ada Lovelace',
        extra: 'c/o Babbage',
        street: '1 St James Sq',
        zip: 'SW1Y 4JH',
        city: 'London',
        country: 'GB',
      });
      const again = await buyer.api.get('/shoppingcart');
      assert.match(again.text, /<shippingAddress><name>Ada Lovelace<\/name><extra>c\/o Babbage<\/extra>/);
    });

    it('PUT /shoppingcart/shippingaddress needs every part but extra, and a country code', async () => {
      const buyer = await createTrader(server);
      const full = { name: 'N', street: 'S', zip: 'Z', city: 'C', country: 'D' };
      for (const missing of Object.keys(full)) {
        const parts = Object.entries(full)
          .filter(([k]) => k !== missing)
          .map(([k, v]) => `<${k}>${v}</${k}>`)
          .join('');
        const res = await buyer.api.put('/shoppingcart/shippingaddress', xmlRequest(parts), { json: true });
        assert.equal(res.status, 400, missing);
        assert.equal(res.json.post_data_field, missing);
      }
      const bad = await buyer.api.put(
        '/shoppingcart/shippingaddress',
        xmlRequest('<name>N</name><street>S</street><zip>Z</zip><city>C</city><country>Germany</country>'),
        { json: true },
      );
      assert.equal(bad.status, 400);
      assert.equal(bad.json.post_data_field, 'country');
      for (const unknown of ['ZZ', 'XX', 'Q']) {
        const res = await buyer.api.put(
          '/shoppingcart/shippingaddress',
          xmlRequest(
            `<name>N</name><street>S</street><zip>Z</zip><city>C</city><country>${unknown}</country>`,
          ),
          { json: true },
        );
        assert.equal(res.status, 400, `${unknown} is no country`);
        assert.equal(res.json.post_data_field, 'country');
      }
      assert.equal((await buyer.api.put('/shoppingcart/shippingaddress', undefined)).status, 400);
    });

    describe('shipping methods', () => {
      it('are priced by the seller country and the destination, letters only for small shipments', async () => {
        const buyer = await createTrader(server);
        const a = await offer(server, seller.user, { count: 50, price: 100 });
        const added = await addToCart(buyer.api, [[a.idArticle, 2]]);
        const idReservation = added.json.shoppingCart[0].idReservation;
        const domestic = await buyer.api.get(`/shoppingcart/shippingmethod/${idReservation}`, { json: true });
        assert.equal(domestic.status, 200, domestic.text);
        assert.deepEqual(Object.keys(domestic.json), ['availableMethod']);
        assert.deepEqual(Object.keys(domestic.json.availableMethod[0]), SHIPPING_KEYS);
        assert.deepEqual(
          domestic.json.availableMethod.map((m: { name: string; price: number }) => [m.name, m.price]),
          [
            ['Standard letter', 1.15],
            ['Compact letter', 1.7],
            ['Large letter', 2.6],
            ['Registered letter', 4.1],
            ['Tracked parcel', 6.99],
          ],
        );
        const toFrance = xmlRequest(
          '<name>N</name><street>S</street><zip>Z</zip><city>Paris</city><country>FR</country>',
        );
        await buyer.api.put('/shoppingcart/shippingaddress', toFrance);
        const europe = await buyer.api.get(`/shoppingcart/shippingmethod/${idReservation}`, { json: true });
        assert.equal(europe.json.availableMethod[0].price, 1.45);
        const toUs = xmlRequest(
          '<name>N</name><street>S</street><zip>Z</zip><city>Boston</city><country>US</country>',
        );
        await buyer.api.put('/shoppingcart/shippingaddress', toUs);
        const world = await buyer.api.get(`/shoppingcart/shippingmethod/${idReservation}`);
        assert.match(
          world.text,
          /<availableMethod><idShippingMethod>1<\/idShippingMethod><name>Standard letter<\/name><price>2.10<\/price>/,
        );
        // 45 articles: only the parcel carries them.
        const more = await addToCart(buyer.api, [[a.idArticle, 43]]);
        assert.equal(more.json.shoppingCart[0].shippingMethod.name, 'Tracked parcel');
        const big = await buyer.api.get(`/shoppingcart/shippingmethod/${idReservation}`, { json: true });
        assert.deepEqual(
          big.json.availableMethod.map((m: { name: string }) => m.name),
          ['Tracked parcel'],
        );
      });

      it('uninsured letters carry at most 25.00 of articles', async () => {
        const buyer = await createTrader(server);
        const a = await offer(server, seller.user, { count: 1, price: 3000 });
        const res = await addToCart(buyer.api, [[a.idArticle, 1]]);
        assert.equal(res.json.shoppingCart[0].shippingMethod.name, 'Registered letter');
        assert.equal(res.json.shoppingCart[0].shippingMethod.isInsured, true);
      });

      it('PUT chooses one of the available methods', async () => {
        const buyer = await createTrader(server);
        const a = await offer(server, seller.user, { count: 1 });
        const added = await addToCart(buyer.api, [[a.idArticle, 1]]);
        const idReservation = added.json.shoppingCart[0].idReservation;
        const res = await buyer.api.put(
          `/shoppingcart/shippingmethod/${idReservation}`,
          xmlRequest('<idShippingMethod>5</idShippingMethod>'),
          { json: true },
        );
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(Object.keys(res.json), CART_KEYS);
        assert.equal(res.json.shoppingCart[0].shippingMethod.idShippingMethod, 5);
        assert.equal(res.json.shoppingCart[0].totalValue, 7.99);
        for (const [body, status] of [
          ['<idShippingMethod>42</idShippingMethod>', 400],
          ['<idShippingMethod>x</idShippingMethod>', 400],
          ['', 400],
        ] as const) {
          const bad = await buyer.api.put(`/shoppingcart/shippingmethod/${idReservation}`, xmlRequest(body), {
            json: true,
          });
          assert.equal(bad.status, status, body);
        }
      });

      it("another buyer's reservation is not found", async () => {
        const buyer = await createTrader(server);
        const other = await createTrader(server);
        const a = await offer(server, seller.user, { count: 1 });
        const added = await addToCart(buyer.api, [[a.idArticle, 1]]);
        const idReservation = added.json.shoppingCart[0].idReservation;
        assert.equal((await other.api.get(`/shoppingcart/shippingmethod/${idReservation}`)).status, 404);
        const put = await other.api.put(
          `/shoppingcart/shippingmethod/${idReservation}`,
          xmlRequest('<idShippingMethod>5</idShippingMethod>'),
        );
        assert.equal(put.status, 404);
        assert.equal((await other.api.get('/shoppingcart/shippingmethod/abc')).status, 400);
      });
    });

    it('answers in XML with the entity in order', async () => {
      const buyer = await createTrader(server);
      const a = await offer(server, seller.user, { count: 1, price: 199 });
      const res = await buyer.api.put('/shoppingcart', cartBody('add', [[a.idArticle, 1]]));
      assert.equal(res.status, 200);
      let pos = 0;
      for (const tag of [
        '<account>',
        '<shippingAddress>',
        '<shoppingCart>',
        '<idReservation>',
        '<isBuyer>true',
        '<seller>',
        '<article>',
        `<idArticle>${a.idArticle}`,
        '<price>1.99</price>',
        '<inShoppingCart>true',
        '<articleValue>1.99</articleValue>',
        '<articleCount>1</articleCount>',
        '<shippingMethod>',
        '<totalValue>3.14</totalValue>',
      ]) {
        const at = res.text.indexOf(tag, pos);
        assert.ok(at > 0, `${tag} missing or out of order`);
        pos = at;
      }
    });

    it('works for a third-party app acting for the buyer', async () => {
      const buyer = await createTrader(server);
      const app = await createTestApp(server, seller.user, 'thirdParty');
      const token = await createAccessToken(server.services, { idApp: app.idApp, idUser: buyer.user.idUser });
      const thirdParty = new ApiClient(server, {
        ...app,
        accessToken: token.token,
        accessTokenSecret: token.secret,
        idUser: buyer.user.idUser,
      });
      const a = await offer(server, seller.user, { count: 1 });
      const res = await thirdParty.put('/shoppingcart', cartBody('add', [[a.idArticle, 1]]), { json: true });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.account.idUser, buyer.user.idUser);
      const checkout = await thirdParty.put('/shoppingcart/checkout', undefined, { json: true });
      assert.equal(checkout.status, 200, checkout.text);
      assert.equal(checkout.json.order[0].buyer.idUser, buyer.user.idUser);
      const listed = await thirdParty.get('/orders/buyer/bought', { json: true });
      assert.equal(listed.json.order[0].idOrder, checkout.json.order[0].idOrder);
    });

    it('is not for widget apps', async () => {
      const cred = await createTestApp(server, seller.user, 'widget');
      const widget = new ApiClient(server, cred);
      assert.equal((await widget.get('/shoppingcart')).status, 403);
    });

    it('two buyers adding the last copy at once: exactly one gets it', async () => {
      for (let round = 0; round < 5; round++) {
        const a = await offer(server, seller.user, { count: 1 });
        const buyers = await Promise.all([createTrader(server), createTrader(server)]);
        const results = await Promise.all(buyers.map((b) => addToCart(b.api, [[a.idArticle, 1]])));
        for (const r of results) assert.equal(r.status, 200, r.text);
        const winners = results.filter((r) => r.json.failed.length === 0);
        assert.equal(winners.length, 1, `round ${round}`);
        assert.equal(winners[0]!.json.shoppingCart[0].article[0].idArticle, a.idArticle);
        assert.equal(await articleCount(server, a.idArticle), 0);
      }
    });
  });
}
