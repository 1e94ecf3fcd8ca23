import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { actOnOrder, allowedOrderActions, ORDER_ACTIONS, payOrder } from '../src/domain/orders.js';
import { ApiError } from '../src/errors.js';
import { DIALECTS, startTestServer, type TestServer } from './helpers.js';
import { buy, createTrader, offer, type Trader } from './trading-helpers.js';

/**
 * The website offers the actions `allowedOrderActions` lists; `PUT /order` refuses with the same
 * rule. For orders in every reachable situation, as buyer and as seller, each action is offered
 * exactly when acting succeeds (a fresh order per try, since a success changes it).
 */

type Situation =
  'bought' | 'boughtLate' | 'paid' | 'paidLate' | 'paidAsked' | 'sent' | 'sentLate' | 'received';
const SITUATIONS: Situation[] = [
  'bought',
  'boughtLate',
  'paid',
  'paidLate',
  'paidAsked',
  'sent',
  'sentLate',
  'received',
];

for (const dialect of DIALECTS) {
  describe(`allowed order actions agree with the state machine (${dialect})`, () => {
    let server: TestServer;
    let seller: Trader;
    before(async () => {
      server = await startTestServer({ dialect });
      seller = await createTrader(server, { name: 'seller' });
    });
    after(() => server.close());

    // A new buyer each time: a second bought order between the same two would merge into the first.
    async function orderIn(situation: Situation): Promise<{ idOrder: number; buyer: Trader }> {
      const buyer = await createTrader(server, { name: 'buyer', balanceCents: 1_000_000 });
      const article = await offer(server, seller.user, { count: 1 });
      const [o] = await buy(buyer.api, [[article.idArticle, 1]]);
      const idOrder = o!.idOrder;
      const cfg = server.services.config;
      const act = (who: Trader, action: (typeof ORDER_ACTIONS)[number], reason?: string) =>
        actOnOrder(server.services, who.user.idUser, idOrder, { action, reason });
      if (situation === 'boughtLate') server.clock.advance(cfg.cancelWaitingPeriodMs + 1);
      if (situation === 'bought' || situation === 'boughtLate') return { idOrder, buyer };
      await payOrder(server.services, idOrder);
      if (situation === 'paidLate') server.clock.advance(cfg.cancelWaitingPeriodMs + 1);
      if (situation === 'paidAsked') await act(buyer, 'requestCancellation', 'please');
      if (situation.startsWith('paid')) return { idOrder, buyer };
      await act(seller, 'send');
      if (situation === 'sentLate') server.clock.advance(cfg.lostWaitPeriodMs + 1);
      if (situation === 'received') await act(buyer, 'confirmReception');
      return { idOrder, buyer };
    }

    for (const situation of SITUATIONS) {
      it(`offers exactly what succeeds on a ${situation} order`, async () => {
        for (const role of ['buyer', 'seller'] as const) {
          for (const action of ORDER_ACTIONS) {
            const { idOrder, buyer } = await orderIn(situation);
            const who = role === 'buyer' ? buyer : seller;
            const allowed = (await allowedOrderActions(server.services, who.user.idUser, idOrder)).includes(
              action,
            );
            let succeeded = true;
            try {
              await actOnOrder(server.services, who.user.idUser, idOrder, { action, reason: 'a reason' });
            } catch (err) {
              assert.ok(err instanceof ApiError && err.status === 412, String(err));
              succeeded = false;
            }
            assert.equal(allowed, succeeded, `${situation}, ${role}, ${action}`);
          }
        }
      });
    }
  });
}
