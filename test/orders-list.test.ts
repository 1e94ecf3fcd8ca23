import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { changeCart } from '../src/domain/cart.js';
import { checkout } from '../src/domain/checkout.js';
import { payOrder } from '../src/domain/orders.js';
import { BASE, DIALECTS, startTestServer, type TestServer } from './helpers.js';
import { buy, createTrader, offer, type Trader } from './trading-helpers.js';

const MANY = 150;

for (const dialect of DIALECTS) {
  describe(`GET /orders/:actor/:state[/:start] (${dialect})`, () => {
    let server: TestServer;
    let seller: Trader;
    let buyer: Trader;
    let paid: number[];
    let bought: number;
    before(async () => {
      server = await startTestServer({ dialect });
      seller = await createTrader(server, { name: 'seller' });
      buyer = await createTrader(server, { balanceCents: 10_000_000 });
      // 150 paid orders of one buyer with one seller (paying each before the next checkout, so none
      // is merged), made through the domain for speed; then one unpaid order.
      const article = await offer(server, seller.user, { count: MANY + 1, price: 100 });
      paid = [];
      for (let i = 0; i < MANY; i++) {
        await changeCart(server.services, buyer.user.idUser, 'add', [
          { idArticle: article.idArticle, count: 1 },
        ]);
        const [order] = await checkout(server.services, buyer.user.idUser);
        await payOrder(server.services, order!.order.idOrder);
        paid.push(order!.order.idOrder);
      }
      const [order] = await buy(buyer.api, [[article.idArticle, 1]]);
      bought = order!.idOrder;
    });
    after(() => server.close());

    const ids = (json: { order: Array<{ idOrder: number }> }) => json.order.map((o) => o.idOrder);

    it('a short list answers 200 with every order, by name or by code', async () => {
      for (const path of [
        '/orders/seller/bought',
        '/orders/1/1',
        '/orders/SELLER/bought',
        '/orders/seller/1/1',
      ]) {
        const res = await seller.api.get(path, { json: true });
        assert.equal(res.status, 200, `${path}: ${res.text}`);
        assert.deepEqual(ids(res.json), [bought], path);
        assert.equal(res.json.order[0].isBuyer, false);
      }
      const asBuyer = await buyer.api.get('/orders/2/1', { json: true });
      assert.deepEqual(ids(asBuyer.json), [bought]);
      assert.equal(asBuyer.json.order[0].isBuyer, true);
    });

    it('an empty list answers 204 without a body', async () => {
      for (const path of [
        '/orders/seller/sent',
        '/orders/buyer/cancelled/1',
        '/orders/seller/lost',
        '/orders/buyer/paid/1',
      ]) {
        const res = await seller.api.get(path);
        assert.equal(res.status, 204, path);
        assert.equal(res.text, '');
      }
    });

    it('more than 100 without start answers 307 to the first page', async () => {
      const res = await seller.api.get('/orders/seller/paid');
      assert.equal(res.status, 307);
      assert.equal(res.headers.location, `${BASE}/ws/v2.0/orders/seller/paid/1`);
      assert.equal(res.text, '');
      const json = await seller.api.get('/orders/1/2', { json: true });
      assert.equal(json.headers.location, `${BASE}/ws/v2.0/output.json/orders/1/2/1`);
    });

    it('pages of 100, 1-based, 206 with Content-Range', async () => {
      const first = await seller.api.get('/orders/seller/paid/1', { json: true });
      assert.equal(first.status, 206);
      assert.equal(first.headers['content-range'], `0-99/${MANY}`);
      assert.deepEqual(ids(first.json), paid.slice(0, 100));
      const second = await seller.api.get('/orders/seller/paid/101', { json: true });
      assert.equal(second.status, 206);
      assert.equal(second.headers['content-range'], `100-149/${MANY}`);
      assert.deepEqual(ids(second.json), paid.slice(100));
      const middle = await buyer.api.get('/orders/buyer/paid/51', { json: true });
      assert.equal(middle.headers['content-range'], '50-149/150');
      assert.deepEqual(ids(middle.json), paid.slice(50, 150));
      assert.equal((await seller.api.get('/orders/seller/paid/151')).status, 204);
    });

    it('pages by start and maxResults (0-based) too; the path form wins when both are sent', async () => {
      const page = await seller.api.get('/orders/seller/paid?start=100&maxResults=30', { json: true });
      assert.equal(page.status, 206, page.text);
      assert.equal(page.headers['content-range'], `100-129/${MANY}`);
      assert.deepEqual(ids(page.json), paid.slice(100, 130));
      const small = await seller.api.get('/orders/seller/paid?start=0&maxResults=10', { json: true });
      assert.deepEqual(ids(small.json), paid.slice(0, 10));
      const both = await seller.api.get('/orders/seller/paid/101?start=0&maxResults=10', { json: true });
      assert.equal(both.status, 206);
      assert.equal(both.headers['content-range'], `100-149/${MANY}`);
      assert.deepEqual(ids(both.json), paid.slice(100));
      assert.equal((await seller.api.get('/orders/seller/paid?maxResults=101')).status, 400);
    });

    it('in XML each order is an order element', async () => {
      const res = await seller.api.get('/orders/seller/paid/141');
      assert.equal(res.status, 206);
      assert.equal(res.text.match(/<order><idOrder>/g)?.length, 10);
      assert.match(res.text, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<response><order><idOrder>/);
    });

    it("lists only the caller's orders", async () => {
      const stranger = await createTrader(server);
      assert.equal((await stranger.api.get('/orders/seller/paid/1')).status, 204);
      assert.equal((await stranger.api.get('/orders/buyer/paid/1')).status, 204);
      assert.equal((await seller.api.get('/orders/buyer/paid/1')).status, 204, 'the seller bought nothing');
    });

    it('answers 400 for an unknown actor or state, or a bad start', async () => {
      for (const [path, field] of [
        ['/orders/owner/paid', 'actor'],
        ['/orders/3/paid', 'actor'],
        ['/orders/seller/shipped', 'state'],
        ['/orders/seller/16', 'state'],
        ['/orders/seller/paid/0', 'start'],
        ['/orders/seller/paid/x', 'start'],
      ] as const) {
        const res = await seller.api.get(path, { json: true });
        assert.equal(res.status, 400, path);
        assert.equal(res.json.post_data_field, field, path);
      }
    });

    it('a page shows each order as the order itself does, whatever its texts hold', async () => {
      // A page reads each order's columns packed into one text (`src/store/packed.ts`): separators,
      // line breaks, markup, a leading `=`, empty texts and nulls must come back as stored.
      const db = server.services.database.db;
      const texts = [
        { note: 'a\u001fb', shippingExtra: '=x\u001f', trackingNumber: '\u001f' },
        { shippingName: 'line 1\nline 2 <b>&amp;</b>', shippingExtra: '', trackingNumber: '' },
        { note: '=', shippingExtra: '=', cancellationReason: '', shippingCity: '' },
        {
          note: '\u001f\u001f',
          cancellationRequestBuyer: 'why\r\n"not" \u00e9 😀',
          shippingStreet: '=\u001f=',
        },
        {
          cancellationRequestSeller: '',
          cancellationRequestSellerDate: 1_700_000_000_000,
          trackingNumber: 'RR 1',
        },
      ];
      for (const [i, set] of texts.entries()) {
        await db.updateTable('orders').set(set).where('idOrder', '=', paid[i]!).execute();
      }
      // And the lines: one whose comments hold the separator, one that only looks like its marks.
      await db
        .updateTable('orderArticles')
        .set({ comments: 'x\u001f' })
        .where('idOrder', '=', paid[0]!)
        .execute();
      await db
        .updateTable('orderArticles')
        .set({ comments: '=\n<i>', condition: null })
        .where('idOrder', '=', paid[1]!)
        .execute();
      // The parties too: the buyer's texts hold the separator, the seller's only look like its marks.
      await db
        .updateTable('users')
        .set({ firstName: 'a\u001fb', company: '\u001f', addressExtra: '' })
        .where('idUser', '=', buyer.user.idUser)
        .execute();
      await db
        .updateTable('users')
        .set({ company: '=', vat: '', addressExtra: '=\n<x>', legalInformation: 'Line\r\nline & ü' })
        .where('idUser', '=', seller.user.idUser)
        .execute();
      const page = await seller.api.get('/orders/seller/paid/1', { json: true });
      const xmlPage = await seller.api.get('/orders/seller/paid/1');
      for (const [i, idOrder] of paid.slice(0, texts.length).entries()) {
        const one = await seller.api.get(`/order/${idOrder}`, { json: true });
        assert.deepEqual(page.json.order[i], one.json.order, `order ${idOrder}`);
        const xml = (await seller.api.get(`/order/${idOrder}`)).text;
        const inner = xml.slice(xml.indexOf('<order>'), xml.lastIndexOf('</response>'));
        assert.ok(xmlPage.text.includes(inner), `order ${idOrder} in XML`);
      }
      assert.equal(page.json.order[0].note, 'a\u001fb');
      assert.equal(page.json.order[2].shippingAddress.extra, '=');
      assert.equal(page.json.order[1].shippingAddress.name, 'line 1\nline 2 <b>&amp;</b>');
      assert.equal(page.json.order[0].buyer.name.firstName, 'a\u001fb');
      assert.equal(page.json.order[0].seller.name.company, '=');
      assert.equal(page.json.order[0].seller.vat, '');
      assert.equal(page.json.order[0].seller.address.extra, '=\n<x>');
      assert.equal(page.json.order[0].buyer.address.extra, '');
      assert.equal(page.json.order[0].article[0].comments, 'x\u001f');
      assert.equal(page.json.order[1].article[0].comments, '=\n<i>');
    });

    it('counts follow the transitions', async () => {
      const res = await seller.api.put(`/order/${paid[0]}`, '<request><action>send</action></request>');
      assert.equal(res.status, 200, res.text);
      const sent = await seller.api.get('/orders/seller/sent', { json: true });
      assert.deepEqual(ids(sent.json), [paid[0]]);
      const rest = await seller.api.get('/orders/seller/paid/1');
      assert.equal(rest.headers['content-range'], `0-99/${MANY - 1}`);
    });
  });
}
