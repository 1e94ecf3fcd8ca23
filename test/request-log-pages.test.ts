import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../src/auth/apps.js';
import {
  ApiClient,
  BASE,
  DIALECTS,
  signedHeader,
  startTestServer,
  type TestCredentials,
  type TestServer,
} from './helpers.js';
import { textOf, WebClient } from './web-client.js';

/**
 * The "Requests" pages and the signature debugger page through HTTP (test/browser/request-log.test.ts
 * runs them in Chromium): a signed-in user's own requests only, filters, pages, one request in
 * full, and the debugger filled in from a failed request.
 */

let counter = 0;
const uniqueName = (prefix: string) => `${prefix}${++counter}${Date.now().toString(36)}`;

const unescape = (html: string) =>
  html
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

async function flush(server: TestServer) {
  await new Promise((resolve) => setImmediate(resolve));
  await server.services.requestLog!.flush();
}

/** A user signed in on the website, with a dedicated app for the API. */
async function developer(server: TestServer) {
  const web = new WebClient(server);
  const name = uniqueName('dev');
  assert.equal((await web.register(name)).status, 303);
  const user = await server.services.database.db
    .selectFrom('users')
    .select('idUser')
    .where('username', '=', name)
    .executeTakeFirstOrThrow();
  const issued = await createApp(server.services, { idUser: user.idUser, kind: 'dedicated', name: 'Bot' });
  const cred: TestCredentials = {
    idApp: issued.app.idApp,
    kind: 'dedicated',
    appToken: issued.appToken,
    appSecret: issued.appSecret,
    accessToken: issued.accessToken!.token,
    accessTokenSecret: issued.accessToken!.secret,
    idUser: user.idUser,
  };
  return { web, name, idUser: user.idUser, cred, api: new ApiClient(server, cred) };
}

const rowIds = (html: string) => [...html.matchAll(/<tr id="request-(\d+)"/g)].map((m) => Number(m[1]));

for (const dialect of DIALECTS) {
  describe(`the Requests pages and the signature debugger (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ dialect });
    });
    after(() => server.close());

    it('lists the user’s own requests newest first, filtered by status, path and app', async () => {
      const me = await developer(server);
      const other = await developer(server);
      assert.equal((await me.api.get('/account')).status, 200);
      assert.equal((await me.api.get('/products/999999999', { json: true })).status, 404);
      assert.equal((await me.api.get('/games')).status, 200);
      assert.equal((await other.api.get('/account/messages')).status, 204);
      await flush(server);

      const page = await me.web.get('/requests');
      assert.equal(page.status, 200);
      const text = textOf(page.text);
      assert.match(text, /3 requests/);
      const ids = rowIds(page.text);
      assert.equal(ids.length, 3);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => b - a),
        'newest first',
      );
      assert.match(page.text, /<code>\/ws\/v2\.0\/games<\/code>/);
      assert.match(page.text, /<code>\/ws\/v2\.0\/output\.json\/products\/999999999<\/code>/);
      assert.doesNotMatch(page.text, /account\/messages/, 'not another user’s request');
      assert.match(page.text, /<tr id="request-\d+" class="status-4xx">/);
      assert.match(
        page.text,
        new RegExp(`<option value="${me.cred.idApp}">Bot \\(${me.cred.idApp}\\)</option>`),
      );

      const failed = await me.web.get('/requests?status=4xx');
      assert.equal(rowIds(failed.text).length, 1);
      assert.match(failed.text, /products\/999999999/);
      const byPath = await me.web.get('/requests?path=GAMES');
      assert.equal(rowIds(byPath.text).length, 1);
      assert.match(byPath.text, /ws\/v2\.0\/games/);
      assert.equal(rowIds((await me.web.get(`/requests?idApp=${me.cred.idApp}`)).text).length, 3);
      assert.equal(rowIds((await me.web.get(`/requests?idApp=${other.cred.idApp}`)).text).length, 0);
      const bad = await me.web.get('/requests?status=teapot');
      assert.equal(bad.status, 400);
      assert.match(textOf(bad.text), /A status is a code \(401\), a class \(4xx\), ok or failed\./);
      const french = await me.web.get('/requests?lang=fr');
      assert.match(textOf(french.text), /Vos requêtes à l’API/);
    });

    it('pages through more than 50 requests', async () => {
      const me = await developer(server);
      for (let i = 0; i < 53; i++) await me.api.get(`/games?i=${i}`);
      await flush(server);
      const first = await me.web.get('/requests');
      assert.equal(rowIds(first.text).length, 50);
      assert.match(textOf(first.text), /Page 1 of 2/);
      assert.match(first.text, /<code>\/ws\/v2\.0\/games\?i=52<\/code>/);
      const older = /href="([^"]+)" rel="next"/.exec(first.text)![1]!.replace(/&amp;/g, '&');
      const second = await me.web.get(older);
      assert.equal(rowIds(second.text).length, 3);
      assert.match(second.text, /<code>\/ws\/v2\.0\/games\?i=0<\/code>/);
      assert.ok(Math.max(...rowIds(second.text)) < Math.min(...rowIds(first.text)));
    });

    it('opens a failed request in full, and nobody else can', async () => {
      const me = await developer(server);
      const header = signedHeader(me.cred, 'GET', `${me.api.url('/account')}`);
      const res = await me.api.get('/account?lang=fr', { headers: { authorization: header } });
      assert.equal(res.status, 401);
      await flush(server);
      const [id] = rowIds((await me.web.get('/requests')).text);
      const detail = await me.web.get(`/requests/${id}`);
      assert.equal(detail.status, 200);
      const html = unescape(detail.text);
      assert.match(html, /invalid_signature/);
      assert.ok(
        html.includes(res.headers['x-oauth-base-string'] as string),
        'the base string the server computed',
      );
      assert.ok(html.includes(`<dd><code>${BASE}</code></dd>`));
      assert.ok(html.includes(res.text.split('\n')[1]!), 'the response body');
      const signature = decodeURIComponent(/oauth_signature="([^"]*)"/.exec(header)![1]!);
      assert.ok(!html.includes(signature) && !detail.text.includes(encodeURIComponent(signature)));
      assert.match(detail.text, new RegExp(`href="/signature-debugger\\?request=${id}"`));

      const stranger = await developer(server);
      assert.equal((await stranger.web.get(`/requests/${id}`)).status, 404);
      assert.equal((await stranger.web.get(`/signature-debugger?request=${id}`)).status, 404);
      // Not a request number at all: a 400 that says so (not "no request 0").
      assert.equal((await stranger.web.get('/requests/abc')).status, 400);
      const anonymous = new WebClient(server);
      const away = await anonymous.get(`/requests/${id}`);
      assert.equal(away.status, 303);
      assert.match(away.location!, /^\/login\?next=/);
      assert.equal((await anonymous.get(`/signature-debugger?request=${id}`)).status, 303);
    });

    it('fills the debugger from the log and names the mistake once the header and secrets are given', async () => {
      const me = await developer(server);
      // Signed without the query: the most common mistake.
      const header = signedHeader(me.cred, 'GET', me.api.url('/games'));
      const res = await me.api.get('/games?lang=de', { headers: { authorization: header } });
      assert.equal(res.status, 401);
      await flush(server);
      const [id] = rowIds((await me.web.get('/requests')).text);
      const form = await me.web.get(`/signature-debugger?request=${id}`);
      assert.equal(form.status, 200);
      assert.match(form.text, /id="from-log"/);
      const html = unescape(form.text);
      assert.ok(html.includes(`value="${BASE}/ws/v2.0/games?lang=de"`), 'the URL as the server saw it');
      const prefilled = /<textarea id="authorization"[^>]*>([^<]*)<\/textarea>/.exec(html)![1]!;
      assert.match(prefilled, /^OAuth realm=/);
      assert.doesNotMatch(prefilled, /oauth_signature=/, 'the log keeps no signature');
      assert.match(form.text, /<input id="consumerSecret" name="consumerSecret" type="password" value=""/);

      // The prefilled header alone: no signature to compare, the base string is the server's.
      const noSignature = await me.web.post('/signature-debugger', {
        method: 'GET',
        url: `${BASE}/ws/v2.0/games?lang=de`,
        authorization: prefilled,
        consumerSecret: me.cred.appSecret,
        tokenSecret: me.cred.accessTokenSecret,
      });
      assert.equal(noSignature.status, 200);
      assert.match(noSignature.text, /data-verdict="no_signature"/);
      assert.equal(
        unescape(/<pre id="base-string">([^<]*)<\/pre>/.exec(noSignature.text)![1]!),
        res.headers['x-oauth-base-string'],
        'the debugger computes what the server computed',
      );

      const checked = await me.web.post('/signature-debugger', {
        method: 'GET',
        url: `${BASE}/ws/v2.0/games?lang=de`,
        authorization: header,
        consumerSecret: me.cred.appSecret,
        tokenSecret: me.cred.accessTokenSecret,
      });
      assert.equal(checked.status, 200);
      assert.match(checked.text, /data-verdict="mismatch"/);
      assert.match(checked.text, /<li data-mistake="query_left_out">The query was left out of the signature/);
      assert.match(textOf(checked.text), /First difference at character \d+, in the parameter lang\./);
      assert.match(checked.text, /<code id="sent-signature">[^<]+<\/code>/);
      for (const secret of [me.cred.appSecret, me.cred.accessTokenSecret]) {
        assert.ok(!checked.text.includes(secret), 'the secrets are not sent back');
      }
      assert.match(checked.text, /<pre id="key">[^<]{2}•••••• \(\d+\)&amp;[^<]{2}•••••• \(\d+\)<\/pre>/);

      const good = await me.web.post('/signature-debugger', {
        method: 'GET',
        url: `${BASE}/ws/v2.0/games`,
        authorization: header,
        consumerSecret: me.cred.appSecret,
        tokenSecret: me.cred.accessTokenSecret,
      });
      assert.match(good.text, /data-verdict="valid"/);
    });

    it('says which live host a request verified over, on its page and in the debugger', async () => {
      const me = await developer(server);
      const live = 'https://apiv2.cardmarket.com/ws/v2.0/account';
      const header = signedHeader(me.cred, 'GET', live);
      const res = await server.app.inject({
        method: 'GET',
        url: '/ws/v2.0/account',
        headers: { host: 'apiv2.cardmarket.com', authorization: header },
      });
      assert.equal(res.statusCode, 200);
      await flush(server);
      const [id] = rowIds((await me.web.get('/requests')).text);
      const detail = await me.web.get(`/requests/${id}`);
      assert.match(detail.text, /Signed for the live host/);
      assert.match(detail.text, /<code id="signed-over">https:\/\/apiv2\.cardmarket\.com<\/code>/);

      const checked = await me.web.post('/signature-debugger', {
        method: 'GET',
        url: `${BASE}/ws/v2.0/account`,
        authorization: header,
        consumerSecret: me.cred.appSecret,
        tokenSecret: me.cred.accessTokenSecret,
      });
      assert.equal(checked.status, 200);
      assert.match(checked.text, /data-verdict="valid"/);
      assert.match(checked.text, /<p id="live-host" data-origin="https:\/\/apiv2\.cardmarket\.com">/);
      assert.match(textOf(checked.text), /made for the live host https:\/\/apiv2\.cardmarket\.com/);
    });

    it('answers hostile filters with 400 beside the field, never 500', async () => {
      const me = await developer(server);
      await me.web.get('/requests');
      for (const [query, message] of [
        ['path=%00', /The path filter cannot hold control characters\./],
        [`path=${'x'.repeat(201)}`, /This is too long\./],
        ['idApp=abc', /Choose an app from the list\./],
        ['status=1&status=2', /A status is a code/],
        ['idApp=1&idApp=x', /./],
      ] as const) {
        const res = await me.web.get(`/requests?${query}`);
        if (query === 'idApp=1&idApp=x') {
          assert.equal(res.status, 200, 'the first of a repeated parameter counts');
          continue;
        }
        assert.equal(res.status, 400, query);
        assert.match(textOf(res.text), message, query);
      }
      // A refused filter keeps the app the user picked (the list used to come back empty), and the
      // App column names the app rather than showing its bare id (audit of issue 15).
      await me.api.get('/account');
      await flush(server);
      const listed = await me.web.get('/requests');
      assert.match(listed.text, new RegExp(`<td>Bot \\(${me.cred.idApp}\\)</td>`));
      const refused = await me.web.get(`/requests?status=abc&idApp=${me.cred.idApp}`);
      assert.equal(refused.status, 400);
      assert.match(
        refused.text,
        new RegExp(`<option value="${me.cred.idApp}" selected>Bot \\(${me.cred.idApp}\\)`),
      );
      // One paging rule for every list (README, "Pages"): not a page number is a 400 that says so.
      const badPage = await me.web.get('/requests?page=abc');
      assert.equal(badPage.status, 400);
      assert.match(badPage.text, /“abc” is not a page number \(1 to 100000\)\./);
      assert.equal((await me.web.get('/requests?page=99999999999')).status, 400);
      assert.equal((await me.web.get('/requests?page=2')).status, 200);
      assert.equal((await me.web.get('/signature-debugger?request=1&request=2')).status, 404);
    });

    it('keeps a failure whose body holds a NUL character, and the other rows of its batch', async () => {
      const me = await developer(server);
      await me.api.get('/account');
      const res = await me.api.put('/account/vacation', '<request>\u0000</request>');
      assert.equal(res.status, 400);
      await flush(server);
      const rows = await server.services.database.db
        .selectFrom('requestLog')
        .select(['status', 'requestBody'])
        .where('idUser', '=', me.idUser)
        .orderBy('idRequest')
        .execute();
      assert.deepEqual(
        rows.map((r) => r.status),
        [200, 400],
      );
      assert.equal(rows[1]!.requestBody, '<request>\uFFFD</request>');
    });

    it('refuses a debugger form without its CSRF token or without a URL', async () => {
      const web = new WebClient(server);
      assert.equal((await web.get('/signature-debugger')).status, 200, 'open to anyone');
      const forged = await web.post('/signature-debugger', {
        _csrf: '',
        url: 'http://x/',
        authorization: 'OAuth',
      });
      assert.equal(forged.status, 403);
      await web.get('/signature-debugger');
      const missing = await web.post('/signature-debugger', {
        method: 'GET',
        url: '',
        authorization: 'OAuth realm="x"',
        consumerSecret: 'never-echoed-secret',
      });
      assert.equal(missing.status, 400);
      assert.match(textOf(missing.text), /This field is required\./);
      assert.ok(!missing.text.includes('never-echoed-secret'));
      const unreadable = await web.post('/signature-debugger', {
        method: 'GET',
        url: 'http://localhost/ws/v2.0/account',
        authorization: 'Basic abc',
      });
      assert.equal(unreadable.status, 200);
      assert.match(unreadable.text, /data-verdict="unreadable"/);
      assert.match(unreadable.text, /OAuth scheme/);
    });
  });
}
