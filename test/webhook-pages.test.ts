import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sendSystemMessage } from '../src/domain/system-messages.js';
import { findUserByUsername } from '../src/store/users.js';
import { startTestServer, type TestServer } from './helpers.js';
import { textOf, WebClient } from './web-client.js';
import { type Receiver, startReceiver, verifySignature } from './webhook-receiver.js';

/** Webhook endpoints on the profile page, through HTTP as a browser without JavaScript uses them. */
describe('webhook endpoints on the profile page', () => {
  let server: TestServer;
  let hook: Receiver;
  before(async () => {
    server = await startTestServer();
    hook = await startReceiver();
  });
  after(async () => {
    await server.close();
    await hook.close();
  });

  it('adds an endpoint, shows its secret and attempts, sends again, disables and deletes it', async () => {
    const web = new WebClient(server);
    await web.register('hookowner');
    await web.get('/profile/apps/new');
    const created = await web.post('/profile/apps', { kind: 'dedicated', name: 'My bot', callbackUrl: '' });
    assert.equal(created.status, 303, created.text);
    const idApp = Number(/app-(\d+)/.exec(created.location ?? '')?.[1]);
    const profile = await web.get('/profile');
    assert.match(profile.text, new RegExp(`href="/profile/apps/${idApp}/webhooks/new"`));
    assert.match(textOf(profile.text), /No webhook endpoint/);

    await web.get(`/profile/apps/${idApp}/webhooks/new`);
    const bad = await web.post(`/profile/apps/${idApp}/webhooks`, {
      url: 'ftp://example.org/',
      enabled: 'true',
    });
    assert.equal(bad.status, 400);
    assert.match(textOf(bad.text), /A webhook address starts with https:\/\//);
    assert.match(bad.text, /value="ftp:\/\/example.org\/"/);
    const forged = await web.post(`/profile/apps/${idApp}/webhooks`, {
      _csrf: '',
      url: hook.url,
      enabled: 'true',
    });
    assert.equal(forged.status, 403);
    assert.equal(
      await server.services.database.db
        .selectFrom('webhookEndpoints')
        .select('idEndpoint')
        .executeTakeFirst(),
      undefined,
    );

    const added = await web.post(`/profile/apps/${idApp}/webhooks`, {
      url: hook.url,
      kinds: 'message.received',
      enabled: 'true',
    });
    assert.equal(added.status, 303, added.text);
    const page = await web.get(added.location!);
    assert.equal(page.status, 200);
    const idEndpoint = Number(/\/profile\/webhooks\/(\d+)/.exec(added.location!)?.[1]);
    const secret = /data-webhook="secret">(whsec_[^<]+)</.exec(page.text)?.[1];
    assert.ok(secret);
    assert.match(page.text, /data-webhook="kinds"><code>message\.received<\/code>/);
    assert.match(textOf(page.text), /No delivery attempt yet/);
    assert.match((await web.get('/profile')).text, new RegExp(`id="webhook-${idEndpoint}"`));

    const user = (await findUserByUsername(server.services.database.db, 'hookowner'))!;
    await server.services.database.transaction((tx) =>
      sendSystemMessage(tx, server.clock.now(), user.idUser, 'Your order was paid.'),
    );
    await server.services.events.deliverPending();
    await server.services.webhooks.deliverDue();
    assert.equal(hook.received.length, 1);
    const r = hook.received[0]!;
    assert.ok(
      verifySignature(
        secret,
        r.headers['cardbazaar-signature'] as string,
        r.body,
        Math.floor(Date.now() / 1000),
      ),
    );
    assert.equal(r.json.data.message.text, 'Your order was paid.');

    const withAttempt = await web.get(`/profile/webhooks/${idEndpoint}`);
    assert.match(withAttempt.text, /data-attempt="status">200</);
    const resend = /action="(\/profile\/webhooks\/\d+\/deliveries\/\d+\/resend)"/.exec(withAttempt.text)?.[1];
    assert.ok(resend);
    const again = await web.post(resend);
    assert.equal(again.status, 303);
    await server.services.webhooks.deliverDue();
    assert.equal(hook.received.length, 2);
    assert.equal(hook.received[1]!.body, r.body);

    // Someone else sees nothing of it, and cannot act on it.
    const other = new WebClient(server);
    await other.register('nosy');
    assert.equal((await other.get(`/profile/webhooks/${idEndpoint}`)).status, 404);
    await other.get('/profile');
    assert.equal((await other.post(`/profile/webhooks/${idEndpoint}/delete`)).status, 404);

    await web.get(`/profile/webhooks/${idEndpoint}`);
    const disabled = await web.post(`/profile/webhooks/${idEndpoint}/disable`);
    assert.equal(disabled.status, 303);
    assert.match((await web.get(`/profile/webhooks/${idEndpoint}`)).text, /data-webhook="state">disabled/);
    const deleted = await web.post(`/profile/webhooks/${idEndpoint}/delete`);
    assert.equal(deleted.status, 303);
    assert.equal((await web.get(`/profile/webhooks/${idEndpoint}`)).status, 404);
  });

  it('the form sets strict order on a new endpoint (off unless ticked)', async () => {
    const web = new WebClient(server);
    await web.register('strictowner');
    await web.get('/profile/apps/new');
    const created = await web.post('/profile/apps', {
      kind: 'dedicated',
      name: 'Ordered bot',
      callbackUrl: '',
    });
    const idApp = Number(/app-(\d+)/.exec(created.location ?? '')?.[1]);
    const form = await web.get(`/profile/apps/${idApp}/webhooks/new`);
    assert.match(form.text, /name="strictOrder" value="true"/);
    assert.match(textOf(form.text), /In strict order/);
    const strict = await web.post(`/profile/apps/${idApp}/webhooks`, {
      url: hook.url,
      enabled: 'true',
      strictOrder: 'true',
    });
    assert.equal(strict.status, 303, strict.text);
    await web.get(`/profile/apps/${idApp}/webhooks/new`);
    const plain = await web.post(`/profile/apps/${idApp}/webhooks`, {
      url: `${hook.url}?plain`,
      enabled: 'true',
    });
    assert.equal(plain.status, 303, plain.text);
    const rows = await server.services.database.db
      .selectFrom('webhookEndpoints')
      .select(['url', 'strictOrder'])
      .where('idApp', '=', idApp)
      .orderBy('idEndpoint')
      .execute();
    assert.deepEqual(
      rows.map((r) => r.strictOrder),
      [1, 0],
    );
  });

  it('pages the attempts, 25 a page, newest first', async () => {
    const web = new WebClient(server);
    await web.register('hookpager');
    await web.get('/profile/apps/new');
    const created = await web.post('/profile/apps', { kind: 'dedicated', name: 'Pager', callbackUrl: '' });
    const idApp = Number(/app-(\d+)/.exec(created.location ?? '')?.[1]);
    await web.get(`/profile/apps/${idApp}/webhooks/new`);
    const added = await web.post(`/profile/apps/${idApp}/webhooks`, {
      url: hook.url,
      kinds: 'message.received',
      enabled: 'true',
    });
    const idEndpoint = Number(/\/profile\/webhooks\/(\d+)/.exec(added.location!)?.[1]);
    const user = (await findUserByUsername(server.services.database.db, 'hookpager'))!;
    for (let i = 1; i <= 30; i++) {
      await server.services.database.transaction((tx) =>
        sendSystemMessage(tx, server.clock.now(), user.idUser, `Message ${i}`),
      );
    }
    await server.services.events.deliverPending();
    while ((await server.services.webhooks.deliverDue()) !== 0);
    const rows = (html: string) => [...html.matchAll(/id="attempt-(\d+)"/g)].map((m) => Number(m[1]));
    const first = await web.get(`/profile/webhooks/${idEndpoint}`);
    assert.equal(first.status, 200);
    const page1 = rows(first.text);
    assert.equal(page1.length, 25);
    assert.deepEqual(
      page1,
      [...page1].sort((a, b) => b - a),
    );
    const next = /rel="next" href="([^"]+)"/.exec(first.text)?.[1]?.replaceAll('&amp;', '&');
    assert.ok(next, 'a link to the second page');
    const second = await web.get(next);
    const page2 = rows(second.text);
    assert.equal(page2.length, 5);
    assert.ok(Math.max(...page2) < Math.min(...page1));
  });

  it('speaks the reader’s language', async () => {
    const web = new WebClient(server, { acceptLanguage: 'de' });
    await web.register('hookde');
    await web.get('/profile/apps/new');
    const created = await web.post('/profile/apps', { kind: 'dedicated', name: 'Bot', callbackUrl: '' });
    const idApp = Number(/app-(\d+)/.exec(created.location ?? '')?.[1]);
    const page = await web.get(`/profile/apps/${idApp}/webhooks/new?lang=de`);
    assert.match(textOf(page.text), /Neuer Webhook/);
  });
});
