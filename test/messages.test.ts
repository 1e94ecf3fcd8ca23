import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccessToken, createApp } from '../src/auth/apps.js';
import { sendMessage } from '../src/domain/messages.js';
import { sendSystemMessage, systemAccountId } from '../src/domain/system-messages.js';
import { insertMessage } from '../src/store/messages.js';
import type { User } from '../src/store/schema.js';
import { DATA_GENERATION } from '../src/store/faults.js';
import { putSetting } from '../src/store/settings.js';
import { updateUser } from '../src/store/users.js';
import {
  ApiClient,
  countRows,
  createTestClient,
  createTestUser,
  DIALECTS,
  startTestServer,
  type TestServer,
  xmlRequest,
  xmlValue,
} from './helpers.js';

const MESSAGE_FIELDS = ['idMessage', 'isSending', 'date', 'text', 'unread'];
const THREAD_FIELDS = ['partner', 'message', 'unreadMessages', 'links'];
const send = (text: string) => xmlRequest(`<message>${text}</message>`);

async function unreadOf(api: ApiClient): Promise<number> {
  const res = await api.get('/account', { json: true });
  assert.equal(res.status, 200);
  return res.json.account.unreadMessages;
}

const messageRows = (server: TestServer) => countRows(server, 'messages');

/** A third-party app of `owner` acting for `user` through the user's own access token. */
async function thirdPartyClient(server: TestServer, owner: User, user: User): Promise<ApiClient> {
  const issued = await createApp(server.services, { idUser: owner.idUser, kind: 'thirdParty' });
  const token = await createAccessToken(server.services, { idApp: issued.app.idApp, idUser: user.idUser });
  return new ApiClient(server, {
    idApp: issued.app.idApp,
    kind: 'thirdParty',
    appToken: issued.appToken,
    appSecret: issued.appSecret,
    accessToken: token.token,
    accessTokenSecret: token.secret,
    idUser: user.idUser,
  });
}

for (const dialect of DIALECTS) {
  describe(`messages (${dialect})`, () => {
    let server: TestServer;
    let alice: { user: User; api: ApiClient };
    let bob: { user: User; api: ApiClient };
    let carol: { user: User; api: ApiClient };
    before(async () => {
      server = await startTestServer({ dialect });
      alice = await createTestClient(server);
      bob = await createTestClient(server);
      carol = await createTestClient(server);
    });
    after(() => server.close());

    it('POST sends a message and answers the thread with it (XML)', async () => {
      const res = await alice.api.post(`/account/messages/${bob.user.idUser}`, send('Hello &amp; welcome'));
      assert.equal(res.status, 200, res.text);
      assert.match(res.headers['content-type'] as string, /application\/xml/);
      assert.match(res.text, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<response><partner><idUser>/);
      assert.equal(xmlValue(res.text, 'idUser'), String(bob.user.idUser));
      assert.equal(xmlValue(res.text, 'isSending'), 'true');
      assert.equal(xmlValue(res.text, 'unread'), 'false');
      assert.equal(xmlValue(res.text, 'text'), 'Hello &amp; welcome');
      assert.match(xmlValue(res.text, 'idMessage')!, /^[0-9a-f]{24}$/);
      assert.match(xmlValue(res.text, 'date')!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}$/);
      assert.equal(xmlValue(res.text, 'unreadMessages'), '0');
    });

    it('stores only ids of 24 hex digits (a thread writes them unescaped)', async () => {
      const before = await messageRows(server);
      for (const idMessage of ['a<b&c', '', '0123456789ABCDEF01234567', '0123456789abcdef0123456'])
        await assert.rejects(
          insertMessage(server.services.database.db, {
            idMessage,
            idSender: alice.user.idUser,
            idReceiver: bob.user.idUser,
            text: 'x',
            date: 0,
            unread: 1,
            senderDeleted: 0,
            receiverDeleted: 0,
          }),
        );
      assert.equal(await messageRows(server), before);
    });

    it('POST answers the thread with the sent message (JSON), fields in the order of the reference', async () => {
      server.clock.advance(60_000);
      const res = await alice.api.post(`/account/messages/${bob.user.idUser}`, send('Second one'), {
        json: true,
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.json), THREAD_FIELDS);
      assert.equal(res.json.partner.idUser, bob.user.idUser);
      assert.equal(res.json.partner.username, bob.user.username);
      // The public form: a message reveals no surname, address or email of its receiver.
      assert.ok(!('lastName' in res.json.partner.name), res.text);
      assert.deepEqual(res.json.partner.address, { country: bob.user.country });
      assert.equal(res.json.partner.email, '');
      assert.equal(res.json.partner.phone, '');
      assert.ok(Array.isArray(res.json.message));
      assert.equal(res.json.message.length, 1);
      assert.deepEqual(Object.keys(res.json.message[0]), MESSAGE_FIELDS);
      assert.equal(res.json.message[0].text, 'Second one');
      assert.equal(res.json.message[0].isSending, true);
      assert.equal(res.json.message[0].unread, false);
      assert.deepEqual(res.json.links, [
        { rel: 'self', href: `/account/messages/${bob.user.idUser}`, method: 'GET' },
        { rel: 'send_message', href: `/account/messages/${bob.user.idUser}`, method: 'POST' },
        { rel: 'delete_thread', href: `/account/messages/${bob.user.idUser}`, method: 'DELETE' },
      ]);
    });

    it("the receiver's account counts the messages as unread; the sender's does not", async () => {
      assert.equal(await unreadOf(bob.api), 2);
      assert.equal(await unreadOf(alice.api), 0);
    });

    it('GET /account/messages lists the threads with the latest message and the unread count (JSON)', async () => {
      const res = await bob.api.get('/account/messages', { json: true });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.json), ['thread']);
      assert.equal(res.json.thread.length, 1);
      const t = res.json.thread[0];
      assert.deepEqual(Object.keys(t), THREAD_FIELDS);
      assert.equal(t.partner.idUser, alice.user.idUser);
      assert.equal(t.message.text, 'Second one');
      assert.equal(t.message.isSending, false);
      assert.equal(t.message.unread, true);
      assert.equal(t.unreadMessages, 2);
      // Listing threads reads nothing.
      assert.equal(await unreadOf(bob.api), 2);
    });

    it('GET /account/messages in XML, threads most recently active first', async () => {
      await carol.api.post(`/account/messages/${bob.user.idUser}`, send('From Carol'));
      const res = await bob.api.get('/account/messages');
      assert.equal(res.status, 200);
      const threads = res.text.split('<thread>').slice(1);
      assert.equal(threads.length, 2);
      assert.equal(xmlValue(threads[0]!, 'idUser'), String(carol.user.idUser));
      assert.equal(xmlValue(threads[0]!, 'text'), 'From Carol');
      assert.equal(xmlValue(threads[1]!, 'idUser'), String(alice.user.idUser));
      assert.equal(xmlValue(threads[1]!, 'unreadMessages'), '2');
    });

    it('GET one thread shows it oldest first and marks what the caller received as read', async () => {
      const res = await bob.api.get(`/account/messages/${alice.user.idUser}`, { json: true });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.json), THREAD_FIELDS);
      assert.deepEqual(
        res.json.message.map((m: { text: string }) => m.text),
        ['Hello & welcome', 'Second one'],
      );
      // This response still shows what was new; the next read does not.
      assert.deepEqual(
        res.json.message.map((m: { unread: boolean; isSending: boolean }) => [m.unread, m.isSending]),
        [
          [true, false],
          [true, false],
        ],
      );
      assert.equal(res.json.unreadMessages, 2);
      assert.equal(await unreadOf(bob.api), 1); // Carol's message is still unread
      const again = await bob.api.get(`/account/messages/${alice.user.idUser}`);
      assert.equal(again.status, 200);
      assert.equal(xmlValue(again.text, 'unreadMessages'), '0');
      assert.ok(!again.text.includes('<unread>true</unread>'));
      // The sender sees the same thread from the other side.
      const mine = await alice.api.get(`/account/messages/${bob.user.idUser}`, { json: true });
      assert.deepEqual(
        mine.json.message.map((m: { isSending: boolean; unread: boolean }) => [m.isSending, m.unread]),
        [
          [true, false],
          [true, false],
        ],
      );
    });

    it('GET one message (XML and JSON) marks it read', async () => {
      const list = await carol.api.get(`/account/messages/${bob.user.idUser}`, { json: true });
      const id = list.json.message[0].idMessage;
      const xml = await bob.api.get(`/account/messages/${carol.user.idUser}/${id}`);
      assert.equal(xml.status, 200, xml.text);
      assert.equal(xmlValue(xml.text, 'idMessage'), id);
      assert.equal(xmlValue(xml.text, 'unread'), 'true');
      assert.equal(await unreadOf(bob.api), 0);
      const json = await bob.api.get(`/account/messages/${carol.user.idUser}/${id}`, { json: true });
      assert.equal(json.status, 200);
      assert.deepEqual(Object.keys(json.json), THREAD_FIELDS);
      assert.equal(json.json.message.length, 1);
      assert.equal(json.json.message[0].text, 'From Carol');
      assert.equal(json.json.message[0].unread, false);
      assert.equal(json.json.partner.idUser, carol.user.idUser);
    });

    it('nobody reads or deletes a message of a thread they are not in', async () => {
      const list = await alice.api.get(`/account/messages/${bob.user.idUser}`, { json: true });
      const id = list.json.message[0].idMessage;
      // Carol, outside the thread, through every path that could name it.
      for (const path of [
        `/account/messages/${alice.user.idUser}/${id}`,
        `/account/messages/${bob.user.idUser}/${id}`,
      ]) {
        const read = await carol.api.get(path, { json: true });
        assert.equal(read.status, 404, path);
        assert.ok(!read.text.includes('Hello'));
        const del = await carol.api.delete(path);
        assert.equal(del.status, 404, path);
      }
      // Bob is in that thread, but not under another partner's id.
      assert.equal((await bob.api.get(`/account/messages/${carol.user.idUser}/${id}`)).status, 404);
      const still = await bob.api.get(`/account/messages/${alice.user.idUser}`, { json: true });
      assert.equal(still.json.message.length, 2);
    });

    it('deleting a thread removes it for the caller only; the other user keeps their copy', async () => {
      const del = await bob.api.delete(`/account/messages/${alice.user.idUser}`);
      assert.equal(del.status, 200, del.text);
      assert.match(del.text, /<response><\/response>$/);
      assert.equal((await bob.api.get(`/account/messages/${alice.user.idUser}`)).status, 204);
      const overview = await bob.api.get('/account/messages', { json: true });
      assert.deepEqual(
        overview.json.thread.map((t: { partner: { idUser: number } }) => t.partner.idUser),
        [carol.user.idUser],
      );
      const hers = await alice.api.get(`/account/messages/${bob.user.idUser}`, { json: true });
      assert.equal(hers.status, 200);
      assert.equal(hers.json.message.length, 2);
      // Deleting again: nothing left on that side.
      const again = await bob.api.delete(`/account/messages/${alice.user.idUser}`, undefined, { json: true });
      assert.equal(again.status, 404);
      assert.equal(again.json.post_data_field, 'idOtherUser');
    });

    it('deleting one message (JSON) removes it for the caller only; rows go when both sides deleted', async () => {
      const before = await messageRows(server);
      const hers = await alice.api.get(`/account/messages/${bob.user.idUser}`, { json: true });
      const [first, second] = hers.json.message;
      const res = await alice.api.delete(
        `/account/messages/${bob.user.idUser}/${first.idMessage}`,
        undefined,
        {
          json: true,
        },
      );
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.json, {});
      const left = await alice.api.get(`/account/messages/${bob.user.idUser}`, { json: true });
      assert.deepEqual(
        left.json.message.map((m: { idMessage: string }) => m.idMessage),
        [second.idMessage],
      );
      // Bob had deleted his side already, so that message is gone from the database.
      assert.equal(await messageRows(server), before - 1);
      const gone = await alice.api.get(`/account/messages/${bob.user.idUser}/${first.idMessage}`);
      assert.equal(gone.status, 404);
    });

    it('a deleted unread message stops counting as unread, and the sender still has it', async () => {
      const sent = await carol.api.post(
        `/account/messages/${alice.user.idUser}`,
        send('Unread, then deleted'),
        {
          json: true,
        },
      );
      const id = sent.json.message[0].idMessage;
      assert.equal(await unreadOf(alice.api), 1);
      assert.equal((await alice.api.delete(`/account/messages/${carol.user.idUser}/${id}`)).status, 200);
      assert.equal(await unreadOf(alice.api), 0);
      const carols = await carol.api.get(`/account/messages/${alice.user.idUser}/${id}`, { json: true });
      assert.equal(carols.status, 200);
      assert.equal(carols.json.message[0].text, 'Unread, then deleted');
    });

    it('GET /account (XML and JSON) does not count unread messages the receiver deleted, by thread or one', async () => {
      const dave = await createTestClient(server);
      const erin = await createTestClient(server);
      for (const text of ['One', 'Two', 'Three'])
        await erin.api.post(`/account/messages/${dave.user.idUser}`, send(text));
      const counted = async () => {
        const xml = await dave.api.get('/account');
        const json = await unreadOf(dave.api);
        assert.equal(Number(xmlValue(xml.text, 'unreadMessages')), json, 'XML and JSON agree');
        return json;
      };
      assert.equal(await counted(), 3);
      const thread = await erin.api.get(`/account/messages/${dave.user.idUser}`, { json: true });
      const first = thread.json.message[0].idMessage as string;
      assert.equal((await dave.api.delete(`/account/messages/${erin.user.idUser}/${first}`)).status, 200);
      assert.equal(await counted(), 2);
      assert.equal((await dave.api.delete(`/account/messages/${erin.user.idUser}`)).status, 200);
      assert.equal(await counted(), 0);
      // The rule is the counter's own, not only the delete's: a row left deleted but unread (as an
      // older database or a hand-written snapshot may hold) is not counted either.
      await erin.api.post(`/account/messages/${dave.user.idUser}`, send('Four'));
      assert.equal(await counted(), 1);
      await server.services.database.db
        .updateTable('messages')
        .set({ receiverDeleted: 1 })
        .where('idReceiver', '=', dave.user.idUser)
        .where('receiverDeleted', '=', 0)
        .execute();
      assert.equal(await counted(), 0);
      // The sender still has all four.
      const hers = await erin.api.get(`/account/messages/${dave.user.idUser}`, { json: true });
      assert.equal(hers.json.message.length, 4);
    });

    it('refuses bad messages with a 400 naming the field, writing nothing', async () => {
      const before = await messageRows(server);
      const cases: Array<[string | undefined, string | null]> = [
        [send(''), 'message'],
        [send('   '), 'message'],
        [send('x'.repeat(5001)), 'message'],
        [send('<b>nested</b>'), 'message'],
        [xmlRequest('<text>wrong element</text>'), 'message'],
        [undefined, null],
      ];
      for (const [body, field] of cases) {
        const res = await alice.api.post(`/account/messages/${bob.user.idUser}`, body, { json: true });
        assert.equal(res.status, 400, body);
        assert.equal(res.json.post_data_field, field, body);
      }
      const longest = await alice.api.post(`/account/messages/${bob.user.idUser}`, send('y'.repeat(5000)));
      assert.equal(longest.status, 200);
      assert.equal(await messageRows(server), before + 1);
    });

    it('refuses oneself, unknown users and malformed ids', async () => {
      const self = await alice.api.post(`/account/messages/${alice.user.idUser}`, send('me'), { json: true });
      assert.equal(self.status, 400);
      assert.equal(self.json.post_data_field, 'idOtherUser');
      const unknown = await alice.api.post('/account/messages/99999999', send('hi'), { json: true });
      assert.equal(unknown.status, 404);
      assert.match(unknown.json.mkm_error_description, /99999999 does not exist/);
      assert.equal((await alice.api.get('/account/messages/99999999')).status, 404);
      assert.equal((await alice.api.get('/account/messages/abc')).status, 400);
      const badId = await alice.api.get(`/account/messages/${bob.user.idUser}/not-an-id`, { json: true });
      assert.equal(badId.status, 400);
      assert.equal(badId.json.post_data_field, 'idMessage');
      const noSuch = await alice.api.get(`/account/messages/${bob.user.idUser}/${'0'.repeat(24)}`);
      assert.equal(noSuch.status, 404);
    });

    it('is open to third-party apps acting for a user, closed to widget apps', async () => {
      const third = await thirdPartyClient(server, carol.user, alice.user);
      const res = await third.post(`/account/messages/${carol.user.idUser}`, send('via a third-party app'), {
        json: true,
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.message[0].isSending, true);
      const threads = await third.get('/account/messages', { json: true });
      assert.equal(threads.status, 200);
      const widget = await createTestClient(server, { kind: 'widget' });
      assert.equal((await widget.api.get('/account/messages')).status, 403);
    });

    it('paginates a long thread: 307 unpaginated, 206 pages with Content-Range, reading marks only the page', async () => {
      const dave = await createTestClient(server);
      const erin = await createTestClient(server);
      for (let i = 1; i <= 105; i++) {
        await sendMessage(server.services, dave.user.idUser, erin.user.idUser, `message ${i}`);
      }
      const redirect = await erin.api.get(`/account/messages/${dave.user.idUser}`);
      assert.equal(redirect.status, 307);
      assert.equal(
        redirect.headers.location,
        `http://api.cardbazaar.test/ws/v2.0/account/messages/${dave.user.idUser}?start=0&maxResults=100`,
      );
      // Nothing was shown, so nothing was read.
      assert.equal(await unreadOf(erin.api), 105);
      const last = await erin.api.get(`/account/messages/${dave.user.idUser}?start=100&maxResults=10`, {
        json: true,
      });
      assert.equal(last.status, 206);
      assert.equal(last.headers['content-range'], '100-104/105');
      assert.deepEqual(
        last.json.message.map((m: { text: string }) => m.text),
        ['message 101', 'message 102', 'message 103', 'message 104', 'message 105'],
      );
      assert.equal(last.json.unreadMessages, 105);
      assert.equal(await unreadOf(erin.api), 100);
      const first = await erin.api.get(`/account/messages/${dave.user.idUser}?start=0&maxResults=2`);
      assert.equal(first.status, 206);
      assert.equal(first.headers['content-range'], '0-1/105');
      assert.equal(await unreadOf(erin.api), 98);
      assert.equal(
        (await erin.api.get(`/account/messages/${dave.user.idUser}?start=200&maxResults=10`)).status,
        204,
      );
    });

    it('a thread shows each message as it was sent, whatever its text holds (JSON and XML)', async () => {
      const ann = await createTestClient(server);
      const ben = await createTestClient(server);
      const texts = ['a|b||c |', '|', 'Zeile 1\nZeile 2 – ü € 🃏', '1|2|3|4|5|6|7', '&lt;b&gt; | &amp;'];
      const sent: unknown[] = [];
      for (const [i, text] of texts.entries()) {
        const from = i % 2 === 0 ? ann : ben;
        const to = i % 2 === 0 ? ben : ann;
        const res = await from.api.post(`/account/messages/${to.user.idUser}`, send(text), { json: true });
        assert.equal(res.status, 200, res.text);
        const message = res.json.message[0];
        // As ann sees it: her own messages are sending, ben's are unread until she reads the thread.
        sent.push({ ...message, isSending: from === ann, unread: from !== ann });
      }
      const thread = await ann.api.get(`/account/messages/${ben.user.idUser}`, { json: true });
      assert.equal(thread.status, 200, thread.text);
      assert.deepEqual(thread.json.message, sent);
      assert.equal(thread.json.unreadMessages, 2);
      const xml = await ben.api.get(`/account/messages/${ann.user.idUser}`);
      assert.equal(xml.status, 200, xml.text);
      assert.deepEqual(
        [...xml.text.matchAll(/<text>([^<]*)<\/text>/g)].map((m) => m[1]),
        texts, // sent as XML, so written back the same
      );
    });

    it('shows the partner as stored, whatever their texts hold (read packed, the separator too)', async () => {
      const ann = await createTestClient(server);
      const ben = await createTestClient(server);
      await updateUser(server.services.database.db, ben.user.idUser, {
        company: 'x|y',
        legalInformation: 'a\u001fb',
      });
      const res = await ann.api.post(`/account/messages/${ben.user.idUser}`, send('hi'));
      assert.equal(res.status, 200, res.text);
      const thread = await ann.api.get(`/account/messages/${ben.user.idUser}`, { json: true });
      assert.equal(thread.status, 200, thread.text);
      assert.equal(thread.json.partner.name.company, 'x|y');
      assert.equal(thread.json.partner.legalInformation, 'a\u001fb');
    });

    it("a thread read again shows every write since (its page is kept by the pair's version)", async () => {
      const dan = await createTestClient(server);
      const eve = await createTestClient(server);
      const db = server.services.database.db;
      const thread = async () => {
        const xml = await eve.api.get(`/account/messages/${dan.user.idUser}`);
        const json = await eve.api.get(`/account/messages/${dan.user.idUser}`, { json: true });
        assert.equal(xml.status, 200, xml.text);
        return { xml: xml.text, json: json.json };
      };
      const texts = (t: { json: { message: Array<{ text: string }> } }) => t.json.message.map((m) => m.text);
      assert.equal((await dan.api.post(`/account/messages/${eve.user.idUser}`, send('one'))).status, 200);
      const first = await thread();
      assert.deepEqual(texts(first), ['one']);
      assert.ok(first.xml.includes('<unread>true</unread>'));
      // Read: the same page again, now read, byte for byte twice.
      const read = await thread();
      assert.ok(!read.xml.includes('<unread>true</unread>'));
      assert.equal((await thread()).xml, read.xml);
      // A message sent, and one written straight into the store.
      await dan.api.post(`/account/messages/${eve.user.idUser}`, send('two'));
      const sent = await thread();
      assert.deepEqual(texts(sent), ['one', 'two']);
      assert.ok(sent.xml.includes('<text>two</text><unread>true</unread>'));
      await insertMessage(db, {
        idMessage: 'abcdefabcdefabcdefabcdef',
        idSender: eve.user.idUser,
        idReceiver: dan.user.idUser,
        text: 'three',
        date: Date.now(),
        unread: 1,
        senderDeleted: 0,
        receiverDeleted: 0,
      });
      assert.deepEqual(texts(await thread()), ['one', 'two', 'three']);
      // A flag changed by any statement.
      await db
        .updateTable('messages')
        .set({ unread: 1 })
        .where('idSender', '=', dan.user.idUser)
        .where('idReceiver', '=', eve.user.idUser)
        .execute();
      const unread = await thread();
      assert.equal(xmlValue(unread.xml, 'unreadMessages'), '2');
      // A message deleted from the caller's side, then rows deleted for good.
      const idOne = unread.json.message[0].idMessage as string;
      const del = await eve.api.delete(`/account/messages/${dan.user.idUser}/${idOne}`);
      assert.equal(del.status, 200, del.text);
      assert.deepEqual(texts(await thread()), ['two', 'three']);
      await db.deleteFrom('messages').where('idMessage', '=', 'abcdefabcdefabcdefabcdef').execute();
      assert.deepEqual(texts(await thread()), ['two']);
      const versions = () =>
        db
          .selectFrom('messagePairVersions')
          .select(['idUserLow', 'idUserHigh', 'version'])
          .where('idUserLow', '=', Math.min(dan.user.idUser, eve.user.idUser))
          .where('idUserHigh', '=', Math.max(dan.user.idUser, eve.user.idUser))
          .execute();
      const idTwo = (await thread()).json.message[0].idMessage as string;
      // The partner changed.
      await updateUser(db, dan.user.idUser, { legalInformation: 'Changed' });
      const changed = await thread();
      assert.equal(changed.json.partner.legalInformation, 'Changed');
      assert.ok(changed.xml.includes('<legalInformation>Changed</legalInformation>'));
      // A loaded snapshot brings other messages under a version this pair had (and a new generation).
      const pair = db
        .updateTable('messagePairVersions')
        .where('idUserLow', '=', Math.min(dan.user.idUser, eve.user.idUser))
        .where('idUserHigh', '=', Math.max(dan.user.idUser, eve.user.idUser));
      const [kept] = await versions();
      await db.updateTable('messages').set({ text: 'restored' }).where('idMessage', '=', idTwo).execute();
      await pair.set({ version: kept!.version }).execute();
      await putSetting(db, DATA_GENERATION, 'another world');
      assert.deepEqual(texts(await thread()), ['restored']);
      // Another pair's writes leave this one's version alone, and the version only grows.
      const [before] = await versions();
      await carol.api.post(`/account/messages/${eve.user.idUser}`, send('elsewhere'));
      assert.deepEqual(await versions(), [before]);
      await eve.api.delete(`/account/messages/${dan.user.idUser}`);
      const [afterDelete] = await versions();
      assert.ok(Number(afterDelete!.version) > Number(before!.version));
      assert.equal((await eve.api.get(`/account/messages/${dan.user.idUser}`)).status, 204);
    });

    it('paginates the thread list too, most recently active first', async () => {
      const hub = await createTestClient(server);
      const senders = [
        await createTestUser(server),
        await createTestUser(server),
        await createTestUser(server),
      ];
      for (const sender of senders) {
        server.clock.advance(1000);
        await sendMessage(server.services, sender.idUser, hub.user.idUser, `from ${sender.username}`);
      }
      const page = await hub.api.get('/account/messages?start=1&maxResults=1', { json: true });
      assert.equal(page.status, 206);
      assert.equal(page.headers['content-range'], '1-1/3');
      assert.equal(page.json.thread.length, 1);
      assert.equal(page.json.thread[0].partner.idUser, senders[1]!.idUser);
      const all = await hub.api.get('/account/messages', { json: true });
      assert.deepEqual(
        all.json.thread.map((t: { partner: { idUser: number } }) => t.partner.idUser),
        senders.map((u) => u.idUser).reverse(),
      );
      const nobody = await createTestClient(server);
      assert.equal((await nobody.api.get('/account/messages')).status, 204);
    });

    describe('find', () => {
      let frank: { user: User; api: ApiClient };
      let gina: { user: User; api: ApiClient };
      const day = 86_400_000;
      before(async () => {
        frank = await createTestClient(server);
        gina = await createTestClient(server);
        // 2026-03-10 10:00 UTC, then one message a day.
        server.clock.set(Date.UTC(2026, 2, 10, 10, 0, 0));
        for (let i = 0; i < 4; i++) {
          await sendMessage(server.services, gina.user.idUser, frank.user.idUser, `day ${i}`);
          server.clock.advance(day);
        }
        // Frank's own message must never be found: find is about received messages.
        await sendMessage(server.services, frank.user.idUser, gina.user.idUser, 'reply');
      });

      it('unread=true returns the unread received messages and marks them read (JSON)', async () => {
        const res = await frank.api.get('/account/messages/find?unread=true', { json: true });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(Object.keys(res.json), ['message']);
        assert.deepEqual(
          res.json.message.map((m: { text: string }) => m.text),
          ['day 0', 'day 1', 'day 2', 'day 3'],
        );
        assert.ok(
          res.json.message.every((m: { unread: boolean; isSending: boolean }) => m.unread && !m.isSending),
        );
        assert.deepEqual(Object.keys(res.json.message[0]), MESSAGE_FIELDS);
        assert.equal(await unreadOf(frank.api), 0);
        assert.equal((await frank.api.get('/account/messages/find?unread=true')).status, 204);
      });

      it('startDate and endDate select received messages by date (XML); a missing end is now', async () => {
        // 2026-03-11 00:00 in Berlin is 2026-03-10 23:00 UTC: days 1 and 2 fall in [11th, 12th 12:00].
        const res = await frank.api.get(
          `/account/messages/find?startDate=2026-03-11&endDate=${encodeURIComponent('2026-03-12T12:00:00+0100')}`,
        );
        assert.equal(res.status, 200, res.text);
        const texts = [...res.text.matchAll(/<text>([^<]*)<\/text>/g)].map((m) => m[1]);
        assert.deepEqual(texts, ['day 1', 'day 2']);
        assert.ok(res.text.includes('<unread>false</unread>'));
        const open = await frank.api.get('/account/messages/find?startDate=2026-03-12T00:00:00Z', {
          json: true,
        });
        assert.deepEqual(
          open.json.message.map((m: { text: string }) => m.text),
          ['day 2', 'day 3'],
        );
        assert.equal(
          (await gina.api.get('/account/messages/find?startDate=2026-03-01', { json: true })).json.message
            .length,
          1,
        );
      });

      it('unread=true wins over the dates; dates must parse and come in order', async () => {
        await sendMessage(server.services, gina.user.idUser, frank.user.idUser, 'fresh');
        const wins = await frank.api.get('/account/messages/find?unread=true&startDate=2030-01-01', {
          json: true,
        });
        assert.equal(wins.status, 200);
        assert.deepEqual(
          wins.json.message.map((m: { text: string }) => m.text),
          ['fresh'],
        );
        for (const [query, field] of [
          ['startDate=yesterday', 'startDate'],
          ['startDate=2026-03-11&endDate=soon', 'endDate'],
          ['startDate=2026-03-12&endDate=2026-03-11', 'endDate'],
          ['', 'startDate'],
          ['unread=false', 'startDate'],
          ['unread=maybe', 'unread'],
        ]) {
          const res = await frank.api.get(`/account/messages/find${query ? `?${query}` : ''}`, {
            json: true,
          });
          assert.equal(res.status, 400, query);
          assert.equal(res.json.post_data_field, field, query);
        }
      });
    });

    describe('the system account', () => {
      it('sends messages users read like any other, and cannot be written to or acted as', async () => {
        const now = server.clock.now();
        const idSystem = await server.services.database.transaction((tx) => systemAccountId(tx, now));
        await server.services.database.transaction((tx) =>
          sendSystemMessage(tx, now, alice.user.idUser, 'A notice from the marketplace'),
        );
        const thread = await alice.api.get(`/account/messages/${idSystem}`, { json: true });
        assert.equal(thread.status, 200);
        assert.equal(thread.json.partner.username, 'Cardbazaar System');
        assert.equal(thread.json.message[0].text, 'A notice from the marketplace');
        assert.equal(thread.json.message[0].isSending, false);
        const reply = await alice.api.post(`/account/messages/${idSystem}`, send('thanks'), { json: true });
        assert.equal(reply.status, 400);
        assert.equal(reply.json.post_data_field, 'idOtherUser');
        await assert.rejects(
          createApp(server.services, { idUser: idSystem, kind: 'dedicated' }),
          /system account/,
        );
        // The same account on the next use: one system user.
        assert.equal(await server.services.database.transaction((tx) => systemAccountId(tx, now)), idSystem);
        // Deleting a system message removes the row: the system keeps no copy.
        const before = await messageRows(server);
        const del = await alice.api.delete(`/account/messages/${idSystem}`, undefined, { json: true });
        assert.equal(del.status, 200);
        assert.deepEqual(del.json, {});
        assert.equal(await messageRows(server), before - 1);
      });
    });
  });

  describe(`the message switch, MESSAGES_ENABLED=false (${dialect})`, () => {
    let server: TestServer;
    let api: ApiClient;
    let other: User;
    before(async () => {
      server = await startTestServer({ dialect, config: { messagesEnabled: false } });
      ({ api } = await createTestClient(server));
      other = await createTestUser(server);
    });
    after(() => server.close());

    it('answers every message request 404 saying they are shut down, in XML and JSON', async () => {
      const id = 'a'.repeat(24);
      const requests: Array<[string, string, string | undefined]> = [
        ['GET', '/account/messages', undefined],
        ['GET', '/account/messages/find?unread=true', undefined],
        ['GET', `/account/messages/${other.idUser}`, undefined],
        ['POST', `/account/messages/${other.idUser}`, send('hello')],
        ['DELETE', `/account/messages/${other.idUser}`, undefined],
        ['GET', `/account/messages/${other.idUser}/${id}`, undefined],
        ['DELETE', `/account/messages/${other.idUser}/${id}`, undefined],
      ];
      for (const [method, path, body] of requests) {
        const json = await api.request(method, path, { json: true, body });
        assert.equal(json.status, 404, `${method} ${path}`);
        assert.match(json.json.mkm_error_description, /temporarily shut down/);
        assert.equal(json.json.internal_error_code, 'messages_disabled');
        const xml = await api.request(method, path, { body });
        assert.equal(xml.status, 404);
        assert.match(xmlValue(xml.text, 'mkm_error_description')!, /temporarily shut down/);
      }
      const rows = await server.services.database.db.selectFrom('messages').selectAll().execute();
      assert.equal(rows.length, 0);
    });

    it('leaves the rest of the API working', async () => {
      const res = await api.get('/account', { json: true });
      assert.equal(res.status, 200);
      assert.equal(res.json.account.unreadMessages, 0);
    });
  });
}
