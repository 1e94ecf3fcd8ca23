import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Mailer } from '../src/mail.js';
import {
  createTestClient,
  createTestUser,
  DIALECTS,
  type TestServer,
  startTestServer,
  xmlRequest,
} from './helpers.js';

/**
 * `POST /account/logindata` (third-party apps): a password reset link or the username, mailed to
 * the account's address; the same answer whether an account matched or not.
 */

interface Sent {
  to: string;
  subject: string;
  text: string;
}

for (const dialect of DIALECTS) {
  describe(`POST /account/logindata (${dialect})`, () => {
    let server: TestServer;
    const sent: Sent[] = [];
    const mailer: Mailer = {
      async send(message) {
        sent.push(message);
      },
      close() {},
    };
    before(async () => {
      server = await startTestServer({ dialect });
      server.services.mailer = mailer;
    });
    after(() => server.close());

    it('type=password mails a reset link that opens the reset page; type=username mails the username', async () => {
      // The app signs alone (no access token): the user is someone who cannot sign in to it.
      const { api } = await createTestClient(server, { kind: 'thirdParty' });
      const user = await createTestUser(server);
      sent.length = 0;
      const res = await api.post(
        '/account/logindata?type=password',
        xmlRequest(`<username>${user.username}</username>`),
        { json: true },
      );
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.logindata, 'successful');
      assert.match(res.json.message, /password reset link is on its way/);
      assert.equal(sent.length, 1);
      assert.equal(sent[0]!.to, user.email);
      const link = /https?:\/\/\S+\/password\/reset\/(\S+)/.exec(sent[0]!.text);
      assert.ok(link, sent[0]!.text);
      const page = await server.app.inject({ method: 'GET', url: `/password/reset/${link[1]}` });
      assert.equal(page.statusCode, 200);

      const xml = await api.post(
        '/account/logindata?type=username',
        xmlRequest(`<email>${user.email.toUpperCase()}</email>`),
      );
      assert.equal(xml.status, 200, xml.text);
      assert.match(xml.text, /<logindata>successful<\/logindata>/);
      assert.equal(sent.length, 2);
      assert.equal(sent[1]!.to, user.email);
      assert.match(sent[1]!.text, new RegExp(`\\b${user.username}\\b`));
      assert.match(sent[1]!.subject, /username/);
    });

    it('answers the same for an account that does not exist, and mails nothing', async () => {
      const { api } = await createTestClient(server, { kind: 'thirdParty' });
      sent.length = 0;
      for (const [type, body] of [
        ['password', '<username>nobody-at-all</username>'],
        ['username', '<email>nobody@example.invalid</email>'],
      ] as const) {
        const res = await api.post(`/account/logindata?type=${type}`, xmlRequest(body), { json: true });
        assert.equal(res.status, 200);
        assert.equal(res.json.logindata, 'successful');
      }
      assert.equal(sent.length, 0);
    });

    it('at most three emails an hour to one account', async () => {
      const { user, api } = await createTestClient(server, { kind: 'thirdParty' });
      sent.length = 0;
      for (let i = 0; i < 5; i++) {
        const res = await api.post(
          '/account/logindata?type=password',
          xmlRequest(`<username>${user.username}</username>`),
        );
        assert.equal(res.status, 200);
      }
      assert.equal(sent.length, 3);
    });

    it('refuses other app kinds, a missing type and a missing field', async () => {
      // A widget app signs alone too, and is not admitted.
      const { user, api: dedicated } = await createTestClient(server, { kind: 'widget' });
      const refused = await dedicated.post(
        '/account/logindata?type=password',
        xmlRequest(`<username>${user.username}</username>`),
        { json: true },
      );
      assert.equal(refused.status, 403);
      const { api } = await createTestClient(server, { kind: 'thirdParty' });
      const noType = await api.post('/account/logindata', xmlRequest('<username>x</username>'), {
        json: true,
      });
      assert.equal(noType.status, 400);
      assert.equal(noType.json.post_data_field, 'type');
      const badType = await api.post('/account/logindata?type=email', xmlRequest('<username>x</username>'), {
        json: true,
      });
      assert.equal(badType.status, 400);
      const noEmail = await api.post(
        '/account/logindata?type=username',
        xmlRequest('<username>x</username>'),
        { json: true },
      );
      assert.equal(noEmail.status, 400);
      assert.equal(noEmail.json.post_data_field, 'email');
    });

    it('says so when the server sends no email', async () => {
      const { user, api } = await createTestClient(server, { kind: 'thirdParty' });
      server.services.mailer = undefined;
      try {
        const res = await api.post(
          '/account/logindata?type=password',
          xmlRequest(`<username>${user.username}</username>`),
          { json: true },
        );
        assert.equal(res.status, 200);
        assert.match(res.json.message, /sends no email/);
      } finally {
        server.services.mailer = mailer;
      }
    });
  });
}
