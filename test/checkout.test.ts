import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { payOrder } from '../src/domain/orders.js';
import { DIALECTS, startTestServer, type TestServer, xmlRequest } from './helpers.js';
import { addToCart, articleCount, buy, createTrader, offer, type Trader } from './trading-helpers.js';

const ORDER_KEYS = [
  'idOrder',
  'isBuyer',
  'seller',
  'buyer',
  'state',
  'shippingMethod',
  'trackingNumber',
  'temporaryEmail',
  'isPresale',
  'shippingAddress',
  'articleCount',
  'note',
  'evaluation',
  'article',
  'articleValue',
  'totalValue',
  'idCurrency',
  'currencyCode',
  'phoneNumber',
  'vatCollectedByCm',
  'cancellationRequests',
  'links',
];

for (const dialect of DIALECTS) {
  describe(`checkout (${dialect})`, () => {
    let server: TestServer;
    let seller: Trader;
    before(async () => {
      server = await startTestServer({ dialect });
      seller = await createTrader(server, { name: 'seller' });
    });
    after(() => server.close());

    it('makes one bought order per reservation, prices frozen, shipping and totals', async () => {
      const buyer = await createTrader(server, { country: 'FR' });
      const other = await createTrader(server, { name: 'seller', country: 'FR' });
      const a = await offer(server, seller.user, { count: 3, price: 450, comments: 'mint', isFoil: 1 });
      const b = await offer(server, other.user, { count: 1, price: 99 });
      await addToCart(buyer.api, [
        [a.idArticle, 2],
        [b.idArticle, 1],
      ]);
      const res = await buyer.api.put('/shoppingcart/checkout', undefined, { json: true });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.json), ['order']);
      const orders = res.json.order;
      assert.equal(orders.length, 2);
      const fromSeller = orders.find(
        (o: { seller: { idUser: number } }) => o.seller.idUser === seller.user.idUser,
      );
      assert.deepEqual(Object.keys(fromSeller), ORDER_KEYS);
      assert.equal(fromSeller.isBuyer, true);
      assert.equal(fromSeller.buyer.idUser, buyer.user.idUser);
      assert.equal(
        fromSeller.seller.address.street,
        seller.user.street,
        'the counterparty shows the address',
      );
      assert.equal(fromSeller.state.state, 'bought');
      assert.equal(typeof fromSeller.state.dateBought, 'string');
      assert.equal(fromSeller.state.datePaid, undefined);
      assert.equal(fromSeller.state.wasMergedInto, undefined);
      assert.equal(fromSeller.articleCount, 2);
      assert.equal(fromSeller.articleValue, 9);
      // Germany to France, two articles worth 9.00: the European standard letter.
      assert.deepEqual(fromSeller.shippingMethod, {
        idShippingMethod: 1,
        name: 'Standard letter',
        price: 1.45,
        idCurrency: 1,
        currencyCode: 'EUR',
        isLetter: true,
        isInsured: false,
      });
      assert.equal(fromSeller.totalValue, 10.45);
      assert.equal(fromSeller.isPresale, false);
      assert.equal(fromSeller.shippingAddress.country, 'FR');
      assert.equal(fromSeller.phoneNumber, buyer.user.phoneNumber);
      assert.deepEqual(fromSeller.cancellationRequests, {
        cancellationRequestBuyer: null,
        cancellationRequestSeller: null,
      });
      assert.deepEqual(fromSeller.links, [
        { rel: 'self', href: `/order/${fromSeller.idOrder}`, method: 'GET' },
      ]);
      const [line] = fromSeller.article;
      assert.equal(line.idArticle, a.idArticle);
      assert.equal(line.count, 2);
      assert.equal(line.price, 4.5);
      assert.equal(line.comments, 'mint');
      assert.equal(line.isFoil, true);
      assert.equal(line.inShoppingCart, false);
      assert.equal(line.product.enName, 'Trading Test Card');
      const fromOther = orders.find(
        (o: { seller: { idUser: number } }) => o.seller.idUser === other.user.idUser,
      );
      assert.equal(fromOther.shippingMethod.price, 1.15, 'France to France is domestic');

      // The cart is empty; the copies moved into the orders; a sold-out article is gone.
      const cart = await buyer.api.get('/shoppingcart', { json: true });
      assert.deepEqual(cart.json.shoppingCart, []);
      assert.equal(await articleCount(server, a.idArticle), 1);
      assert.equal(await articleCount(server, b.idArticle), undefined);

      // The price is frozen: a later change of the article does not touch the order.
      await server.services.database.db
        .updateTable('articles')
        .set({ price: 9999 })
        .where('idArticle', '=', a.idArticle)
        .execute();
      const again = await buyer.api.get(`/order/${fromSeller.idOrder}`, { json: true });
      assert.equal(again.json.order.article[0].price, 4.5);
      assert.equal(again.json.order.totalValue, 10.45);

      const account = await buyer.api.get('/account', { json: true });
      assert.equal(account.json.account.moneyDetails.unpaidAmount, 10.45 + 2.14);
      assert.equal(account.json.account.articlesInShoppingCart, 0);
    });

    it('ships to the address set for the cart, with the chosen method', async () => {
      const buyer = await createTrader(server);
      const a = await offer(server, seller.user, { count: 1, price: 100 });
      const added = await addToCart(buyer.api, [[a.idArticle, 1]]);
      await buyer.api.put(
        `/shoppingcart/shippingmethod/${added.json.shoppingCart[0].idReservation}`,
        xmlRequest('<idShippingMethod>4</idShippingMethod>'),
      );
      await buyer.api.put(
        '/shoppingcart/shippingaddress',
        xmlRequest(
          '<name>Office</name><street>Hafen 1</street><zip>20457</zip><city>Hamburg</city><country>D</country>',
        ),
      );
      const res = await buyer.api.put('/shoppingcart/checkout');
      assert.equal(res.status, 200, res.text);
      assert.match(
        res.text,
        /<shippingMethod><idShippingMethod>4<\/idShippingMethod><name>Registered letter<\/name><price>4.10<\/price>/,
      );
      assert.match(
        res.text,
        /<shippingAddress><name>Office<\/name><extra\/><street>Hafen 1<\/street><zip>20457<\/zip><city>Hamburg<\/city><country>D<\/country><\/shippingAddress>/,
      );
      assert.match(res.text, /<totalValue>5.10<\/totalValue>/);
    });

    it('answers 400 for an empty cart and for an incomplete shipping address', async () => {
      const buyer = await createTrader(server);
      const empty = await buyer.api.put('/shoppingcart/checkout', undefined, { json: true });
      assert.equal(empty.status, 400);
      assert.match(empty.json.mkm_error_description, /empty/);
      await server.services.database.db
        .updateTable('users')
        .set({ street: '' })
        .where('idUser', '=', buyer.user.idUser)
        .execute();
      const a = await offer(server, seller.user, { count: 1 });
      await addToCart(buyer.api, [[a.idArticle, 1]]);
      const res = await buyer.api.put('/shoppingcart/checkout', undefined, { json: true });
      assert.equal(res.status, 400);
      assert.equal(res.json.post_data_field, 'shippingAddress');
      assert.equal((await buyer.api.get('/shoppingcart', { json: true })).json.shoppingCart.length, 1);
    });

    it('merges a checkout into the unpaid order of the same buyer and seller', async () => {
      const buyer = await createTrader(server);
      const a = await offer(server, seller.user, { count: 5, price: 200 });
      const b = await offer(server, seller.user, { count: 1, price: 500 });
      const [first] = await buy(buyer.api, [[a.idArticle, 1]]);
      const [second] = await buy(buyer.api, [
        [a.idArticle, 2],
        [b.idArticle, 1],
      ]);
      assert.notEqual(second!.idOrder, first!.idOrder);
      const merged = second as unknown as {
        state: { state: string; wasMergedInto: number };
        articleCount: number;
      };
      assert.equal(merged.state.wasMergedInto, first!.idOrder);
      assert.equal(merged.articleCount, 3, 'the merged order records what this checkout bought');

      const survivor = (await buyer.api.get(`/order/${first!.idOrder}`, { json: true })).json.order;
      assert.equal(survivor.state.state, 'bought');
      assert.equal(survivor.state.wasMergedInto, undefined);
      assert.deepEqual(
        survivor.article.map((l: { idArticle: number; count: number }) => [l.idArticle, l.count]),
        [
          [a.idArticle, 3],
          [b.idArticle, 1],
        ],
      );
      assert.equal(survivor.articleCount, 4);
      assert.equal(survivor.articleValue, 11);
      // Four articles worth 11.00: the standard letter still carries them.
      assert.equal(survivor.totalValue, 12.15);

      // Only the surviving order is listed and owed.
      const list = await buyer.api.get('/orders/buyer/bought', { json: true });
      assert.deepEqual(
        list.json.order.map((o: { idOrder: number }) => o.idOrder),
        [first!.idOrder],
      );
      const account = await buyer.api.get('/account', { json: true });
      assert.equal(account.json.account.moneyDetails.unpaidAmount, 12.15);

      // A merged order takes no action: the surviving one does.
      const act = await seller.api.put(`/order/${second!.idOrder}`, xmlRequest('<action>cancel</action>'), {
        json: true,
      });
      assert.equal(act.status, 412);
      assert.match(act.json.mkm_error_description, new RegExp(`merged into order ${first!.idOrder}`));
    });

    it('does not merge when the seller changed the price of an article the unpaid order holds', async () => {
      const buyer = await createTrader(server);
      const a = await offer(server, seller.user, { count: 3, price: 200 });
      const [first] = await buy(buyer.api, [[a.idArticle, 1]]);
      await server.services.database.db
        .updateTable('articles')
        .set({ price: 260 })
        .where('idArticle', '=', a.idArticle)
        .execute();
      const [second] = await buy(buyer.api, [[a.idArticle, 1]]);
      const own = second as unknown as {
        state: { wasMergedInto?: number };
        article: Array<{ price: number }>;
      };
      assert.equal(own.state.wasMergedInto, undefined);
      assert.equal(own.article[0]!.price, 2.6);
      const kept = (await buyer.api.get(`/order/${first!.idOrder}`, { json: true })).json.order;
      assert.equal(kept.article[0].price, 2);
      assert.equal(kept.articleCount, 1);
    });

    it('after payment a new checkout with the same seller is a new order', async () => {
      const buyer = await createTrader(server, { balanceCents: 10_000 });
      const a = await offer(server, seller.user, { count: 2, price: 300 });
      const [first] = await buy(buyer.api, [[a.idArticle, 1]]);
      await payOrder(server.services, first!.idOrder);
      const [second] = await buy(buyer.api, [[a.idArticle, 1]]);
      assert.notEqual(second!.idOrder, first!.idOrder);
      assert.equal(
        (second as unknown as { state: { wasMergedInto?: number } }).state.wasMergedInto,
        undefined,
      );
    });
  });
}
