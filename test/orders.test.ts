import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { payOrder, settleLost } from '../src/domain/orders.js';
import type { ApiError } from '../src/errors.js';
import { DIALECTS, startTestServer, type TestServer, xmlRequest } from './helpers.js';
import {
  articleCount,
  balances,
  buy,
  createTrader,
  offer,
  orderAction,
  type Trader,
} from './trading-helpers.js';

const DAY = 86_400_000;

for (const dialect of DIALECTS) {
  describe(`orders (${dialect})`, () => {
    let server: TestServer;
    let seller: Trader;
    before(async () => {
      server = await startTestServer({ dialect });
      seller = await createTrader(server, { name: 'seller' });
    });
    after(() => server.close());

    /** A fresh buyer with an order of `copies` copies at `price` cents, taken to `state`. */
    async function orderIn(
      state: 'bought' | 'paid' | 'sent' | 'received',
      options: { price?: number; copies?: number; balanceCents?: number; bonusCents?: number } = {},
    ) {
      const buyer = await createTrader(server, { balanceCents: options.balanceCents ?? 100_000 });
      if (options.bonusCents) {
        await server.services.database.db
          .updateTable('users')
          .set({ bonusBalance: options.bonusCents })
          .where('idUser', '=', buyer.user.idUser)
          .execute();
      }
      const article = await offer(server, seller.user, {
        count: options.copies ?? 1,
        price: options.price ?? 500,
      });
      const [order] = await buy(buyer.api, [[article.idArticle, options.copies ?? 1]]);
      const idOrder = order!.idOrder;
      if (state !== 'bought') await payOrder(server.services, idOrder);
      if (state === 'sent' || state === 'received') {
        const sent = await seller.api.put(`/order/${idOrder}`, orderAction('send'));
        assert.equal(sent.status, 200, sent.text);
      }
      if (state === 'received') {
        const got = await buyer.api.put(`/order/${idOrder}`, orderAction('confirmReception'));
        assert.equal(got.status, 200, got.text);
      }
      return { buyer, idOrder, article };
    }

    async function stateOf(idOrder: number) {
      return (await seller.api.get(`/order/${idOrder}`, { json: true })).json.order.state;
    }

    describe('GET /order/:idOrder', () => {
      it('shows the order to its buyer and seller, each with isBuyer set', async () => {
        const { buyer, idOrder } = await orderIn('bought');
        const asBuyer = await buyer.api.get(`/order/${idOrder}`, { json: true });
        assert.equal(asBuyer.status, 200, asBuyer.text);
        assert.deepEqual(Object.keys(asBuyer.json), ['order']);
        assert.equal(asBuyer.json.order.isBuyer, true);
        const asSeller = await seller.api.get(`/order/${idOrder}`, { json: true });
        assert.equal(asSeller.json.order.isBuyer, false);
        assert.equal(asSeller.json.order.buyer.email, buyer.user.email);
        const xml = await seller.api.get(`/order/${idOrder}`);
        assert.match(
          xml.text,
          new RegExp(`<response><order><idOrder>${idOrder}</idOrder><isBuyer>false</isBuyer><seller>`),
        );
        assert.match(
          xml.text,
          /<state><state>bought<\/state><dateBought>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}<\/dateBought><\/state>/,
        );
      });

      it('is 404 to anyone else and for unknown ids, 400 for a malformed id', async () => {
        const { idOrder } = await orderIn('bought');
        const stranger = await createTrader(server);
        const res = await stranger.api.get(`/order/${idOrder}`, { json: true });
        assert.equal(res.status, 404);
        assert.doesNotMatch(res.text, /idOrder/);
        assert.equal((await stranger.api.get('/order/999999999')).status, 404);
        assert.equal((await stranger.api.get('/order/abc')).status, 400);
        assert.equal((await stranger.api.put(`/order/${idOrder}`, orderAction('cancel'))).status, 404);
      });
    });

    describe('paying (the CLI path)', () => {
      it('takes the total from the money balance first, then the bonus balance, and holds it', async () => {
        const { buyer, idOrder } = await orderIn('bought', {
          price: 1000,
          balanceCents: 600,
          bonusCents: 2000,
        });
        const view = await payOrder(server.services, idOrder);
        assert.equal(view.order.state, 'paid');
        assert.equal(view.order.paidFromMoney, 600);
        assert.equal(view.order.paidFromBonus, 1000 + 115 - 600);
        assert.deepEqual(await balances(server, buyer.user.idUser), { moneyBalance: 0, bonusBalance: 1485 });
        const account = await buyer.api.get('/account', { json: true });
        assert.equal(account.json.account.moneyDetails.unpaidAmount, 0);
        const state = await stateOf(idOrder);
        assert.equal(state.state, 'paid');
        assert.equal(typeof state.datePaid, 'string');
        const sellerAccount = await seller.api.get('/account', { json: true });
        assert.ok(sellerAccount.json.account.moneyDetails.moneyBalance >= 0);
      });

      it('refuses when the balances cannot pay, and a second payment', async () => {
        const { buyer, idOrder } = await orderIn('bought', { price: 1000, balanceCents: 500 });
        await assert.rejects(payOrder(server.services, idOrder), (err: ApiError) => {
          assert.equal(err.status, 412);
          assert.match(err.message, /balance/);
          return true;
        });
        assert.deepEqual(await balances(server, buyer.user.idUser), { moneyBalance: 500, bonusBalance: 0 });
        await server.services.database.db
          .updateTable('users')
          .set({ moneyBalance: 5000 })
          .where('idUser', '=', buyer.user.idUser)
          .execute();
        await payOrder(server.services, idOrder);
        await assert.rejects(payOrder(server.services, idOrder), (err: ApiError) => err.status === 412);
      });
    });

    describe('PUT /order/:idOrder', () => {
      it('send: the seller marks a paid order sent, with a tracking number', async () => {
        const { idOrder } = await orderIn('paid');
        const before = (await seller.api.get('/account', { json: true })).json.account;
        server.clock.advance(2 * DAY);
        const res = await seller.api.put(
          `/order/${idOrder}`,
          orderAction('send', '<trackingNumber>RR123456785DE</trackingNumber>'),
          { json: true },
        );
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.order.state.state, 'sent');
        assert.equal(typeof res.json.order.state.dateSent, 'string');
        assert.equal(res.json.order.trackingNumber, 'RR123456785DE');
        assert.equal(res.json.order.isPresale, false);
        const after = (await seller.api.get('/account', { json: true })).json.account;
        assert.equal(after.sellCount, before.sellCount + 1);
        assert.equal(after.soldItems, before.soldItems + 1);
        assert.equal(after.avgShippingTime >= 0, true);
      });

      it('send is 412 for the buyer and for an order not paid, naming the state and the action', async () => {
        const paid = await orderIn('paid');
        const byBuyer = await paid.buyer.api.put(`/order/${paid.idOrder}`, orderAction('send'), {
          json: true,
        });
        assert.equal(byBuyer.status, 412);
        assert.match(
          byBuyer.json.mkm_error_description,
          /Cannot send order \d+: it is paid and you are its buyer/,
        );
        const bought = await orderIn('bought');
        const early = await seller.api.put(`/order/${bought.idOrder}`, orderAction('send'), { json: true });
        assert.equal(early.status, 412);
        assert.match(early.json.mkm_error_description, /it is bought/);
        assert.equal((await stateOf(bought.idOrder)).state, 'bought');
      });

      it('confirmReception: the buyer, of a sent order; the held money goes to the seller', async () => {
        const { buyer, idOrder } = await orderIn('sent', { price: 800 });
        const before = await balances(server, seller.user.idUser);
        const res = await buyer.api.put(`/order/${idOrder}`, orderAction('confirmReception'), { json: true });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.order.state.state, 'received');
        assert.equal(typeof res.json.order.state.dateReceived, 'string');
        const after = await balances(server, seller.user.idUser);
        assert.equal(after.moneyBalance - before.moneyBalance, 800 + 115);
      });

      it('confirmReception is 412 on an order not flagged sent, and for the seller', async () => {
        const paid = await orderIn('paid');
        const res = await paid.buyer.api.put(`/order/${paid.idOrder}`, orderAction('confirmReception'), {
          json: true,
        });
        assert.equal(res.status, 412);
        assert.match(res.json.mkm_error_description, /confirmReception order \d+: it is paid/);
        const sent = await orderIn('sent');
        assert.equal(
          (await seller.api.put(`/order/${sent.idOrder}`, orderAction('confirmReception'))).status,
          412,
        );
      });

      it('cancel: the buyer of a paid order, after the waiting period; the buyer is refunded', async () => {
        const { buyer, idOrder } = await orderIn('paid', { price: 700, balanceCents: 300, bonusCents: 1000 });
        assert.deepEqual(await balances(server, buyer.user.idUser), { moneyBalance: 0, bonusBalance: 485 });
        const early = await buyer.api.put(`/order/${idOrder}`, orderAction('cancel'), { json: true });
        assert.equal(early.status, 412);
        assert.match(early.json.mkm_error_description, /may be cancelled from/);
        server.clock.advance(7 * DAY);
        const res = await buyer.api.put(`/order/${idOrder}`, orderAction('cancel'), { json: true });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.order.state.state, 'cancelled');
        assert.equal(typeof res.json.order.state.dateCancelled, 'string');
        assert.match(res.json.order.state.reason, /did not send/);
        assert.deepEqual(await balances(server, buyer.user.idUser), {
          moneyBalance: 300,
          bonusBalance: 1000,
        });
      });

      it('cancel: the seller of an unpaid order, copies relisted only with relist=true', async () => {
        const kept = await orderIn('bought', { copies: 2 });
        const relisted = await orderIn('bought', { copies: 3 });
        assert.equal(await articleCount(server, relisted.article.idArticle), undefined, 'sold out: deleted');
        server.clock.advance(7 * DAY + 1);
        const a = await seller.api.put(`/order/${kept.idOrder}`, orderAction('cancel'), { json: true });
        assert.equal(a.status, 200, a.text);
        assert.equal(await articleCount(server, kept.article.idArticle), undefined);
        const b = await seller.api.put(
          `/order/${relisted.idOrder}`,
          orderAction('cancel', '<relist>true</relist>'),
          {
            json: true,
          },
        );
        assert.equal(b.status, 200, b.text);
        assert.equal(b.json.order.state.state, 'cancelled');
        assert.equal(
          await articleCount(server, relisted.article.idArticle),
          3,
          'the article is back under its id',
        );
        const back = await server.services.database.db
          .selectFrom('articles')
          .selectAll()
          .where('idArticle', '=', relisted.article.idArticle)
          .executeTakeFirstOrThrow();
        assert.equal(back.price, relisted.article.price);
        assert.equal(back.idUser, seller.user.idUser);
      });

      it('cancel is 412 for the wrong party or state', async () => {
        const bought = await orderIn('bought');
        const paid = await orderIn('paid');
        server.clock.advance(8 * DAY);
        const buyerOfBought = await bought.buyer.api.put(`/order/${bought.idOrder}`, orderAction('cancel'), {
          json: true,
        });
        assert.equal(buyerOfBought.status, 412);
        assert.match(
          buyerOfBought.json.mkm_error_description,
          /Cannot cancel order \d+: it is bought and you are its buyer/,
        );
        assert.equal((await seller.api.put(`/order/${paid.idOrder}`, orderAction('cancel'))).status, 412);
        const relistByBuyer = await paid.buyer.api.put(
          `/order/${paid.idOrder}`,
          orderAction('cancel', '<relist>true</relist>'),
          {
            json: true,
          },
        );
        assert.equal(relistByBuyer.status, 400);
        assert.equal(relistByBuyer.json.post_data_field, 'relist');
      });

      it('requestCancellation needs a reason, keeps the state and shows the request', async () => {
        const { buyer, idOrder } = await orderIn('paid');
        const noReason = await buyer.api.put(`/order/${idOrder}`, orderAction('requestCancellation'), {
          json: true,
        });
        assert.equal(noReason.status, 400);
        assert.equal(noReason.json.post_data_field, 'reason');
        const res = await buyer.api.put(
          `/order/${idOrder}`,
          orderAction('requestCancellation', '<reason>Bought twice by mistake</reason>'),
          { json: true },
        );
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.order.state.state, 'paid');
        assert.equal(
          res.json.order.cancellationRequests.cancellationRequestBuyer.reason,
          'Bought twice by mistake',
        );
        assert.equal(typeof res.json.order.cancellationRequests.cancellationRequestBuyer.date, 'string');
        assert.equal(res.json.order.cancellationRequests.cancellationRequestSeller, null);
        const twice = await buyer.api.put(
          `/order/${idOrder}`,
          orderAction('requestCancellation', '<reason>again</reason>'),
        );
        assert.equal(twice.status, 412);
        const crossing = await seller.api.put(
          `/order/${idOrder}`,
          orderAction('requestCancellation', '<reason>x</reason>'),
          {
            json: true,
          },
        );
        assert.equal(crossing.status, 412);
        assert.match(crossing.json.mkm_error_description, /acceptCancellation/);
        const own = await buyer.api.put(`/order/${idOrder}`, orderAction('acceptCancellation'));
        assert.equal(own.status, 412, 'only the other party accepts');
      });

      it('acceptCancellation by the other party cancels: refund, and relist when the seller asked', async () => {
        const { buyer, idOrder, article } = await orderIn('paid', {
          price: 1200,
          copies: 2,
          balanceCents: 5000,
        });
        const request = await seller.api.put(
          `/order/${idOrder}`,
          orderAction('requestCancellation', '<reason>Card damaged</reason><relistItems>true</relistItems>'),
        );
        assert.equal(request.status, 200, request.text);
        const res = await buyer.api.put(`/order/${idOrder}`, orderAction('acceptCancellation'), {
          json: true,
        });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.order.state.state, 'cancelled');
        assert.equal(res.json.order.state.reason, 'Card damaged');
        assert.deepEqual(await balances(server, buyer.user.idUser), { moneyBalance: 5000, bonusBalance: 0 });
        assert.equal(await articleCount(server, article.idArticle), 2);
      });

      it('acceptCancellation without a request, or of a sent order, is 412', async () => {
        const { buyer, idOrder } = await orderIn('bought');
        const res = await buyer.api.put(`/order/${idOrder}`, orderAction('acceptCancellation'), {
          json: true,
        });
        assert.equal(res.status, 412);
        assert.match(res.json.mkm_error_description, /acceptCancellation order \d+: it is bought/);
        const sent = await orderIn('sent');
        assert.equal(
          (
            await sent.buyer.api.put(
              `/order/${sent.idOrder}`,
              orderAction('requestCancellation', '<reason>r</reason>'),
            )
          ).status,
          412,
        );
      });

      it('answers 400 for a missing or unknown action, and for a missing body', async () => {
        const { buyer, idOrder } = await orderIn('bought');
        for (const body of [
          undefined,
          xmlRequest(''),
          orderAction('ship'),
          xmlRequest('<reason>x</reason>'),
        ]) {
          const res = await buyer.api.put(`/order/${idOrder}`, body, { json: true });
          assert.equal(res.status, 400, String(body));
        }
        const bad = await seller.api.put(`/order/${idOrder}`, orderAction('cancel', '<relist>yes</relist>'), {
          json: true,
        });
        assert.equal(bad.status, 400);
        assert.equal(bad.json.post_data_field, 'relist');
      });

      it('appends an orderStateChanged event in each transition', async () => {
        const { idOrder } = await orderIn('received');
        const events = await server.services.database.db
          .selectFrom('events')
          .select('payload')
          .where('type', '=', 'order.stateChanged')
          .orderBy('idEvent')
          .execute();
        const mine = events.map((e) => JSON.parse(e.payload)).filter((p) => p.idOrder === idOrder);
        assert.deepEqual(mine, [
          { idOrder, from: null, to: 'bought' },
          { idOrder, from: 'bought', to: 'paid' },
          { idOrder, from: 'paid', to: 'sent' },
          { idOrder, from: 'sent', to: 'received' },
        ]);
      });

      it('two parties acting on one order at once: one succeeds, the other gets 412', async () => {
        for (let round = 0; round < 4; round++) {
          const { buyer, idOrder } = await orderIn('paid');
          server.clock.advance(7 * DAY);
          const [send, cancel] = await Promise.all([
            seller.api.put(`/order/${idOrder}`, orderAction('send')),
            buyer.api.put(`/order/${idOrder}`, orderAction('cancel')),
          ]);
          assert.deepEqual([send.status, cancel.status].sort(), [200, 412], `${send.text} ${cancel.text}`);
          const state = (await stateOf(idOrder)).state;
          assert.equal(state, send.status === 200 ? 'sent' : 'cancelled');
        }
      });
    });

    describe('lost (state 32): a sent order that never arrived', () => {
      const report = (buyer: Trader, idOrder: number, reason = 'Never arrived') =>
        buyer.api.put(`/order/${idOrder}`, orderAction('requestCancellation', `<reason>${reason}</reason>`), {
          json: true,
        });

      it('the buyer reports it after the shipping waiting period; the seller accepting makes it lost and refunds', async () => {
        const { buyer, idOrder, article } = await orderIn('sent', {
          price: 2000,
          balanceCents: 1500,
          bonusCents: 1000,
        });
        const paid = await balances(server, buyer.user.idUser);
        const sellerBefore = await balances(server, seller.user.idUser);
        const order = (await buyer.api.get(`/order/${idOrder}`, { json: true })).json.order;
        const total = Math.round(order.totalValue * 100);

        server.clock.advance(13 * DAY);
        const early = await report(buyer, idOrder);
        assert.equal(early.status, 412, early.text);
        assert.match(early.json.mkm_error_description, /reported as not received from \d{4}-/);
        server.clock.advance(DAY);

        const bySeller = await seller.api.put(
          `/order/${idOrder}`,
          orderAction('requestCancellation', '<reason>x</reason>'),
          { json: true },
        );
        assert.equal(bySeller.status, 412, 'the seller cannot report its own shipment lost');
        const reported = await report(buyer, idOrder);
        assert.equal(reported.status, 200, reported.text);
        assert.equal(reported.json.order.state.state, 'sent');
        assert.equal(
          reported.json.order.cancellationRequests.cancellationRequestBuyer.reason,
          'Never arrived',
        );
        const own = await buyer.api.put(`/order/${idOrder}`, orderAction('acceptCancellation'), {
          json: true,
        });
        assert.equal(own.status, 412, 'the buyer cannot accept their own report');

        const lost = await seller.api.put(`/order/${idOrder}`, orderAction('acceptCancellation'), {
          json: true,
        });
        assert.equal(lost.status, 200, lost.text);
        assert.equal(lost.json.order.state.state, 'lost');
        assert.match(lost.json.order.state.dateLost, /^\d{4}-\d\d-\d\dT/);
        assert.equal(lost.json.order.state.reason, 'Never arrived');
        // Each part back to the balance it came from; the seller got nothing, the copies stay sold.
        const after = await balances(server, buyer.user.idUser);
        assert.equal(after.moneyBalance + after.bonusBalance, paid.moneyBalance + paid.bonusBalance + total);
        assert.deepEqual(after, { moneyBalance: 1500, bonusBalance: 1000 });
        assert.deepEqual(await balances(server, seller.user.idUser), sellerBefore);
        assert.equal(await articleCount(server, article.idArticle), undefined);

        for (const path of ['/orders/buyer/lost', '/orders/2/32']) {
          const list = await buyer.api.get(path, { json: true });
          assert.ok(
            list.json.order.some((o: { idOrder: number }) => o.idOrder === idOrder),
            `${path}: ${list.text}`,
          );
        }
        const sellers = await seller.api.get('/orders/seller/lost', { json: true });
        assert.ok(sellers.json.order.some((o: { idOrder: number }) => o.idOrder === idOrder));
        assert.equal(
          (await seller.api.put(`/order/${idOrder}`, orderAction('confirmReception'), { json: true })).status,
          412,
        );
        const events = await server.services.database.db
          .selectFrom('events')
          .select('payload')
          .where('type', '=', 'order.stateChanged')
          .execute();
        assert.ok(
          events.some((e) => {
            const p = JSON.parse(e.payload);
            return p.idOrder === idOrder && p.from === 'sent' && p.to === 'lost';
          }),
          'the outbox records the transition',
        );
      });

      it("counts the seller's losses in lossPercentage", async () => {
        const shop = await createTrader(server, { name: 'unlucky' });
        const buyer = await createTrader(server, { balanceCents: 100_000 });
        const ids: number[] = [];
        for (let i = 0; i < 3; i++) {
          const a = await offer(server, shop.user, { count: 1, price: 100 });
          const [o] = await buy(buyer.api, [[a.idArticle, 1]]);
          await payOrder(server.services, o!.idOrder);
          assert.equal((await shop.api.put(`/order/${o!.idOrder}`, orderAction('send'))).status, 200);
          ids.push(o!.idOrder);
        }
        const loss = async () => (await shop.api.get('/account', { json: true })).json.account.lossPercentage;
        assert.equal(await loss(), '0 - 2%');
        server.clock.advance(14 * DAY);
        await report(buyer, ids[0]!);
        assert.equal((await shop.api.put(`/order/${ids[0]}`, orderAction('acceptCancellation'))).status, 200);
        assert.equal(await loss(), '10 - 100%', 'one of three shipments lost');
        const profile = await buyer.api.get(`/users/${shop.user.idUser}`, { json: true });
        assert.equal(profile.json.user.lossPercentage, '10 - 100%');
      });

      it('the parcel arriving after all: confirmReception ends the report and pays the seller', async () => {
        const { buyer, idOrder } = await orderIn('sent', { price: 700 });
        server.clock.advance(15 * DAY);
        assert.equal((await report(buyer, idOrder)).status, 200);
        const before = await balances(server, seller.user.idUser);
        const got = await buyer.api.put(`/order/${idOrder}`, orderAction('confirmReception'), { json: true });
        assert.equal(got.status, 200, got.text);
        assert.equal(got.json.order.state.state, 'received');
        assert.equal(got.json.order.cancellationRequests.cancellationRequestBuyer, null);
        const after = await balances(server, seller.user.idUser);
        assert.ok(after.moneyBalance > before.moneyBalance);
      });

      it('the operator settles a sent order as lost; anything but a sent order is refused', async () => {
        const { buyer, idOrder } = await orderIn('sent', { price: 900, balanceCents: 5000 });
        const view = await settleLost(server.services, idOrder);
        assert.equal(view.order.state, 'lost');
        assert.equal(view.order.cancellationReason, 'Settled as lost by the operator.');
        assert.deepEqual(await balances(server, buyer.user.idUser), { moneyBalance: 5000, bonusBalance: 0 });
        await assert.rejects(settleLost(server.services, idOrder), (e: ApiError) => e.status === 412);
        const paid = await orderIn('paid');
        await assert.rejects(settleLost(server.services, paid.idOrder), (e: ApiError) => e.status === 412);
        await assert.rejects(settleLost(server.services, 99_999_999), (e: ApiError) => e.status === 404);
      });
    });

    describe('PUT /order/:idOrder/tracking', () => {
      it('the seller sets it on a paid or sent order', async () => {
        const { idOrder } = await orderIn('paid');
        const res = await seller.api.put(
          `/order/${idOrder}/tracking`,
          xmlRequest('<trackingNumber>LX123</trackingNumber>'),
          { json: true },
        );
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.order.trackingNumber, 'LX123');
        const sent = await orderIn('sent');
        const again = await seller.api.put(
          `/order/${sent.idOrder}/tracking`,
          xmlRequest('<trackingNumber>LX9</trackingNumber>'),
        );
        assert.match(again.text, /<trackingNumber>LX9<\/trackingNumber>/);
      });

      it('is 412 for the buyer and for an unpaid order, 400 without a number', async () => {
        const paid = await orderIn('paid');
        const body = xmlRequest('<trackingNumber>T</trackingNumber>');
        assert.equal((await paid.buyer.api.put(`/order/${paid.idOrder}/tracking`, body)).status, 412);
        const bought = await orderIn('bought');
        assert.equal((await seller.api.put(`/order/${bought.idOrder}/tracking`, body)).status, 412);
        const empty = await seller.api.put(
          `/order/${paid.idOrder}/tracking`,
          xmlRequest('<trackingNumber></trackingNumber>'),
          {
            json: true,
          },
        );
        assert.equal(empty.status, 400);
        assert.equal(empty.json.post_data_field, 'trackingNumber');
      });
    });

    describe('POST /order/:idOrder/evaluation', () => {
      const evaluation = (grade = 1, comment = '') =>
        xmlRequest(
          `<evaluationGrade>${grade}</evaluationGrade><itemDescription>${grade}</itemDescription><packaging>${grade}</packaging><comment>${comment}</comment>`,
        );

      it('the buyer evaluates a received order once; it feeds the reputation', async () => {
        const rater = await createTrader(server, { name: 'rated' });
        const orders: Array<{ buyer: Trader; idOrder: number }> = [];
        for (let i = 0; i < 3; i++) {
          const buyer = await createTrader(server, { balanceCents: 10_000 });
          const a = await offer(server, rater.user, { count: 1 });
          const [o] = await buy(buyer.api, [[a.idArticle, 1]]);
          await payOrder(server.services, o!.idOrder);
          await rater.api.put(`/order/${o!.idOrder}`, orderAction('send'));
          await buyer.api.put(`/order/${o!.idOrder}`, orderAction('confirmReception'));
          orders.push({ buyer, idOrder: o!.idOrder });
        }
        const first = await orders[0]!.buyer.api.post(
          `/order/${orders[0]!.idOrder}/evaluation`,
          xmlRequest(
            '<evaluationGrade>2</evaluationGrade><itemDescription>1</itemDescription><packaging>3</packaging><speed>1</speed><comment>Fine, thin envelope</comment><complaint>shipDamage</complaint>',
          ),
          { json: true },
        );
        assert.equal(first.status, 200, first.text);
        assert.deepEqual(first.json.order.evaluation, {
          evaluationGrade: 2,
          itemDescription: 1,
          packaging: 3,
          speed: 1,
          comment: 'Fine, thin envelope',
          complaint: ['shipDamage'],
        });
        assert.equal(first.json.order.state.state, 'evaluated');
        const again = await orders[0]!.buyer.api.post(
          `/order/${orders[0]!.idOrder}/evaluation`,
          evaluation(1),
        );
        assert.equal(again.status, 412);
        assert.equal((await rater.api.get('/account', { json: true })).json.account.reputation, 0);
        await orders[1]!.buyer.api.post(`/order/${orders[1]!.idOrder}/evaluation`, evaluation(1));
        const third = await orders[2]!.buyer.api.post(
          `/order/${orders[2]!.idOrder}/evaluation`,
          evaluation(1),
        );
        assert.equal(third.status, 200, third.text);
        // Grades 2, 1, 1: a mean of 1.33, "very good".
        assert.equal((await rater.api.get('/account', { json: true })).json.account.reputation, 2);
        // Still listed under received.
        const listed = await orders[0]!.buyer.api.get('/orders/buyer/received', { json: true });
        assert.ok(listed.json.order.some((o: { idOrder: number }) => o.idOrder === orders[0]!.idOrder));
      });

      it('is 412 before reception and for the seller; 400 for bad grades or a missing comment', async () => {
        const sent = await orderIn('sent');
        assert.equal(
          (await sent.buyer.api.post(`/order/${sent.idOrder}/evaluation`, evaluation(1))).status,
          412,
        );
        const received = await orderIn('received');
        assert.equal(
          (await seller.api.post(`/order/${received.idOrder}/evaluation`, evaluation(1))).status,
          412,
        );
        for (const [body, field] of [
          [evaluation(5, 'x'), 'evaluationGrade'],
          [evaluation(3, ''), 'comment'],
          [xmlRequest('<evaluationGrade>1</evaluationGrade><packaging>1</packaging>'), 'itemDescription'],
          [
            xmlRequest(
              '<evaluationGrade>1</evaluationGrade><itemDescription>1</itemDescription><packaging>1</packaging><complaint>meh</complaint>',
            ),
            'complaint',
          ],
        ] as const) {
          const res = await received.buyer.api.post(`/order/${received.idOrder}/evaluation`, body, {
            json: true,
          });
          assert.equal(res.status, 400, body);
          assert.equal(res.json.post_data_field, field);
        }
      });
    });

    it("keeps the seller's counters: unsent shipments, sales, sold items, shipping time", async () => {
      const shop = await createTrader(server, { name: 'shop' });
      const counters = async () => {
        const a = (await shop.api.get('/account', { json: true })).json.account;
        return { sellCount: a.sellCount, soldItems: a.soldItems, avgShippingTime: a.avgShippingTime };
      };
      const unsent = async () =>
        await server.services.database.db
          .selectFrom('users')
          .select(['unsentShipments', 'shipsFast'])
          .where('idUser', '=', shop.user.idUser)
          .executeTakeFirstOrThrow();
      const buyer = await createTrader(server, { balanceCents: 100_000 });
      const a = await offer(server, shop.user, { count: 3 });
      const [o1] = await buy(buyer.api, [[a.idArticle, 2]]);
      await payOrder(server.services, o1!.idOrder);
      const [o2] = await buy(buyer.api, [[a.idArticle, 1]]);
      await payOrder(server.services, o2!.idOrder);
      assert.equal((await unsent()).unsentShipments, 2);
      server.clock.advance(3 * DAY);
      await shop.api.put(`/order/${o1!.idOrder}`, orderAction('send'));
      server.clock.advance(2 * DAY);
      await shop.api.put(`/order/${o2!.idOrder}`, orderAction('send'));
      assert.deepEqual(await unsent(), { unsentShipments: 0, shipsFast: 2 });
      // Three and five days from payment to shipment: four on average.
      assert.deepEqual(await counters(), { sellCount: 2, soldItems: 3, avgShippingTime: 4 });
    });

    it('going on vacation with cancelOrders cancels unsent orders, refunds and relists; carts let go', async () => {
      const away = await createTrader(server, { name: 'away' });
      const buyer = await createTrader(server, { balanceCents: 100_000 });
      const a = await offer(server, away.user, { count: 2, price: 1000 });
      const b = await offer(server, away.user, { count: 5 });
      const [paid] = await buy(buyer.api, [[a.idArticle, 1]]);
      await payOrder(server.services, paid!.idOrder);
      const [unpaid] = await buy(buyer.api, [[a.idArticle, 1]]);
      const other = await createTrader(server);
      const held = await other.api.put(
        '/shoppingcart',
        xmlRequest(
          `<action>add</action><article><idArticle>${b.idArticle}</idArticle><count>4</count></article>`,
        ),
      );
      assert.equal(held.status, 200);
      const before = await balances(server, buyer.user.idUser);
      const res = await away.api.put(
        '/account/vacation?onVacation=true&cancelOrders=true&relistItems=true',
        undefined,
        {
          json: true,
        },
      );
      assert.equal(res.status, 200, res.text);
      for (const id of [paid!.idOrder, unpaid!.idOrder]) {
        const o = (await buyer.api.get(`/order/${id}`, { json: true })).json.order;
        assert.equal(o.state.state, 'cancelled');
        assert.match(o.state.reason, /vacation/);
      }
      const after = await balances(server, buyer.user.idUser);
      assert.equal(after.moneyBalance - before.moneyBalance, 1000 + 115, 'the paid order is refunded');
      assert.equal(await articleCount(server, a.idArticle), 2, 'both copies relisted');
      assert.equal(await articleCount(server, b.idArticle), 5, 'copies in carts released');
      assert.deepEqual((await other.api.get('/shoppingcart', { json: true })).json.shoppingCart, []);
    });
  });
}
