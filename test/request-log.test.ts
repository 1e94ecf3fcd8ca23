import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccessToken, createApp } from '../src/auth/apps.js';
import { listRequests } from '../src/domain/request-log.js';
import { withoutSignature, withoutSignatureParam } from '../src/http/request-log.js';
import type { RequestLogRow } from '../src/store/request-log.js';
import {
  ApiClient,
  BASE,
  createTestApp,
  createTestClient,
  createTestUser,
  DIALECTS,
  signedHeader,
  startTestServer,
  type TestServer,
  xmlRequest,
} from './helpers.js';

/** Lets the answers' onResponse hooks run, then writes what the recorder holds. */
export async function flushRequestLog(server: TestServer): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await server.services.requestLog!.flush();
}

async function rowsOf(server: TestServer, idUser: number): Promise<RequestLogRow[]> {
  await flushRequestLog(server);
  return server.services.database.db
    .selectFrom('requestLog')
    .selectAll()
    .where('idUser', '=', idUser)
    .orderBy('idRequest')
    .execute();
}

const signatureOf = (header: string) => decodeURIComponent(/oauth_signature="([^"]*)"/.exec(header)![1]!);

for (const dialect of DIALECTS) {
  describe(`the request log (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ dialect });
    });
    after(() => server.close());

    it('records a successful request: time, method, path, query, status, duration, app; no bodies', async () => {
      const { user, cred, api } = await createTestClient(server);
      const before = Date.now();
      const res = await api.get('/games?lang=de', { json: true });
      assert.equal(res.status, 200);
      const xml = await api.get('/account');
      assert.equal(xml.status, 200);
      const rows = await rowsOf(server, user.idUser);
      assert.equal(rows.length, 2);
      const [json, account] = rows as [RequestLogRow, RequestLogRow];
      assert.equal(json.method, 'GET');
      assert.equal(json.path, '/ws/v2.0/output.json/games');
      assert.equal(json.query, 'lang=de');
      assert.equal(json.status, 200);
      assert.equal(json.idApp, cred.idApp);
      assert.equal(json.internalErrorCode, null);
      assert.ok(Number(json.time) >= before - 5 && Number(json.time) <= Date.now(), 'real time of arrival');
      assert.ok(json.durationMicros > 0);
      assert.equal(json.requestBody, null);
      assert.equal(json.responseBody, null);
      assert.equal(json.authorization, null);
      assert.equal(account.path, '/ws/v2.0/account');
      assert.equal(account.query, '');
      assert.ok(account.idRequest > json.idRequest);
    });

    it('keeps the code and the first 4 KB of both bodies of a failure', async () => {
      const { user, api } = await createTestClient(server);
      const long = 'x'.repeat(6000);
      const res = await api.put(
        '/account/vacation',
        xmlRequest(`<onVacation>maybe</onVacation><x>${long}</x>`),
      );
      assert.equal(res.status, 400);
      const [row] = await rowsOf(server, user.idUser);
      assert.ok(row);
      assert.equal(row.status, 400);
      assert.equal(row.method, 'PUT');
      assert.equal(row.requestBody!.length, 4096);
      assert.ok(
        row.requestBody!.startsWith('<?xml version="1.0" encoding="UTF-8"?><request><onVacation>maybe'),
      );
      assert.equal(row.responseBody, res.text);
      assert.match(row.responseBody!, /<post_data_field>onVacation<\/post_data_field>/);
      assert.equal(row.origin, BASE);
      assert.ok(row.authorization!.startsWith('OAuth realm="'));
    });

    it('records a bad signature for the token’s user with the base string and without any signature', async () => {
      const { user, cred, api } = await createTestClient(server);
      const header = signedHeader(cred, 'GET', `${api.url('/account')}?x=1`);
      const res = await api.get('/account', { headers: { authorization: header } });
      assert.equal(res.status, 401);
      const [row] = await rowsOf(server, user.idUser);
      assert.ok(row);
      assert.equal(row.status, 401);
      assert.equal(row.internalErrorCode, 'invalid_signature');
      assert.equal(row.idApp, cred.idApp);
      assert.equal(row.baseString, res.headers['x-oauth-base-string']);
      assert.match(row.baseString!, /^GET&http%3A%2F%2Fapi\.cardbazaar\.test%2Fws%2Fv2\.0%2Faccount&/);
      assert.doesNotMatch(row.authorization!, /oauth_signature=/);
      assert.match(row.authorization!, /oauth_signature_method="HMAC-SHA1"/);
      assert.match(row.authorization!, new RegExp(`oauth_consumer_key="${cred.appToken}"`));
      const everything = JSON.stringify(row);
      const signature = signatureOf(header);
      for (const secret of [
        signature,
        encodeURIComponent(signature),
        cred.appSecret,
        cred.accessTokenSecret,
      ]) {
        assert.ok(!everything.includes(secret), `the row holds no ${secret}`);
      }
    });

    it('records failures of a known app for its owner, and skips an unknown app token', async () => {
      const owner = await createTestUser(server);
      const third = await createTestApp(server, owner, 'thirdParty');
      const stranger = new ApiClient(server, { ...third, accessToken: 'nope', accessTokenSecret: 'x' });
      const res = await stranger.get('/account');
      assert.equal(res.status, 401);
      const [row] = await rowsOf(server, owner.idUser);
      assert.ok(row);
      assert.equal(row.internalErrorCode, 'unknown_access_token');
      assert.equal(row.idApp, third.idApp);

      const count = async () =>
        Number(
          (
            await server.services.database.db
              .selectFrom('requestLog')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      await flushRequestLog(server);
      const before = await count();
      const unknown = new ApiClient(server, { ...third, appToken: 'no-such-app' });
      assert.equal((await unknown.get('/account')).status, 401);
      assert.equal((await stranger.get('/account', { unsigned: true })).status, 401);
      await flushRequestLog(server);
      assert.equal(await count(), before, 'no row without a known app');
    });

    it('records a third-party request for the user it acts for, a widget request for its owner', async () => {
      const developer = await createTestUser(server);
      const customer = await createTestUser(server);
      const issued = await createApp(server.services, { idUser: developer.idUser, kind: 'thirdParty' });
      const token = await createAccessToken(server.services, {
        idApp: issued.app.idApp,
        idUser: customer.idUser,
      });
      const api = new ApiClient(server, {
        idApp: issued.app.idApp,
        kind: 'thirdParty',
        appToken: issued.appToken,
        appSecret: issued.appSecret,
        accessToken: token.token,
        accessTokenSecret: token.secret,
        idUser: customer.idUser,
      });
      assert.equal((await api.get('/account')).status, 200);
      const widget = await createTestApp(server, developer, 'widget');
      assert.equal((await new ApiClient(server, widget).get('/games')).status, 200);
      const mine = await rowsOf(server, customer.idUser);
      assert.deepEqual(
        mine.map((r) => [r.path, r.idApp]),
        [['/ws/v2.0/account', issued.app.idApp]],
      );
      const theirs = await rowsOf(server, developer.idUser);
      assert.deepEqual(
        theirs.map((r) => [r.path, r.idApp]),
        [['/ws/v2.0/games', widget.idApp]],
      );
    });

    it('shows each user only their own requests', async () => {
      const a = await createTestClient(server);
      const b = await createTestClient(server);
      await a.api.get('/account');
      await a.api.get('/games');
      await b.api.get('/account/messages');
      await flushRequestLog(server);
      const pageA = await listRequests(server.services, a.user.idUser, {});
      const pageB = await listRequests(server.services, b.user.idUser, {});
      assert.deepEqual(
        pageA.rows.map((r) => r.path),
        ['/ws/v2.0/games', '/ws/v2.0/account'],
      );
      assert.deepEqual(
        pageB.rows.map((r) => r.path),
        ['/ws/v2.0/account/messages'],
      );
      assert.deepEqual(
        pageA.apps.map((x) => x.idApp),
        [a.cred.idApp],
      );
    });

    it('filters by status, path and app', async () => {
      const { user, cred, api } = await createTestClient(server);
      await api.get('/account');
      await api.get('/products/999999999');
      await api.get('/games');
      await flushRequestLog(server);
      const paths = async (q: Parameters<typeof listRequests>[2]) =>
        (await listRequests(server.services, user.idUser, q)).rows.map((r) => `${r.status} ${r.path}`);
      assert.deepEqual(await paths({ status: '404' }), ['404 /ws/v2.0/products/999999999']);
      assert.deepEqual(await paths({ status: '4xx' }), ['404 /ws/v2.0/products/999999999']);
      assert.deepEqual(await paths({ status: 'ok' }), ['200 /ws/v2.0/games', '200 /ws/v2.0/account']);
      assert.deepEqual(await paths({ path: 'ACCOUNT' }), ['200 /ws/v2.0/account']);
      assert.deepEqual(await paths({ path: '%' }), []);
      assert.equal((await paths({ idApp: String(cred.idApp) })).length, 3);
      assert.deepEqual(await paths({ idApp: String(cred.idApp + 1000) }), []);
      await assert.rejects(
        listRequests(server.services, user.idUser, { status: 'teapot' }),
        /status must be/,
      );
    });

    it('never stores oauth_signature from the query', () => {
      assert.equal(withoutSignatureParam('a=1&oauth_signature=abc%3D&b=2'), 'a=1&b=2');
      assert.equal(withoutSignatureParam('oauth%5Fsignature=abc'), '');
      assert.equal(
        withoutSignatureParam('oauth_signature_method=HMAC-SHA1'),
        'oauth_signature_method=HMAC-SHA1',
      );
      assert.equal(
        withoutSignature('OAuth oauth_signature="a%2Fb%3D", realm="r",oauth_signature_method="HMAC-SHA1"'),
        'OAuth realm="r",oauth_signature_method="HMAC-SHA1"',
      );
      assert.equal(
        withoutSignature('OAuth realm="r", oauth_nonce="n", oauth_signature=raw+/=='),
        'OAuth realm="r", oauth_nonce="n"',
      );
    });
  });

  describe(`the request log's bound (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ dialect, config: { requestLogRows: 5 } });
    });
    after(() => server.close());

    it('keeps the newest REQUEST_LOG_ROWS rows per user, within one batch and across batches', async () => {
      const { user, api } = await createTestClient(server);
      const other = await createTestClient(server);
      for (let i = 0; i < 8; i++) await api.get(`/games?n=${i}`);
      await other.api.get('/account');
      assert.deepEqual(
        (await rowsOf(server, user.idUser)).map((r) => r.query),
        ['n=3', 'n=4', 'n=5', 'n=6', 'n=7'],
      );
      for (let i = 8; i < 11; i++) {
        await api.get(`/games?n=${i}`);
        await flushRequestLog(server);
      }
      assert.deepEqual(
        (await rowsOf(server, user.idUser)).map((r) => r.query),
        ['n=6', 'n=7', 'n=8', 'n=9', 'n=10'],
      );
      assert.equal((await rowsOf(server, other.user.idUser)).length, 1, 'another user keeps theirs');
    });

    it('writes the rows still buffered when the server closes', async () => {
      const own = await startTestServer({ dialect });
      const { user, api } = await createTestClient(own);
      await api.get('/account');
      await new Promise((resolve) => setImmediate(resolve));
      const db = own.services.database.db;
      // Read before closing through a second look after: close() must flush.
      const recorder = own.services.requestLog!;
      let written = 0;
      const original = recorder.flush.bind(recorder);
      recorder.flush = async () => {
        await original();
        written = Number(
          (
            await db
              .selectFrom('requestLog')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('idUser', '=', user.idUser)
              .executeTakeFirstOrThrow()
          ).n,
        );
      };
      await own.close();
      assert.equal(written, 1);
    });
  });

  describe(`the request log in production (${dialect})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ dialect, config: { mode: 'production', publicBaseUrl: BASE } });
    });
    after(() => server.close());

    it('keeps no base string', async () => {
      const { user, api } = await createTestClient(server);
      const res = await api.get('/account', { signUrl: `${api.url('/account')}?x=1` });
      assert.equal(res.status, 401);
      const [row] = await rowsOf(server, user.idUser);
      assert.equal(row!.internalErrorCode, 'invalid_signature');
      assert.equal(row!.baseString, null);
    });
  });
}
