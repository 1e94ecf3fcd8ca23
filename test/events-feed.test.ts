import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS, startTestServer, type TestServer, xmlRequest } from './helpers.js';
import { buy, createTrader, offer, type Trader } from './trading-helpers.js';

/** The event feed, `GET /events` (README, "Events and webhooks"). */
for (const dialect of DIALECTS) {
  describe(`the event feed (${dialect})`, () => {
    let server: TestServer;
    let seller: Trader;
    let buyer: Trader;
    let stranger: Trader;
    let idOrder: number;
    let idArticle: number;

    before(async () => {
      server = await startTestServer({ dialect });
      seller = await createTrader(server, { name: 'feedseller' });
      buyer = await createTrader(server, { name: 'feedbuyer', balanceCents: 10_000 });
      stranger = await createTrader(server, { name: 'stranger' });
      const article = await offer(server, seller.user, { price: 250, count: 3 });
      idArticle = article.idArticle;
      const orders = await buy(buyer.api, [[idArticle, 2]]);
      idOrder = orders[0]!.idOrder;
      const sent = await seller.api.post(
        `/account/messages/${buyer.user.idUser}`,
        xmlRequest('<message>Thanks for your order!</message>'),
      );
      assert.equal(sent.status, 200, sent.text);
      await server.services.events.deliverPending();
    });
    after(() => server.close());

    it('gives each user their own events, in order, with the entity as the API shows it to them (JSON)', async () => {
      const res = await buyer.api.get('/events', { json: true });
      assert.equal(res.status, 200, res.text);
      const events = res.json.event as Array<Record<string, any>>;
      assert.deepEqual(
        events.map((e) => e.type),
        ['order.stateChanged', 'message.received'],
      );
      const [changed, message] = events;
      assert.ok(changed!.idEvent < message!.idEvent);
      assert.equal(changed!.idUser, buyer.user.idUser);
      assert.match(changed!.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}$/);
      assert.equal(changed!.data.previousState, null);
      assert.equal(changed!.data.order.idOrder, idOrder);
      assert.equal(changed!.data.order.isBuyer, true);
      assert.equal(changed!.data.order.state.state, 'bought');
      assert.equal(changed!.data.order.articleValue, 5);
      // The buyer's view of the order: no relay address (the seller's view has the buyer's email).
      assert.equal(changed!.data.order.temporaryEmail, '');
      assert.equal(message!.data.message.text, 'Thanks for your order!');
      assert.equal(message!.data.message.isSending, false);
      assert.equal(message!.data.partner.idUser, seller.user.idUser);
    });

    it('gives the seller the reservation, the order from their side and each article sold', async () => {
      const res = await seller.api.get('/events', { json: true });
      assert.equal(res.status, 200, res.text);
      const events = res.json.event as Array<Record<string, any>>;
      assert.deepEqual(
        events.map((e) => e.type),
        ['article.reserved', 'order.stateChanged', 'article.sold'],
      );
      assert.equal(events[0]!.data.count, 2);
      assert.equal(events[0]!.data.article.idArticle, idArticle);
      assert.equal(events[0]!.data.article.price, 2.5);
      assert.equal(events[1]!.data.order.isBuyer, false);
      assert.notEqual(events[1]!.data.order.temporaryEmail, '');
      assert.equal(events[2]!.data.idOrder, idOrder);
      assert.equal(events[2]!.data.article.idArticle, idArticle);
      assert.equal(events[2]!.data.article.count, 2);
      assert.ok(events.every((e) => e.idUser === seller.user.idUser));
    });

    it('tells the seller of a reservation of the last copies even when the checkout sold them out first', async () => {
      // The checkout deletes a sold-out article before the outbox row of its reservation is derived.
      const lastSeller = await createTrader(server, { name: 'lastcopyseller' });
      const lastBuyer = await createTrader(server, { name: 'lastcopybuyer', balanceCents: 1_000 });
      const last = await offer(server, lastSeller.user, { price: 400, count: 1 });
      const [order] = await buy(lastBuyer.api, [[last.idArticle, 1]]);
      await server.services.events.deliverPending();
      const res = await lastSeller.api.get('/events', { json: true });
      assert.equal(res.status, 200, res.text);
      const events = res.json.event as Array<Record<string, any>>;
      assert.deepEqual(
        events.map((e) => e.type),
        ['article.reserved', 'order.stateChanged', 'article.sold'],
      );
      assert.equal(events[0]!.data.count, 1);
      assert.equal(events[0]!.data.article.idArticle, last.idArticle);
      assert.equal(events[0]!.data.article.price, 4);
      assert.equal(events[0]!.data.article.count, 0);
      assert.equal(events[2]!.data.idOrder, order!.idOrder);
    });

    it('answers the same tree in XML, money with two decimals', async () => {
      const res = await buyer.api.get('/events');
      assert.equal(res.status, 200);
      assert.match(res.headers['content-type'] as string, /application\/xml/);
      assert.equal((res.text.match(/<event>/g) ?? []).length, 2);
      assert.match(res.text, /<type>order\.stateChanged<\/type>/);
      assert.match(res.text, /<articleValue>5\.00<\/articleValue>/);
      assert.match(res.text, /<text>Thanks for your order!<\/text>/);
    });

    it('pages with since and maxResults: 206 while more follow, 200 for the rest, 204 when nothing is new', async () => {
      const all = (await seller.api.get('/events', { json: true })).json.event as Array<{ idEvent: number }>;
      const first = await seller.api.get('/events?maxResults=2', { json: true });
      assert.equal(first.status, 206);
      assert.equal(first.headers['content-range'], '0-1/3');
      assert.deepEqual(
        first.json.event.map((e: { idEvent: number }) => e.idEvent),
        all.slice(0, 2).map((e) => e.idEvent),
      );
      const rest = await seller.api.get(`/events?since=${all[1]!.idEvent}&maxResults=2`, { json: true });
      assert.equal(rest.status, 200);
      assert.deepEqual(
        rest.json.event.map((e: { idEvent: number }) => e.idEvent),
        [all[2]!.idEvent],
      );
      const none = await seller.api.get(`/events?since=${all[2]!.idEvent}`);
      assert.equal(none.status, 204);
      assert.equal(none.text, '');
    });

    it("never shows another user's events", async () => {
      const res = await stranger.api.get('/events', { json: true });
      assert.equal(res.status, 204);
      // Ids of others' events are just skipped over: since=0 and since=1 both answer nothing.
      assert.equal((await stranger.api.get('/events?since=1', { json: true })).status, 204);
    });

    it('refuses bad parameters with 400 naming the field', async () => {
      for (const [query, field] of [
        ['since=-1', 'since'],
        ['since=abc', 'since'],
        ['maxResults=0', 'maxResults'],
        ['maxResults=101', 'maxResults'],
      ] as const) {
        const res = await buyer.api.get(`/events?${query}`, { json: true });
        assert.equal(res.status, 400, query);
        assert.equal(res.json.post_data_field, field, query);
      }
    });

    it('raises an event only for a change that committed', async () => {
      const before = (await seller.api.get('/events', { json: true })).json.event.length;
      // Refused (the cart holds more than the stock): nothing committed, no event.
      const res = await buyer.api.put(
        '/shoppingcart',
        xmlRequest(
          `<action>add</action><article><idArticle>${idArticle}</idArticle><count>50</count></article>`,
        ),
        { json: true },
      );
      assert.equal(res.json.failed.length, 1);
      await server.services.events.deliverPending();
      assert.equal((await seller.api.get('/events', { json: true })).json.event.length, before);
    });
  });
}
