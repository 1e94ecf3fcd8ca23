import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { exportBuildsSettled, STALE_BUILD_MS } from '../src/domain/exports.js';
import type { User } from '../src/store/schema.js';
import { createArticle, createProduct, type ProductFixture } from './fixtures.js';
import {
  type ApiClient,
  createTestClient,
  createTestUser,
  DIALECTS,
  startTestServer,
  type TestServer,
  xmlValue,
} from './helpers.js';
import { reserve } from './stock-helpers.js';

const EXPORT_FIELDS = [
  'idRequest',
  'idUser',
  'status',
  'startedAt',
  'finishedAt',
  'type',
  'resourceId',
  'url',
];

/** The 202 of every export request, exactly as the live API answers it. */
const ACCEPTED = {
  mkm_error_description:
    'The request has been accepted for processing, but the processing has not been completed.',
  http_status_code: 202,
  http_status_code_description: 'Accepted',
  rfc2616_description_link: 'https://www.rfc-editor.org/rfc/rfc9110.html#name-status-codes',
};

/** The newest of the caller's stock export requests (the POST's answer does not name it, as live). */
async function newestStockExport(api: ApiClient) {
  const list = (await api.get('/exports/stock', { json: true })).json.stockExports;
  return list[list.length - 1];
}

/** Delivers the outbox and waits for the export builds it started. */
async function settle(server: TestServer): Promise<void> {
  await server.services.events.deliverPending();
  await exportBuildsSettled();
}

/** Fetches a download link as a client would: a plain GET, no OAuth. */
async function download(server: TestServer, url: string, gzip = true) {
  const u = new URL(url);
  const res = await server.app.inject({
    method: 'GET',
    url: u.pathname,
    headers: { host: u.host, ...(gzip ? { 'accept-encoding': 'gzip, deflate' } : {}) },
  });
  const body = res.headers['content-encoding'] === 'gzip' ? gunzipSync(res.rawPayload) : res.rawPayload;
  return { status: res.statusCode, headers: res.headers, text: body.toString('utf8') };
}

for (const dialect of DIALECTS) {
  describe(`exports (${dialect})`, () => {
    let server: TestServer;
    let api: ApiClient;
    let seller: User;
    let card: ProductFixture;
    before(async () => {
      server = await startTestServer({ dialect });
      ({ api, user: seller } = await createTestClient(server));
      card = await createProduct(server, { enName: 'Counterspell' });
    });
    after(() => server.close());

    describe('own stock', () => {
      it('POST /exports/stock answers 202 with a pending request, finished once built, with a url', async () => {
        const a = await createArticle(server, seller, card, { count: 3, price: 150 });
        const b = await createArticle(server, seller, card, { count: 1, price: 250, comments: 'in a cart' });
        await reserve(server, await createTestUser(server), b, 1);

        const res = await api.post('/exports/stock', undefined, { json: true });
        assert.equal(res.status, 202, res.text);
        assert.deepEqual(res.json, ACCEPTED);

        const pending = await api.get('/exports/stock', { json: true });
        assert.equal(pending.status, 200);
        const p = pending.json.stockExports[0];
        assert.deepEqual(Object.keys(p), EXPORT_FIELDS);
        assert.equal(p.status, 'pending');
        assert.match(p.startedAt, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
        assert.equal(p.finishedAt, '0000-00-00 00:00:00');
        assert.equal(p.url, '');
        assert.equal(p.type, 'Stock Export');
        assert.equal(p.resourceId, String(seller.idUser));
        const idRequest = p.idRequest;

        await settle(server);

        const one = await api.get(`/exports/stock/${idRequest}`, { json: true });
        assert.equal(one.status, 200);
        const e = one.json.stockExports;
        assert.equal(e.idRequest, idRequest);
        assert.equal(e.status, 'finished');
        assert.match(e.finishedAt, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
        assert.notEqual(e.finishedAt, '0000-00-00 00:00:00');
        assert.match(
          e.url,
          new RegExp(`^http://api\\.cardbazaar\\.test/ws/v2\\.0/exports/files/${idRequest}/[\\w-]{43}$`),
        );

        const file = await download(server, e.url);
        assert.equal(file.status, 200);
        assert.equal(file.headers['content-encoding'], 'gzip');
        assert.match(String(file.headers['content-type']), /^application\/json/);
        const doc = JSON.parse(file.text);
        assert.deepEqual(Object.keys(doc), ['article']);
        const byId = new Map(doc.article.map((x: { idArticle: number }) => [x.idArticle, x]));
        const fa = byId.get(a.idArticle) as Record<string, unknown>;
        assert.equal(fa.count, 3);
        assert.equal(fa.price, 1.5);
        assert.equal(fa.onSale, true);
        assert.ok('lastEdited' in fa);
        assert.ok(!('seller' in fa));
        const fb = byId.get(b.idArticle) as Record<string, unknown>;
        assert.equal(fb.count, 0);
        assert.equal(fb.inShoppingCart, true);

        // Without Accept-Encoding: gzip the same JSON arrives inflated.
        const plain = await download(server, e.url, false);
        assert.equal(plain.headers['content-encoding'], undefined);
        assert.deepEqual(JSON.parse(plain.text), doc);
      });

      it('answers the list and one request in XML', async () => {
        const res = await api.get('/exports/stock');
        assert.match(
          res.text,
          /<stockExports><idRequest>\d+<\/idRequest><idUser>\d+<\/idUser><status>(pending|finished)<\/status>/,
        );
        const id = xmlValue(res.text, 'idRequest');
        const one = await api.get(`/exports/stock/${id}`);
        assert.equal(one.status, 200);
        assert.match(one.text, /<url>http:\/\/api\.cardbazaar\.test\/ws\/v2\.0\/exports\/files\//);
      });

      it('limits an export to one game when asked, and does not build the same request twice', async () => {
        const ygo = await createProduct(server, { idGame: 3 });
        const { api: shop, user } = await createTestClient(server);
        await createArticle(server, user, card);
        const y = await createArticle(server, user, ygo, { isFirstEd: 1 });
        assert.equal((await shop.post('/exports/stock?idGame=3')).status, 202);
        const again = await shop.post('/exports/stock?idGame=3', undefined, { json: true });
        assert.equal(again.status, 202);
        assert.deepEqual(again.json, ACCEPTED);
        const requests = (await shop.get('/exports/stock', { json: true })).json.stockExports;
        assert.equal(requests.length, 1, 'the same pending request, not a second one');
        await settle(server);
        const e = (await shop.get(`/exports/stock/${requests[0].idRequest}`, { json: true })).json
          .stockExports;
        const doc = JSON.parse((await download(server, e.url)).text);
        assert.deepEqual(
          doc.article.map((x: { idArticle: number; isFirstEd: boolean }) => [x.idArticle, x.isFirstEd]),
          [[y.idArticle, true]],
        );
        assert.equal((await shop.post('/exports/stock?idGame=x')).status, 400);
      });

      it('keeps requests and files to their owner: others get 404, a wrong token 404', async () => {
        await api.post('/exports/stock?idGame=6');
        const res = { json: await newestStockExport(api) };
        await settle(server);
        const { api: stranger } = await createTestClient(server);
        assert.equal((await stranger.get(`/exports/stock/${res.json.idRequest}`)).status, 404);
        assert.deepEqual((await stranger.get('/exports/stock', { json: true })).json, { stockExports: [] });
        const url = (await api.get(`/exports/stock/${res.json.idRequest}`, { json: true })).json.stockExports
          .url;
        const forged = url.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A'));
        assert.equal((await download(server, forged)).status, 404);
        const otherId = url.replace(`/files/${res.json.idRequest}/`, `/files/${res.json.idRequest + 1000}/`);
        assert.equal((await download(server, otherId)).status, 404);
        assert.equal((await api.get('/exports/stock/999999')).status, 404);
        assert.equal((await api.get('/exports/stock/abc')).status, 400);
      });

      it('expires requests and their files after 24 hours', async () => {
        const { api: shop, user } = await createTestClient(server);
        await createArticle(server, user, card);
        await shop.post('/exports/stock');
        const res = { json: await newestStockExport(shop) };
        await settle(server);
        const url = (await shop.get(`/exports/stock/${res.json.idRequest}`, { json: true })).json.stockExports
          .url;
        assert.equal((await download(server, url)).status, 200);
        server.clock.advance(24 * 3600 * 1000 + 1000);
        assert.equal((await download(server, url)).status, 410);
        assert.deepEqual((await shop.get('/exports/stock', { json: true })).json.stockExports, []);
        assert.equal((await shop.get(`/exports/stock/${res.json.idRequest}`)).status, 404);
      });

      it('builds again a request whose build died with its process', async () => {
        const { api: shop, user } = await createTestClient(server);
        await createArticle(server, user, card, { comments: 'survivor' });
        await shop.post('/exports/stock');
        const res = { json: await newestStockExport(shop) };
        // A process claimed the build and stopped before finishing it (its event is delivered).
        const db = server.services.database.db;
        await db
          .updateTable('exports')
          .set({ buildingSince: server.clock.now() })
          .where('idRequest', '=', res.json.idRequest)
          .execute();
        await db.updateTable('events').set({ deliveredAt: server.clock.now() }).execute();
        await settle(server);
        assert.equal(
          (await shop.get('/exports/stock', { json: true })).json.stockExports[0].status,
          'pending',
        );
        server.clock.advance(STALE_BUILD_MS + 1000);
        assert.equal(
          (await shop.get('/exports/stock', { json: true })).json.stockExports[0].status,
          'pending',
        );
        await settle(server);
        const e = (await shop.get(`/exports/stock/${res.json.idRequest}`, { json: true })).json.stockExports;
        assert.equal(e.status, 'finished');
        assert.equal(JSON.parse((await download(server, e.url)).text).article[0].comments, 'survivor');
      });

      it('keeps at most 20 requests a day per user', async () => {
        const { api: busy } = await createTestClient(server);
        for (let i = 1; i <= 20; i++) {
          assert.equal((await busy.post(`/exports/stock?idGame=${i}`)).status, 202);
        }
        const res = await busy.post('/exports/stock?idGame=21', undefined, { json: true });
        assert.equal(res.status, 429);
        assert.match(res.json.mkm_error_description, /at most 20/);
        await settle(server);
      });
    });

    describe("another user's offers", () => {
      it('exports the copies on sale, as the marketplace shows them, by id or username', async () => {
        const { user: other } = await createTestClient(server);
        const onSale = await createArticle(server, other, card, { count: 2, price: 777 });
        const reservedAway = await createArticle(server, other, card, { count: 1, price: 778 });
        await reserve(server, seller, reservedAway, 1);

        const res = await api.post(`/exports/userOffers/${other.username}`, undefined, { json: true });
        assert.equal(res.status, 202);
        assert.deepEqual(res.json, ACCEPTED, 'exactly the live answer, nothing more');
        const pending = (await api.get(`/exports/userOffers/${other.idUser}`, { json: true })).json;
        assert.deepEqual(Object.keys(pending), ['userOffersRequests']);
        const p = pending.userOffersRequests;
        assert.deepEqual(Object.keys(p), EXPORT_FIELDS);
        assert.equal(p.status, 'pending');
        assert.equal(p.idUser, seller.idUser);
        assert.equal(p.type, 'User Inventory Export');
        assert.equal(p.resourceId, String(other.idUser));
        assert.match(p.startedAt, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
        assert.equal(p.finishedAt, '0000-00-00 00:00:00');
        assert.equal(p.url, '');
        await settle(server);

        const status = await api.get(`/exports/userOffers/${other.idUser}`, { json: true });
        assert.equal(status.status, 200);
        assert.deepEqual(Object.keys(status.json), ['userOffersRequests']);
        assert.equal(status.json.userOffersRequests.idRequest, p.idRequest);
        assert.equal(status.json.userOffersRequests.status, 'finished');
        assert.match(
          status.json.userOffersRequests.url,
          /^http:\/\/api\.cardbazaar\.test\/ws\/v2\.0\/exports\/files\//,
        );
        const doc = JSON.parse((await download(server, status.json.userOffersRequests.url)).text);
        assert.deepEqual(
          doc.article.map((x: { idArticle: number }) => x.idArticle),
          [onSale.idArticle],
        );
        const a = doc.article[0];
        assert.equal(a.seller.idUser, other.idUser);
        assert.deepEqual(a.prices, [{ price: 7.77, idCurrency: 1, currencyCode: 'EUR' }]);
        assert.ok(!('lastEdited' in a));
        assert.ok(!('onSale' in a));

        const list = await api.get('/exports/userOffers', { json: true });
        assert.ok(
          list.json.userOffersRequests.some((e: { idRequest: number }) => e.idRequest === p.idRequest),
        );
      });

      it('answers the request and its status in XML', async () => {
        const { user: other } = await createTestClient(server);
        const res = await api.post(`/exports/userOffers/${other.idUser}`);
        assert.equal(res.status, 202);
        assert.equal(
          res.text,
          '<?xml version="1.0" encoding="UTF-8"?>\n<response><mkm_error_description>The request has been accepted for processing, but the processing has not been completed.</mkm_error_description><http_status_code>202</http_status_code><http_status_code_description>Accepted</http_status_code_description><rfc2616_description_link>https://www.rfc-editor.org/rfc/rfc9110.html#name-status-codes</rfc2616_description_link></response>',
        );
        const pending = await api.get(`/exports/userOffers/${other.idUser}`);
        assert.match(
          pending.text,
          /<status>pending<\/status>.*<finishedAt>0000-00-00 00:00:00<\/finishedAt><type>User Inventory Export<\/type>.*<url\/>/,
        );
        await settle(server);
        const status = await api.get(`/exports/userOffers/${other.idUser}`);
        assert.match(
          status.text,
          /<userOffersRequests><idRequest>\d+<\/idRequest>.*<status>finished<\/status>/,
        );
        const list = await api.get('/exports/userOffers');
        assert.match(list.text, /<userOffersRequests><idRequest>/);
      });

      it('answers 404 for unknown users and for users never exported', async () => {
        assert.equal((await api.post('/exports/userOffers/no-such-user')).status, 404);
        assert.equal((await api.get('/exports/userOffers/no-such-user')).status, 404);
        const { user: fresh } = await createTestClient(server);
        const res = await api.get(`/exports/userOffers/${fresh.idUser}`, { json: true });
        assert.equal(res.status, 404);
        assert.match(res.json.mkm_error_description, /requested no export/);
      });

      it('exports nothing of a seller on vacation', async () => {
        const { user: away } = await createTestClient(server);
        await createArticle(server, away, card);
        await server.services.database.db
          .updateTable('users')
          .set({ onVacation: 1 })
          .where('idUser', '=', away.idUser)
          .execute();
        await api.post(`/exports/userOffers/${away.idUser}`);
        const requested = (await api.get(`/exports/userOffers/${away.idUser}`, { json: true })).json
          .userOffersRequests;
        await settle(server);
        const e = (await api.get(`/exports/userOffers/${away.idUser}`, { json: true })).json
          .userOffersRequests;
        assert.equal(e.idRequest, requested.idRequest);
        assert.deepEqual(JSON.parse((await download(server, e.url)).text), { article: [] });
      });
    });

    it('refuses widget apps', async () => {
      const { api: widget } = await createTestClient(server, { kind: 'widget' });
      for (const [method, path] of [
        ['POST', '/exports/stock'],
        ['GET', '/exports/stock'],
        ['GET', '/exports/stock/1'],
        ['POST', `/exports/userOffers/${seller.idUser}`],
        ['GET', `/exports/userOffers/${seller.idUser}`],
        ['GET', '/exports/userOffers'],
      ] as const) {
        assert.equal((await widget.request(method, path)).status, 403, `${method} ${path}`);
      }
    });
  });
}
