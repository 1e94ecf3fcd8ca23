import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { exportBuildsSettled } from '../src/domain/exports.js';
import { payOrder } from '../src/domain/orders.js';
import {
  ADDRESS,
  article,
  assertShape,
  check,
  dynamic,
  eq,
  EVALUATION,
  EXPORT,
  EXPORT_ACCEPTED,
  assertXmlMatchesJson,
  list,
  presentList,
  order,
  orderState,
  productDetail,
  SHIPPING_METHOD,
  shoppingCart,
  type Spec,
} from './conformance-shapes.js';
import { buildWorld, getBoth, writeBoth, type World } from './conformance-world.js';
import { DIALECTS, xmlRequest } from './helpers.js';
import {
  addToCart,
  buy,
  cartBody,
  createTrader,
  offer,
  orderAction,
  type Trader,
} from './trading-helpers.js';

/** The game and kind of an article by its product, for the spec of a list mixing them. */
function articleSpec(w: World, context: 'stock' | 'marketplace' | 'cart' | 'order', withProduct = true) {
  return dynamic((v) => {
    const idProduct = (v as { idProduct: number }).idProduct;
    const idGame = idProduct === w.ygo.idProduct ? 3 : idProduct === w.pkm.idProduct ? 6 : 1;
    return article({ context, idGame, single: idProduct !== w.sealed.idProduct, withProduct });
  });
}

/** What a failed article of a bulk stock request answers: the element as sent, and why. */
const FAILED_ARTICLE = {
  success: eq(false),
  tried: check((v, p) => assert.equal(typeof v, 'object', p)),
  error: 'string',
};

/** The keys an article has in every context, with the same values for the same article. */
const COMMON = ['idArticle', 'idProduct', 'language', 'comments', 'idCurrency', 'currencyCode', 'product'];
const common = (a: Record<string, unknown>) => Object.fromEntries(COMMON.map((k) => [k, a[k]]));

/**
 * Conformance of a seller's stock, the cart, orders and exports (reference §1.4–1.6, §2.10–2.16):
 * every answer's keys, order and types in JSON, and the same tree in XML.
 */
for (const dialect of DIALECTS) {
  describe(`conformance: stock, cart, orders, exports (${dialect})`, () => {
    let w: World;
    before(async () => {
      w = await buildWorld(dialect);
    });
    /** An order of the world's articles (of any game). */
    const ord = (o: Parameters<typeof order>[0]) => order({ articles: articleSpec(w, 'order'), ...o });
    after(() => w.server.close());

    describe('stock', () => {
      it('GET /stock, /stock/:start and the query form: stock articles of every game', async () => {
        const all = await getBoth(w.seller.api, '/stock', { article: list(articleSpec(w, 'stock'), 4) });
        assert.equal(all.headers['content-range'], '0-3/4');
        const page = await getBoth(w.seller.api, '/stock/1', { article: list(articleSpec(w, 'stock'), 4) });
        assert.deepEqual(page.json, all.json);
        const part = await getBoth(
          w.seller.api,
          '/stock?start=1&maxResults=2',
          { article: list(articleSpec(w, 'stock'), 2) },
          206,
        );
        assert.equal(part.headers['content-range'], '1-2/4');
        assert.deepEqual(part.json.article, all.json.article.slice(1, 3));
      });

      it('GET /stock/article/:idArticle: {article, product}, the product in its detailed form', async () => {
        const res = await getBoth(w.seller.api, `/stock/article/${w.offers.magic.idArticle}`, {
          article: article({ context: 'stock', withProduct: false }),
          product: productDetail(),
        });
        const catalog = await w.seller.api.get(`/products/${w.magic.idProduct}`, { json: true });
        assert.deepEqual(res.json.product, catalog.json.product, 'the catalog’s Product, field for field');
        const listed = (await w.seller.api.get('/stock', { json: true })).json.article.find(
          (a: { idArticle: number }) => a.idArticle === w.offers.magic.idArticle,
        );
        const { product: _short, ...rest } = listed;
        assert.deepEqual(res.json.article, rest, 'the article as the stock lists it, its product beside it');
        await getBoth(w.seller.api, `/stock/article/${w.offers.sealed.idArticle}`, {
          article: article({ context: 'stock', single: false, withProduct: false }),
          product: productDetail({ single: false }),
        });
      });

      it('GET /stock/articles/:name/:idGame and /stock/products/:idProduct', async () => {
        await getBoth(w.seller.api, '/stock/articles/Conformance/1', {
          article: list(articleSpec(w, 'stock'), 2),
        });
        await getBoth(w.seller.api, '/stock/articles/Dragon/3', { article: list(articleSpec(w, 'stock')) });
        await getBoth(w.seller.api, `/stock/products/${w.pkm.idProduct}`, {
          article: list(articleSpec(w, 'stock')),
        });
      });

      it('POST /stock: inserted[] of {success, idArticle: Article} and failures with tried', async () => {
        const body = xmlRequest(
          `<article><idProduct>${w.ygo.idProduct}</idProduct><count>1</count><price>0.70</price><condition>EX</condition><isFirstEd>true</isFirstEd></article>` +
            '<article><idProduct>999999999</idProduct><count>1</count><price>1</price></article>',
        );
        const res = await writeBoth(w.seller.api, 'POST', '/stock', body, {
          inserted: presentList(
            dynamic((v) =>
              (v as { success: boolean }).success
                ? { success: eq(true), idArticle: article({ context: 'stock', idGame: 3 }) }
                : FAILED_ARTICLE,
            ),
            2,
          ),
        });
        assert.deepEqual(
          res.json.inserted.map((x: { success: boolean }) => x.success),
          [true, false],
        );
      });

      it('PUT /stock: updatedArticles[] and notUpdatedArticles[]', async () => {
        const body = (price: string) =>
          xmlRequest(
            `<article><idArticle>${w.offers.pkm.idArticle}</idArticle><count>5</count><price>${price}</price></article>` +
              '<article><idArticle>999999999</idArticle><count>1</count><price>1</price></article>',
          );
        await writeBoth(
          w.seller.api,
          'PUT',
          '/stock',
          body('0.80'),
          {
            updatedArticles: presentList(article({ context: 'stock', idGame: 6 }), 1),
            notUpdatedArticles: presentList(FAILED_ARTICLE, 1),
          },
          { xmlBody: body('0.85') },
        );
      });

      it('PUT /stock/increase and /stock/decrease: article[] and failed[]', async () => {
        const body = xmlRequest(
          `<article><idArticle>${w.offers.sealed.idArticle}</idArticle><count>1</count></article>` +
            '<article><idArticle>999999999</idArticle><count>1</count></article>',
        );
        const spec = {
          article: presentList(article({ context: 'stock', single: false }), 1),
          failed: presentList(FAILED_ARTICLE, 1),
        };
        await writeBoth(w.seller.api, 'PUT', '/stock/increase', body, spec);
        await writeBoth(w.seller.api, 'PUT', '/stock/decrease', body, spec);
      });

      it('DELETE /stock: deleted[] of {idArticle, count, success}, with a message when it fails', async () => {
        const a = await offer(w.server, w.seller.user, { count: 4, price: 10 });
        const body = xmlRequest(
          `<article><idArticle>${a.idArticle}</idArticle><count>1</count></article>` +
            '<article><idArticle>999999999</idArticle><count>1</count></article>',
        );
        const res = await writeBoth(w.seller.api, 'DELETE', '/stock', body, {
          deleted: presentList(
            dynamic((v): Spec =>
              (v as { success: boolean }).success
                ? { idArticle: 'int', count: 'int', success: eq(true) }
                : { idArticle: 'int', count: 'int', success: eq(false), message: 'string' },
            ),
            2,
          ),
        });
        assert.deepEqual(res.json.deleted[0], { idArticle: a.idArticle, count: 1, success: true });
      });
    });

    describe('lists a bulk answer always carries', () => {
      /** The XML answer holds `<name/>` for each empty list, and the JSON `[]`. */
      const assertEmptyPresent = (xml: string, json: Record<string, unknown>, names: string[]) => {
        for (const name of names) {
          assert.deepEqual(json[name], [], `JSON ${name}`);
          assert.ok(xml.includes(`<${name}/>`), `XML has no <${name}/>: ${xml.slice(0, 300)}`);
        }
      };

      it('are present in XML when empty: PUT /stock with every article updated, increase with none failing', async () => {
        const a = await offer(w.server, w.seller.user, { count: 3, price: 10 });
        const put = (price: string) =>
          xmlRequest(
            `<article><idArticle>${a.idArticle}</idArticle><count>3</count><price>${price}</price></article>`,
          );
        const json = await w.seller.api.put('/stock', put('11.00'), { json: true });
        const xml = await w.seller.api.put('/stock', put('12.00'));
        assert.equal(xml.status, 200, xml.text);
        assertEmptyPresent(xml.text, json.json, ['notUpdatedArticles']);
        assertXmlMatchesJson(
          xml.text,
          json.json,
          {
            updatedArticles: presentList(article({ context: 'stock' }), 1),
            notUpdatedArticles: presentList(FAILED_ARTICLE),
          },
          { values: false },
        );

        const none = xmlRequest(
          '<article><idArticle>999999999</idArticle><count>1</count><price>1</price></article>',
        );
        const failedJson = await w.seller.api.put('/stock', none, { json: true });
        const failedXml = await w.seller.api.put('/stock', none);
        assertEmptyPresent(failedXml.text, failedJson.json, ['updatedArticles']);

        const inc = xmlRequest(`<article><idArticle>${a.idArticle}</idArticle><count>1</count></article>`);
        const incJson = await w.seller.api.put('/stock/increase', inc, { json: true });
        const incXml = await w.seller.api.put('/stock/increase', inc);
        assertEmptyPresent(incXml.text, incJson.json, ['failed']);
      });

      it('are present in XML when empty: a cart change with no failure, and an empty cart', async () => {
        const buyer = await createTrader(w.server, { name: 'emptylists', balanceCents: 10_000 });
        const empty = await buyer.api.get('/shoppingcart', { json: true });
        const emptyXml = await buyer.api.get('/shoppingcart');
        assertEmptyPresent(emptyXml.text, empty.json, ['shoppingCart']);
        const add = cartBody('add', [[w.offers.magic.idArticle, 1]]);
        const json = await buyer.api.put('/shoppingcart', add, { json: true });
        assert.equal(json.status, 200, json.text);
        const remove = cartBody('remove', [[w.offers.magic.idArticle, 1]]);
        const xml = await buyer.api.put('/shoppingcart', remove);
        assert.equal(xml.status, 200, xml.text);
        assert.deepEqual(json.json.failed, []);
        assert.ok(xml.text.includes('<failed/>'), xml.text);
        assert.ok(xml.text.includes('<shoppingCart/>'), 'the cart is empty again');
      });
    });

    describe('cart and orders', () => {
      let buyer: Trader;
      let idReservation: number;
      before(async () => {
        buyer = await createTrader(w.server, { name: 'cartbuyer', balanceCents: 100_000 });
      });

      it('PUT /shoppingcart: the ShoppingCart and failed[] of {idArticle, count, error}', async () => {
        const add = cartBody('add', [
          [w.offers.magic.idArticle, 1],
          [999999999, 1],
        ]);
        const res = await writeBoth(buyer.api, 'PUT', '/shoppingcart', add, {
          ...shoppingCart(),
          failed: presentList({ idArticle: 'int', count: 'int', error: 'string' }, 1),
        });
        idReservation = res.json.shoppingCart[0].idReservation;
        assert.equal(res.json.shoppingCart[0].article[0].count, 1);
      });

      it('GET /shoppingcart: the reservation’s articles are the stock’s, with the copies held', async () => {
        const res = await getBoth(buyer.api, '/shoppingcart', shoppingCart());
        const held = res.json.shoppingCart[0].article[0];
        assert.equal(held.count, 2);
        assert.equal(held.inShoppingCart, true);
        const listed = (await w.buyer.api.get(`/articles/${w.magic.idProduct}`, { json: true })).json
          .article[0];
        assert.deepEqual(common(held), common(listed), 'the same article as the marketplace shows it');
        assert.deepEqual(res.json.shoppingCart[0].seller, listed.seller, 'the seller as the public sees it');
        assert.deepEqual(res.json.account, (await buyer.api.get('/account', { json: true })).json.account);
        // The seller sees the copies held in the cart.
        await getBoth(w.seller.api, '/stock/shoppingcart-articles', {
          article: list(articleSpec(w, 'stock')),
        });
      });

      it('GET and PUT /shoppingcart/shippingmethod/:idReservation', async () => {
        const methods = await getBoth(buyer.api, `/shoppingcart/shippingmethod/${idReservation}`, {
          availableMethod: list(SHIPPING_METHOD, 2),
        });
        const chosen = methods.json.availableMethod[1].idShippingMethod;
        const body = xmlRequest(`<idShippingMethod>${chosen}</idShippingMethod>`);
        const res = await writeBoth(
          buyer.api,
          'PUT',
          `/shoppingcart/shippingmethod/${idReservation}`,
          body,
          shoppingCart(),
        );
        assert.equal(res.json.shoppingCart[0].shippingMethod.idShippingMethod, chosen);
      });

      it('PUT /shoppingcart/shippingaddress: the ShoppingCart with the new address', async () => {
        const body = xmlRequest(
          '<name>Ann Buyer</name><extra>c/o Shop</extra><street>Main St 1</street><zip>75001</zip><city>Paris</city><country>FR</country>',
        );
        const res = await writeBoth(buyer.api, 'PUT', '/shoppingcart/shippingaddress', body, shoppingCart());
        assert.deepEqual(res.json.shippingAddress, {
          name: 'Ann Buyer',
          extra: 'c/o Shop',
          street: 'Main St 1',
          zip: '75001',
          city: 'Paris',
          country: 'FR',
        });
        assertShape(res.json.shippingAddress, ADDRESS);
      });

      it('PUT /shoppingcart/checkout: order[] of bought orders; a merged one names wasMergedInto', async () => {
        const res = await buyer.api.put('/shoppingcart/checkout', undefined, { json: true });
        assert.equal(res.status, 200, res.text);
        assertShape(res.json, { order: list(ord({ state: orderState(['dateBought']) })) });
        const first = res.json.order[0];
        assert.equal(first.isPresale, false);
        assert.equal(first.trackingNumber, '');
        assert.equal(first.temporaryEmail, '', 'the buyer has no relay address to write to');
        assert.deepEqual(
          common(first.article[0]),
          common((await w.buyer.api.get(`/articles/${w.magic.idProduct}`, { json: true })).json.article[0]),
        );
        // A second checkout with the same seller while the first is unpaid merges into it.
        await addToCart(buyer.api, [[w.offers.ygo.idArticle, 1]]);
        const merged = await buyer.api.put('/shoppingcart/checkout', undefined, { json: true });
        assertShape(merged.json, {
          order: list(
            ord({
              state: orderState(['dateBought'], { wasMergedInto: eq(first.idOrder) }),
            }),
          ),
        });
        const xml = await buyer.api.get(`/order/${first.idOrder}`);
        const json = await buyer.api.get(`/order/${first.idOrder}`, { json: true });
        assertShape(json.json, {
          order: ord({ state: orderState(['dateBought']) }),
        });
        assert.equal(json.json.order.article.length, 2, 'the merged checkout’s article joined it');
        assert.match(xml.text, /<trackingNumber\/><temporaryEmail\/><isPresale>false<\/isPresale>/);
      });

      it('GET /order/:idOrder through its states, as buyer and as seller, and the order lists', async () => {
        // A buyer of its own: an unpaid order of the same buyer and seller would take this one in.
        const buyer = await createTrader(w.server, { name: 'orderbuyer', balanceCents: 100_000 });
        const [o] = await buy(buyer.api, [[w.offers.sealed.idArticle, 1]]);
        const idOrder = o!.idOrder;
        const asSeller = await getBoth(w.seller.api, `/order/${idOrder}`, {
          order: ord({ state: orderState(['dateBought']) }),
        });
        assert.equal(asSeller.json.order.isBuyer, false);
        assert.equal(
          asSeller.json.order.temporaryEmail,
          buyer.user.email,
          'the seller’s address to write to',
        );
        await payOrder(w.server.services, idOrder);
        await getBoth(buyer.api, `/order/${idOrder}`, {
          order: ord({ state: orderState(['dateBought', 'datePaid']) }),
        });
        const sent = await w.seller.api.put(
          `/order/${idOrder}`,
          orderAction('send', '<trackingNumber>RR1DE</trackingNumber>'),
          { json: true },
        );
        assertShape(sent.json, {
          order: ord({ state: orderState(['dateBought', 'datePaid', 'dateSent']) }),
        });
        assert.equal(sent.json.order.trackingNumber, 'RR1DE');
        await writeBoth(
          w.seller.api,
          'PUT',
          `/order/${idOrder}/tracking`,
          xmlRequest('<trackingNumber>RR2DE</trackingNumber>'),
          { order: ord({ state: orderState(['dateBought', 'datePaid', 'dateSent']) }) },
        );
        await buyer.api.put(`/order/${idOrder}`, orderAction('confirmReception'));
        const received = orderState(['dateBought', 'datePaid', 'dateSent', 'dateReceived']);
        await getBoth(buyer.api, `/order/${idOrder}`, { order: ord({ state: received }) });
        const evaluated = await buyer.api.post(
          `/order/${idOrder}/evaluation`,
          xmlRequest(
            '<evaluationGrade>2</evaluationGrade><itemDescription>1</itemDescription><packaging>1</packaging><speed>1</speed><comment>Fine</comment><complaint>badCommunication</complaint>',
          ),
          { json: true },
        );
        assert.equal(evaluated.status, 200, evaluated.text);
        assertShape(evaluated.json, { order: ord({ state: received, evaluated: true }) });
        assert.equal(evaluated.json.order.state.state, 'evaluated');
        assertShape(evaluated.json.order.evaluation, EVALUATION);
        assert.deepEqual(evaluated.json.order.evaluation.complaint, ['badCommunication']);
        const lists = await getBoth(w.seller.api, '/orders/seller/received', {
          order: list(
            dynamic((v) =>
              ord({ state: received, evaluated: (v as { evaluation: unknown }).evaluation !== null }),
            ),
          ),
        });
        assert.ok(lists.json.order.some((x: { idOrder: number }) => x.idOrder === idOrder));
        await getBoth(w.seller.api, '/orders/1/8/1', {
          order: list(dynamic(() => ord({ state: received, evaluated: true }))),
        });
      });

      it('cancellation requests and a cancelled order', async () => {
        const buyer = await createTrader(w.server, { name: 'cancelbuyer' });
        const [o] = await buy(buyer.api, [[w.offers.pkm.idArticle, 1]]);
        const requested = await w.seller.api.put(
          `/order/${o!.idOrder}`,
          orderAction('requestCancellation', '<reason>Out of stock</reason>'),
          { json: true },
        );
        assert.equal(requested.status, 200, requested.text);
        assertShape(requested.json, { order: ord({ state: orderState(['dateBought']) }) });
        assertShape(requested.json.order.cancellationRequests.cancellationRequestSeller, {
          reason: eq('Out of stock'),
          date: 'timestamp',
        });
        assert.equal(requested.json.order.cancellationRequests.cancellationRequestBuyer, null);
        const cancelled = await buyer.api.put(`/order/${o!.idOrder}`, orderAction('acceptCancellation'), {
          json: true,
        });
        assert.equal(cancelled.status, 200, cancelled.text);
        const state = orderState(['dateBought', 'dateCancelled'], { reason: eq('Out of stock') });
        assertShape(cancelled.json, { order: ord({ state }) });
        await getBoth(buyer.api, `/order/${o!.idOrder}`, { order: ord({ state }) });
      });

      it('DELETE /shoppingcart: the ShoppingCart, now without reservations', async () => {
        await addToCart(buyer.api, [[w.offers.magic.idArticle, 1]]);
        const res = await buyer.api.delete('/shoppingcart', undefined, { json: true });
        assert.equal(res.status, 200, res.text);
        assertShape(res.json, shoppingCart(0));
        assert.deepEqual(res.json.shoppingCart, []);
      });
    });

    describe('exports', () => {
      const accepted: Spec = EXPORT_ACCEPTED;

      it('POST answers 202 with exactly the live status body; GET lists the requests', async () => {
        await writeBoth(w.seller.api, 'POST', '/exports/stock', undefined, accepted, {
          status: 202,
        });
        await writeBoth(
          w.seller.api,
          'POST',
          `/exports/userOffers/${w.seller.user.idUser}`,
          undefined,
          accepted,
          {
            status: 202,
          },
        );
        await w.server.services.events.deliverPending();
        await exportBuildsSettled();
        const stock = await getBoth(w.seller.api, '/exports/stock', { stockExports: list(EXPORT) });
        assert.equal(stock.json.stockExports[0].status, 'finished');
        await getBoth(w.seller.api, `/exports/stock/${stock.json.stockExports[0].idRequest}`, {
          stockExports: EXPORT,
        });
        await getBoth(w.seller.api, '/exports/userOffers', { userOffersRequests: list(EXPORT) });
        await getBoth(w.seller.api, `/exports/userOffers/${w.seller.user.idUser}`, {
          userOffersRequests: EXPORT,
        });
      });

      it('the files hold Article entities: the stock’s for a stock export, the marketplace’s for offers', async () => {
        const fetchFile = async (url: string) => {
          const u = new URL(url);
          const file = await w.server.app.inject({
            method: 'GET',
            url: u.pathname,
            headers: { host: u.host },
          });
          assert.equal(file.statusCode, 200);
          const raw =
            file.headers['content-encoding'] === 'gzip' ? gunzipSync(file.rawPayload) : file.rawPayload;
          return JSON.parse(raw.toString('utf8'));
        };
        const stock = (await w.seller.api.get('/exports/stock', { json: true })).json.stockExports[0];
        assertShape(await fetchFile(stock.url), { article: list(articleSpec(w, 'stock'), 4) });
        const offers = (await w.seller.api.get(`/exports/userOffers/${w.seller.user.idUser}`, { json: true }))
          .json.userOffersRequests;
        assertShape(await fetchFile(offers.url), { article: list(articleSpec(w, 'marketplace'), 4) });
      });
    });
  });
}
