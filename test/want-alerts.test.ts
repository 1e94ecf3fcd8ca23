import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { EVENTS } from '../src/domain/events.js';
import { SYSTEM_USERNAME } from '../src/domain/system-messages.js';
import { appendEvent } from '../src/store/events.js';
import type { Article, User } from '../src/store/schema.js';
import { updateUser } from '../src/store/users.js';
import { createArticle, createMetaproduct, createProduct, type ProductFixture } from './fixtures.js';
import {
  type ApiClient,
  createTestClient,
  createTestUser,
  DIALECTS,
  startTestServer,
  type TestServer,
  xmlRequest,
} from './helpers.js';

interface Found {
  idMessage: string;
  text: string;
}

for (const dialect of DIALECTS) {
  describe(`wants list mail alerts (${dialect})`, () => {
    let server: TestServer;
    let buyer: { user: User; api: ApiClient };
    let second: { user: User; api: ApiClient };
    let seller: User;
    let p1: ProductFixture; // wanted as a product, and through its metaproduct
    let p2: ProductFixture; // another printing: wanted only through the metaproduct

    /** Lists an article the way the stock feature does: the row and its event, then delivery. */
    async function list(by: User, product: ProductFixture, options: Partial<Article> = {}) {
      const article = await createArticle(server, by, product, options);
      await appendEvent(
        server.services.database.db,
        EVENTS.articleListed,
        { idArticle: article.idArticle },
        server.clock.now(),
      );
      await server.services.events.deliverPending();
      return article;
    }

    /** The unread messages of a user (reading them marks them read, so each test sees only its own). */
    async function alerts(api: ApiClient): Promise<Found[]> {
      const res = await api.get('/account/messages/find?unread=true', { json: true });
      if (res.status === 204) return [];
      assert.equal(res.status, 200, res.text);
      return res.json.message;
    }

    async function addWant(api: ApiClient, idWantslist: number, item: string) {
      const res = await api.put(`/wantslist/${idWantslist}`, xmlRequest(`<action>addItem</action>${item}`));
      assert.equal(res.status, 200, res.text);
    }

    async function createList(api: ApiClient, name: string): Promise<number> {
      const res = await api.post(
        '/wantslist',
        xmlRequest(`<wantslist><idGame>1</idGame><name>${name}</name></wantslist>`),
        { json: true },
      );
      assert.equal(res.status, 200, res.text);
      return res.json.wantslist[0].idWantslist;
    }

    before(async () => {
      server = await startTestServer({ dialect });
      buyer = await createTestClient(server);
      second = await createTestClient(server);
      seller = await createTestUser(server, { username: `seller-${dialect}` });
      const idMeta = await createMetaproduct(server, 'Counterspell');
      p1 = await createProduct(server, { enName: 'Counterspell', idMetaproduct: idMeta });
      p2 = await createProduct(server, { enName: 'Counterspell', idMetaproduct: idMeta });
      const singles = await createList(buyer.api, 'Singles');
      const printings = await createList(buyer.api, 'Any printing');
      // A: this printing, English, at most 1.00.
      await addWant(
        buyer.api,
        singles,
        `<product><idProduct>${p1.idProduct}</idProduct><wishPrice>1.00</wishPrice><mailAlert>true</mailAlert><idLanguage>1</idLanguage></product>`,
      );
      // B: any printing, foil, NM or better, no wish price.
      await addWant(
        buyer.api,
        printings,
        `<metaproduct><idMetaproduct>${idMeta}</idMetaproduct><mailAlert>true</mailAlert><minCondition>NM</minCondition><isFoil>true</isFoil></metaproduct>`,
      );
      // C: no alert asked for.
      await addWant(
        buyer.api,
        singles,
        `<product><idProduct>${p1.idProduct}</idProduct><wishPrice>50.00</wishPrice></product>`,
      );
      const secondList = await createList(second.api, 'Wanted');
      await addWant(
        second.api,
        secondList,
        `<product><idProduct>${p2.idProduct}</idProduct><wishPrice>5.00</wishPrice><mailAlert>true</mailAlert></product>`,
      );
    });
    after(() => server.close());
    beforeEach(async () => {
      // Every test starts with nothing unread.
      await alerts(buyer.api);
      await alerts(second.api);
    });

    it('an offer at or below the wish price sends the owner a message from the system', async () => {
      const article = await list(seller, p1, { price: 90, idLanguage: 1, condition: 'EX' });
      const account = await buyer.api.get('/account', { json: true });
      assert.equal(account.json.account.unreadMessages, 1);
      const threads = await buyer.api.get('/account/messages', { json: true });
      const thread = threads.json.thread.find(
        (t: { partner: { username: string } }) => t.partner.username === SYSTEM_USERNAME,
      );
      assert.ok(thread, 'a thread with the system account');
      assert.equal(thread.unreadMessages, 1);
      assert.equal(thread.message.isSending, false);
      const text: string = thread.message.text;
      assert.match(text, /Counterspell/);
      assert.match(text, /0\.90 EUR/);
      assert.match(text, new RegExp(`by ${seller.username}`));
      assert.match(text, new RegExp(`article ${article.idArticle}`));
      assert.match(text, /your want in "Singles" \(wish price 1\.00 EUR\)/);
      assert.match(text, new RegExp(`/articles/${p1.idProduct}`));
      assert.equal((await alerts(buyer.api)).length, 1);
      // Nobody else wanted it.
      assert.deepEqual(await alerts(second.api), []);
    });

    it('an offer exactly at the wish price alerts; above it does not', async () => {
      await list(seller, p1, { price: 100, idLanguage: 1 });
      assert.equal((await alerts(buyer.api)).length, 1);
      await list(seller, p1, { price: 101, idLanguage: 1 });
      assert.deepEqual(await alerts(buyer.api), []);
    });

    it("an offer outside the want's filters does not alert", async () => {
      await list(seller, p1, { price: 50, idLanguage: 3 }); // German: A wants English; not foil for B
      await list(seller, p2, { price: 50, isFoil: 1, condition: 'PL' }); // B wants NM or better
      await list(seller, p2, { price: 50, isFoil: 0, condition: 'NM' }); // B wants foil; second's wish is 5.00…
      assert.deepEqual(await alerts(buyer.api), []);
      // …but that last one is second's want: any language and condition, at most 5.00.
      const theirs = await alerts(second.api);
      assert.equal(theirs.length, 2);
      assert.ok(theirs.every((m) => /"Wanted"/.test(m.text)));
    });

    it('a metaproduct want matches any printing; one message per owner, naming every want it matches', async () => {
      await list(seller, p2, { price: 999, isFoil: 1, condition: 'NM', idLanguage: 7 });
      const [other] = await alerts(buyer.api);
      assert.match(other!.text, /your want in "Any printing" \(no wish price\)/);
      await list(seller, p1, { price: 80, isFoil: 1, condition: 'MT', idLanguage: 1 });
      const both = await alerts(buyer.api);
      assert.equal(both.length, 1);
      assert.match(
        both[0]!.text,
        /your wants in "Singles" \(wish price 1\.00 EUR\), "Any printing" \(no wish price\)/,
      );
    });

    it('no alert for sold-out articles, sellers on vacation, or one’s own offers', async () => {
      await list(seller, p1, { price: 10, idLanguage: 1, count: 0 });
      await list(buyer.user, p1, { price: 10, idLanguage: 1 });
      const away = await createTestUser(server);
      await updateUser(server.services.database.db, away.idUser, { onVacation: 1 });
      await list(away, p1, { price: 10, idLanguage: 1 });
      assert.deepEqual(await alerts(buyer.api), []);
    });

    it('the alert is written with its event: a malformed event fails and is kept for a retry', async () => {
      const db = server.services.database.db;
      await appendEvent(db, EVENTS.articleListed, { idArticle: 'x' }, server.clock.now());
      await server.services.events.deliverPending();
      const failed = await db
        .selectFrom('events')
        .selectAll()
        .where('type', '=', EVENTS.articleListed)
        .where('deliveredAt', 'is', null)
        .execute();
      assert.equal(failed.length, 1);
      assert.equal(failed[0]!.attempts, 1);
      assert.match(failed[0]!.lastError ?? '', /idArticle/);
      await db.deleteFrom('events').where('idEvent', '=', failed[0]!.idEvent).execute();
      // An event for an article that no longer exists is simply done.
      await appendEvent(db, EVENTS.articleListed, { idArticle: 987654321 }, server.clock.now());
      assert.equal(await server.services.events.deliverPending(), 1);
      assert.deepEqual(await alerts(buyer.api), []);
    });
  });
}
