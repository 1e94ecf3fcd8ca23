import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createCoupon, redeemCoupons } from '../src/domain/account.js';
import { sweepExpiredReservations } from '../src/domain/cart.js';
import { payOrder, settleLost } from '../src/domain/orders.js';
import { fundUser } from '../src/domain/users.js';
import { ApiError } from '../src/errors.js';
import type { Article } from '../src/store/schema.js';
import { DIALECTS, startTestServer, type TestServer } from './helpers.js';
import { buy, cartBody, createTrader, offer, orderAction, type Trader } from './trading-helpers.js';

/** A small seeded PRNG, so a failing run can be repeated. */
function mulberry32(seed: number) {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DAY = 86_400_000;

for (const dialect of DIALECTS) {
  describe(`money and stock are conserved under concurrent trading (${dialect})`, () => {
    let server: TestServer;
    let sellers: Trader[];
    let buyers: Trader[];
    let articles: Article[];
    const initialStock = new Map<number, number>();
    let injected = 0;

    async function totalMoney(): Promise<number> {
      const db = server.services.database.db;
      const balances = await db
        .selectFrom('users')
        .select(sql<string>`coalesce(sum("moneyBalance" + "bonusBalance"), 0)`.as('n'))
        .executeTakeFirstOrThrow();
      const held = await db
        .selectFrom('orders')
        .select(sql<string>`coalesce(sum("paidFromMoney" + "paidFromBonus"), 0)`.as('n'))
        .where('state', 'in', ['paid', 'sent'])
        .executeTakeFirstOrThrow();
      return Number(balances.n) + Number(held.n);
    }

    before(async () => {
      // Sent orders may be reported lost three days after shipment, so the random clock moves reach it.
      server = await startTestServer({ dialect, config: { lostWaitPeriodMs: 3 * DAY } });
      sellers = [];
      buyers = [];
      articles = [];
      for (let i = 0; i < 3; i++)
        sellers.push(await createTrader(server, { name: 'seller', balanceCents: 500 }));
      for (let i = 0; i < 6; i++) buyers.push(await createTrader(server, { balanceCents: 2000 + i * 700 }));
      for (const s of sellers) {
        for (let k = 0; k < 4; k++) {
          const a = await offer(server, s.user, { count: 2 + k * 2, price: 50 + k * 175 });
          articles.push(a);
          initialStock.set(a.idArticle, a.count);
        }
      }
      // Coupons bring bonus money in: two buyers pay partly with it.
      for (const b of buyers.slice(0, 2)) {
        const code = await createCoupon(server.services, 900);
        await redeemCoupons(server.services, b.user.idUser, [code]);
      }
    });
    after(() => server.close());

    it('random concurrent purchases, payments, shipments, cancellations and losses', async () => {
      const random = mulberry32(Number(process.env.CONSERVATION_SEED ?? (dialect === 'sqlite' ? 6 : 66)));
      const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
      const start = await totalMoney();
      const statuses = new Map<number, number>();
      const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);

      const openOrders = async (states: string[]) =>
        server.services.database.db
          .selectFrom('orders')
          .select([
            'idOrder',
            'idBuyer',
            'idSeller',
            'state',
            'cancellationRequestBuyer',
            'cancellationRequestSeller',
          ])
          .where('state', 'in', states as never)
          .where('wasMergedInto', 'is', null)
          .execute();
      const traderOf = (idUser: number) => [...sellers, ...buyers].find((t) => t.user.idUser === idUser)!;

      const operation = async (): Promise<void> => {
        const roll = random();
        const buyer = pick(buyers);
        if (roll < 0.3) {
          const items: Array<[number, number]> = [];
          for (let n = 1 + Math.floor(random() * 3); n > 0; n--)
            items.push([pick(articles).idArticle, 1 + Math.floor(random() * 2)]);
          count((await buyer.api.put('/shoppingcart', cartBody('add', items))).status);
        } else if (roll < 0.36) {
          count(
            (await buyer.api.put('/shoppingcart', cartBody('remove', [[pick(articles).idArticle, 1]])))
              .status,
          );
        } else if (roll < 0.5) {
          count((await buyer.api.put('/shoppingcart/checkout')).status);
        } else if (roll < 0.62) {
          const bought = await openOrders(['bought']);
          if (bought.length === 0) return;
          try {
            await payOrder(server.services, pick(bought).idOrder);
            count(200);
          } catch (err) {
            if (!(err instanceof ApiError)) throw err;
            count(err.status);
          }
        } else if (roll < 0.72) {
          const paid = await openOrders(['paid']);
          if (paid.length === 0) return;
          const o = pick(paid);
          count((await traderOf(o.idSeller).api.put(`/order/${o.idOrder}`, orderAction('send'))).status);
        } else if (roll < 0.8) {
          const sent = await openOrders(['sent']);
          if (sent.length === 0) return;
          const o = pick(sent);
          count(
            (await traderOf(o.idBuyer).api.put(`/order/${o.idOrder}`, orderAction('confirmReception')))
              .status,
          );
        } else if (roll < 0.88) {
          const open = await openOrders(['bought', 'paid']);
          if (open.length === 0) return;
          const o = pick(open);
          const asSeller = o.state === 'bought';
          const who = traderOf(asSeller ? o.idSeller : o.idBuyer);
          const relist = asSeller && random() < 0.5 ? '<relist>true</relist>' : '';
          count((await who.api.put(`/order/${o.idOrder}`, orderAction('cancel', relist))).status);
        } else if (roll < 0.905) {
          // A sent order that never arrived: the buyer reports it while the seller accepts, and
          // the buyer may confirm reception at the same time (the parcel came after all).
          const sent = await openOrders(['sent']);
          if (sent.length === 0) return;
          const o = pick(sent);
          const buyerOf = traderOf(o.idBuyer);
          const sellerOf = traderOf(o.idSeller);
          const answers = await Promise.all([
            buyerOf.api.put(
              `/order/${o.idOrder}`,
              orderAction('requestCancellation', '<reason>lost</reason>'),
            ),
            sellerOf.api.put(`/order/${o.idOrder}`, orderAction('acceptCancellation')),
            ...(random() < 0.3
              ? [buyerOf.api.put(`/order/${o.idOrder}`, orderAction('confirmReception'))]
              : []),
          ]);
          for (const a of answers) count(a.status);
        } else if (roll < 0.92) {
          const sent = await openOrders(['sent']);
          if (sent.length === 0) return;
          try {
            await settleLost(server.services, pick(sent).idOrder);
            count(200);
          } catch (err) {
            if (!(err instanceof ApiError)) throw err;
            count(err.status);
          }
        } else if (roll < 0.95) {
          const open = await openOrders(['bought', 'paid']);
          if (open.length === 0) return;
          const o = pick(open);
          const bySeller = random() < 0.5;
          const requester = traderOf(bySeller ? o.idSeller : o.idBuyer);
          const other = traderOf(bySeller ? o.idBuyer : o.idSeller);
          const relist = bySeller && random() < 0.5 ? '<relistItems>true</relistItems>' : '';
          const [a, b] = await Promise.all([
            requester.api.put(
              `/order/${o.idOrder}`,
              orderAction('requestCancellation', `<reason>r</reason>${relist}`),
            ),
            other.api.put(`/order/${o.idOrder}`, orderAction('acceptCancellation')),
          ]);
          count(a.status);
          count(b.status);
        } else if (roll < 0.97) {
          const cents = 100 + Math.floor(random() * 2000);
          await fundUser(server.services, buyer.user.idUser, cents);
          injected += cents;
        } else if (roll < 0.99) {
          server.clock.advance(Math.floor(random() * 9 * DAY));
          await sweepExpiredReservations(server.services);
        } else {
          count((await buyer.api.delete('/shoppingcart')).status);
        }
      };

      for (let wave = 0; wave < 40; wave++) {
        await Promise.all(Array.from({ length: 8 }, operation));
      }

      // Whether a wave tries a loss where an order is sent depends on how its concurrent requests
      // interleave, which timers and load move (under load some runs lost none and so never reached
      // the checks below): one order more is always lost, by the seller accepting the buyer's report
      // while the operator settles it, at the same moment.
      const seller = sellers[0]!;
      const late = await offer(server, seller.user, { count: 1, price: 120 });
      initialStock.set(late.idArticle, 1);
      const lateBuyer = buyers[0]!;
      await fundUser(server.services, lateBuyer.user.idUser, 20_000);
      injected += 20_000;
      await buy(lateBuyer.api, [[late.idArticle, 1]]);
      const lateOrder = await server.services.database.db
        .selectFrom('orders as o')
        .innerJoin('orderArticles as l', 'l.idOrder', 'o.idOrder')
        .select('o.idOrder')
        .where('l.idArticle', '=', late.idArticle)
        .where('o.wasMergedInto', 'is', null)
        .executeTakeFirstOrThrow();
      await payOrder(server.services, lateOrder.idOrder);
      const path = `/order/${lateOrder.idOrder}`;
      assert.equal((await seller.api.put(path, orderAction('send'))).status, 200);
      server.clock.advance(3 * DAY + 1);
      const report = await lateBuyer.api.put(
        path,
        orderAction('requestCancellation', '<reason>lost</reason>'),
      );
      assert.equal(report.status, 200, report.text);
      const [accepted, settled] = await Promise.allSettled([
        seller.api.put(path, orderAction('acceptCancellation')),
        settleLost(server.services, lateOrder.idOrder),
      ]);
      const acceptedOk = accepted.status === 'fulfilled' && accepted.value.status === 200;
      assert.equal((acceptedOk ? 1 : 0) + (settled.status === 'fulfilled' ? 1 : 0), 1, 'lost exactly once');
      if (!acceptedOk) assert.equal(accepted.status === 'fulfilled' && accepted.value.status, 412);

      assert.equal(statuses.get(500) ?? 0, 0, 'no request failed with a 500');
      assert.ok((statuses.get(200) ?? 0) > 100, `enough succeeded: ${JSON.stringify([...statuses])}`);

      const lost = await server.services.database.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('state', '=', 'lost')
        .executeTakeFirstOrThrow();
      assert.ok(Number(lost.n) > 0, 'some orders were lost');

      // Money: balances plus what paid and sent orders hold changed only by the top-ups (a lost
      // order gave back what it held).
      assert.equal(await totalMoney(), start + injected);

      // Stock: every copy is available, reserved, or in an order that was not cancelled with relist
      // (a lost order's copies left with the parcel).
      const db = server.services.database.db;
      const available = new Map(
        (await db.selectFrom('articles').select(['idArticle', 'count']).execute()).map((r) => [
          r.idArticle,
          r.count,
        ]),
      );
      const reserved = new Map<number, number>();
      for (const r of await db.selectFrom('reservationArticles').select(['idArticle', 'count']).execute()) {
        reserved.set(r.idArticle, (reserved.get(r.idArticle) ?? 0) + r.count);
      }
      const sold = new Map<number, number>();
      const lines = await db
        .selectFrom('orderArticles as l')
        .innerJoin('orders as o', 'o.idOrder', 'l.idOrder')
        .select(['l.idArticle', 'l.count', 'o.state', 'o.relistOnCancel'])
        .where('o.wasMergedInto', 'is', null)
        .execute();
      for (const l of lines) {
        if (l.state === 'cancelled' && l.relistOnCancel === 1) continue;
        sold.set(l.idArticle, (sold.get(l.idArticle) ?? 0) + l.count);
      }
      for (const [idArticle, initial] of initialStock) {
        const now =
          (available.get(idArticle) ?? 0) + (reserved.get(idArticle) ?? 0) + (sold.get(idArticle) ?? 0);
        assert.equal(now, initial, `article ${idArticle}`);
      }
      for (const [idArticle, n] of available) {
        if (n === 0)
          assert.ok(
            reserved.has(idArticle),
            `article ${idArticle} is sold out and unreserved yet not deleted`,
          );
      }

      // The kept counters agree with the orders.
      const counts = await db.selectFrom('orderCounts').selectAll().execute();
      for (const c of counts) {
        const column = c.actor === 1 ? 'idSeller' : 'idBuyer';
        const real = await db
          .selectFrom('orders')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where(column, '=', c.idUser)
          .where('state', '=', c.state)
          .where('wasMergedInto', 'is', null)
          .executeTakeFirstOrThrow();
        assert.equal(Number(c.count), Number(real.n), `orderCounts ${c.idUser}/${c.actor}/${c.state}`);
      }
      for (const s of sellers) {
        const row = await db
          .selectFrom('users')
          .select('unsentShipments')
          .where('idUser', '=', s.user.idUser)
          .executeTakeFirstOrThrow();
        const real = await db
          .selectFrom('orders')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('idSeller', '=', s.user.idUser)
          .where('state', '=', 'paid')
          .where('wasMergedInto', 'is', null)
          .executeTakeFirstOrThrow();
        assert.equal(row.unsentShipments, Number(real.n));
      }
    });
  });
}
