import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createCoupon } from '../src/domain/account.js';
import { findCoupon } from '../src/store/coupons.js';
import {
  type ApiClient,
  BASE,
  createTestClient,
  DIALECTS,
  HOST,
  signedHeader,
  startTestServer,
  type TestServer,
  xmlRequest,
} from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`the wire (${dialect})`, () => {
    let server: TestServer;
    let api: ApiClient;
    before(async () => {
      server = await startTestServer({ dialect });
      ({ api } = await createTestClient(server));
    });
    after(() => server.close());

    describe('format selection', () => {
      it('answers XML without a format segment', async () => {
        const res = await api.get('/account');
        assert.equal(res.status, 200);
        assert.equal(res.headers['content-type'], 'application/xml; charset=utf-8');
        assert.ok(res.text.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<response><account>'));
        assert.ok(res.text.endsWith('</response>'));
      });

      it('answers XML with output.xml and JSON with output.json, the same tree', async () => {
        const xml = await api.get('/account');
        const explicitXml = await api.requestUrl('GET', `${BASE}/ws/v2.0/output.xml/account`);
        assert.equal(explicitXml.status, 200);
        assert.equal(explicitXml.headers['content-type'], 'application/xml; charset=utf-8');
        const json = await api.get('/account', { json: true });
        assert.equal(json.status, 200);
        assert.equal(json.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(json.json.account.username, /<username>([^<]+)<\/username>/.exec(xml.text)![1]);
      });

      it('renders booleans as true/false, absent values as null, repeated entities always as arrays', async () => {
        const { json } = await api.get('/account', { json: true });
        assert.equal(json.account.onVacation, false);
        assert.equal(json.account.vat, null);
        assert.ok(Array.isArray(json.links));
        const xml = (await api.get('/account')).text;
        assert.match(xml, /<onVacation>false<\/onVacation>/);
        assert.match(xml, /<vat\/>/);
        assert.equal(xml.match(/<links>/g)?.length, 5);
      });

      it('writes timestamps as ISO 8601 with a numeric offset', async () => {
        const { json } = await api.get('/account', { json: true });
        assert.match(json.account.registerDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}$/);
      });
    });

    describe('retired versions', () => {
      it('answers 410 for /ws/v1.1 naming /ws/v2.0', async () => {
        const res = await api.requestUrl('GET', `${BASE}/ws/v1.1/account`);
        assert.equal(res.status, 410);
        assert.match(res.text, /<mkm_error_description>[^<]*\/ws\/v2\.0/);
        const json = await api.requestUrl('GET', `${BASE}/ws/v1.1/output.json/account`);
        assert.equal(json.status, 410);
        assert.match(String(json.headers['content-type']), /^application\/json/);
        assert.equal(json.json.http_status_code, 410);
        assert.match(json.json.mkm_error_description, /\/ws\/v2\.0/);
        const xml = await api.requestUrl('GET', `${BASE}/ws/v1.1/output.xml/stock`);
        assert.match(xml.text, /<http_status_code>410<\/http_status_code>/);
      });

      it('answers 410 for version 1.0 paths with credentials in them', async () => {
        const res = await api.requestUrl('GET', `${BASE}/ws/someuser/someapikey/account`);
        assert.equal(res.status, 410);
        assert.match(res.text, /version 1\.0[^<]*\/ws\/v2\.0/);
      });
    });

    describe('request bodies', () => {
      it('parses text/xml, application/xml with a charset, and bodies without a Content-Type', async () => {
        for (const type of ['text/xml', 'application/xml; charset=UTF-8', undefined]) {
          const code = await createCoupon(server.services, 100);
          const headers: Record<string, string> = type ? { 'content-type': type } : {};
          const res = await api.request('POST', '/account/coupon', {
            body: xmlRequest(`<couponCode>${code}</couponCode>`),
            headers,
            json: true,
          });
          assert.equal(res.status, 200, `${type}: ${res.text}`);
          assert.equal(res.json.coupon[0].successful, true);
        }
      });

      it('answers 415 for a charset it does not know, changing nothing', async () => {
        const code = await createCoupon(server.services, 100);
        const res = await api.post('/account/coupon', xmlRequest(`<couponCode>${code}</couponCode>`), {
          headers: { 'content-type': 'application/xml; charset=x-klingon' },
          json: true,
        });
        assert.equal(res.status, 415, res.text);
        assert.match(res.json.mkm_error_description, /x-klingon/);
        assert.equal((await findCoupon(server.services.database.db, code))?.redeemedBy, null);
      });

      it('decodes an ISO-8859-1 body by its charset', async () => {
        const code = await createCoupon(server.services, 100, 'CAFÉ-LATIN1');
        const body = Buffer.from(xmlRequest(`<couponCode>${code}</couponCode>`), 'latin1');
        const res = await server.app.inject({
          method: 'POST',
          url: '/ws/v2.0/output.json/account/coupon',
          headers: {
            host: HOST,
            'content-type': 'text/xml; charset=ISO-8859-1',
            authorization: signedHeader(api.cred, 'POST', api.url('/account/coupon', true)),
          },
          payload: body,
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(JSON.parse(res.body).coupon[0].successful, true);
      });

      it('answers 417 for JSON, text, byte and form bodies that are not XML, and changes nothing', async () => {
        const code = await createCoupon(server.services, 100);
        for (const type of ['application/json', 'application/octet-stream', 'text/plain']) {
          const res = await api.post('/account/coupon', xmlRequest(`<couponCode>${code}</couponCode>`), {
            headers: { 'content-type': type },
          });
          assert.equal(res.status, 417, type);
          assert.match(res.text, /<http_status_code>417<\/http_status_code>/);
        }
        // A real form (what the body decides) stays refused, with a message saying what it is.
        const form = await api.post('/account/coupon', `couponCode=${code}`, {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          json: true,
        });
        assert.equal(form.status, 417);
        assert.match(form.json.mkm_error_description, /is a form, not an XML document/);
        assert.equal((await findCoupon(server.services.database.db, code))?.redeemedBy, null);
      });

      it("reads an XML request document declared as a form (curl's and PHP's default type), and its XML mistakes are 400s", async () => {
        for (const type of [
          'application/x-www-form-urlencoded',
          'application/x-www-form-urlencoded; charset=UTF-8',
          'multipart/form-data; boundary=x',
        ]) {
          const code = await createCoupon(server.services, 100);
          const res = await api.post('/account/coupon', xmlRequest(`<couponCode>${code}</couponCode>`), {
            headers: { 'content-type': type },
            json: true,
          });
          assert.equal(res.status, 200, `${type}: ${res.text}`);
          assert.equal(res.json.coupon[0].successful, true);
          assert.notEqual((await findCoupon(server.services.database.db, code))?.redeemedBy, null);
        }
        const code = await createCoupon(server.services, 100);
        const broken = await api.post('/account/coupon', `<request><couponCode>${code}</couponCode>`, {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          json: true,
        });
        assert.equal(broken.status, 400);
        assert.match(broken.json.mkm_error_description, /Malformed XML/);
        const otherRoot = await api.post(
          '/account/coupon',
          `<other><couponCode>${code}</couponCode></other>`,
          {
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            json: true,
          },
        );
        assert.equal(otherRoot.status, 400);
        assert.match(otherRoot.json.mkm_error_description, /root element, named "request"/);
        assert.equal((await findCoupon(server.services.database.db, code))?.redeemedBy, null);
      });

      it('answers 417 for Expect: 100-continue on a body over 1,024 bytes, telling to send an empty Expect', async () => {
        const code = await createCoupon(server.services, 100);
        const big = xmlRequest(`<couponCode>${code}</couponCode><!--${'x'.repeat(1100)}-->`);
        const res = await api.post('/account/coupon', big, { headers: { expect: '100-continue' } });
        assert.equal(res.status, 417);
        assert.match(res.text, /empty Expect/);
        const small = await api.post('/account/coupon', xmlRequest(`<couponCode>${code}</couponCode>`), {
          headers: { expect: '100-continue' },
        });
        assert.equal(small.status, 200);
      });

      it('answers 400 for malformed XML, another root, DOCTYPE and deep nesting, changing nothing', async () => {
        const code = await createCoupon(server.services, 100);
        const bodies = [
          `<request><couponCode>${code}</couponCode>`,
          `<other><couponCode>${code}</couponCode></other>`,
          `<!DOCTYPE r [<!ENTITY a "${code}">]><request><couponCode>&a;</couponCode></request>`,
          `<request>${'<x>'.repeat(60)}${'</x>'.repeat(60)}<couponCode>${code}</couponCode></request>`,
        ];
        for (const body of bodies) {
          const res = await api.post('/account/coupon', body, { json: true });
          assert.equal(res.status, 400, body.slice(0, 40));
          assert.equal(res.json.http_status_code, 400);
          assert.ok(res.json.mkm_error_description.length > 10);
        }
        assert.equal((await findCoupon(server.services.database.db, code))?.redeemedBy, null);
      });

      it('answers 413 for a body over the limit', async () => {
        const res = await api.post('/account/coupon', xmlRequest(`<!--${'x'.repeat(1024 * 1024 + 10)}-->`));
        assert.equal(res.status, 413);
        assert.match(res.text, /<http_status_code>413<\/http_status_code>/);
      });
    });

    describe('errors', () => {
      it('have every field of the error body in XML and in JSON', async () => {
        const xml = await api.put('/account/language?idDisplayLanguage=9');
        assert.equal(xml.status, 400);
        for (const field of [
          'mkm_error_description',
          'http_status_code',
          'http_status_code_description',
          'internal_error_code',
          'post_data_field',
          'rfc2616_description_link',
        ]) {
          assert.match(xml.text, new RegExp(`<${field}(>|/>)`), field);
        }
        const json = await api.put('/account/language?idDisplayLanguage=9', undefined, { json: true });
        assert.deepEqual(Object.keys(json.json).sort(), [
          'http_status_code',
          'http_status_code_description',
          'internal_error_code',
          'mkm_error_description',
          'post_data_field',
          'rfc2616_description_link',
        ]);
        assert.equal(json.json.http_status_code, 400);
        assert.equal(json.json.http_status_code_description, 'Bad Request');
        assert.equal(json.json.post_data_field, 'idDisplayLanguage');
      });

      it('answers 404 for an unknown resource and 405 for a wrong method, in the API error body', async () => {
        const missing = await api.get('/nothing-here', { json: true });
        assert.equal(missing.status, 404);
        assert.equal(missing.json.http_status_code, 404);
        const wrong = await api.delete('/account', undefined, { json: true });
        assert.equal(wrong.status, 405);
        assert.equal(wrong.json.http_status_code, 405);
        assert.equal(wrong.headers['access-control-allow-methods'], 'GET, OPTIONS');
      });
    });

    describe('CORS and OPTIONS', () => {
      const CORS = {
        'access-control-allow-origin': '*',
        'access-control-allow-headers': 'Content-Type, Authorization, X-Requested-With',
        'access-control-expose-headers': 'Content-Range, Range, X-Request-Limit-Count, X-Request-Limit-Max',
      };
      it('are on successes and on errors', async () => {
        for (const res of [
          await api.get('/account'),
          await api.get('/account', { unsigned: true }),
          await api.get('/nope'),
        ]) {
          for (const [k, v] of Object.entries(CORS)) assert.equal(res.headers[k], v, k);
          assert.ok(res.headers['access-control-max-age']);
          assert.ok(res.headers['access-control-allow-methods']);
        }
      });

      it('OPTIONS works without authentication and lists the methods of the resource', async () => {
        const res = await api.request('OPTIONS', '/account/coupon', { unsigned: true });
        assert.equal(res.status, 200);
        assert.equal(res.headers['access-control-allow-methods'], 'POST, OPTIONS');
        const json = await api.request('OPTIONS', '/account', { unsigned: true, json: true });
        assert.equal(json.status, 200);
        assert.equal(json.headers['access-control-allow-methods'], 'GET, OPTIONS');
      });
    });

    it('GET /healthz answers without authentication', async () => {
      const res = await server.app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(JSON.parse(res.body), { status: 'ok', database: 'up' });
    });
  });
}

describe('old base addresses', () => {
  let server: TestServer;
  let api: ApiClient;
  before(async () => {
    server = await startTestServer({
      config: {
        oldBaseUrls: ['old.cardbazaar.test'],
        oldBaseUrlCutoff: Date.UTC(2027, 0, 1),
        publicBaseUrl: BASE,
      },
    });
    ({ api } = await createTestClient(server));
  });
  after(() => server.close());

  it('are served with Deprecation and Sunset headers before the cutoff', async () => {
    const res = await api.requestUrl('GET', 'http://old.cardbazaar.test/ws/v2.0/account');
    assert.equal(res.status, 200, res.text);
    // RFC 9745: `@` and the cutoff in epoch seconds, beside Sunset (RFC 8594) with the same date.
    assert.equal(res.headers.deprecation, `@${Date.UTC(2027, 0, 1) / 1000}`);
    assert.equal(res.headers.sunset, 'Fri, 01 Jan 2027 00:00:00 GMT');
    const current = await api.get('/account');
    assert.equal(current.headers.deprecation, undefined);
  });

  it('answer 410 naming the current base URL after the cutoff', async () => {
    server.wallClock.setOffset(Date.UTC(2027, 0, 2) - Date.now());
    const res = await api.requestUrl('GET', 'http://old.cardbazaar.test/ws/v2.0/output.json/account', {});
    assert.equal(res.status, 410);
    assert.match(res.json.mkm_error_description, /http:\/\/api\.cardbazaar\.test\/ws\/v2\.0/);
  });
});

describe('unexpected faults', () => {
  it('answer 500 with the error body and a request id, never a stack trace', async () => {
    const server = await startTestServer();
    const { api } = await createTestClient(server);
    // A fault inside the route: the table behind the account's unread count is gone. (A database
    // that is down altogether is a 503 from the authentication, which needs it first.)
    await sql`drop table "messages"`.execute(server.services.database.db);
    const res = await api.get('/account', { json: true });
    assert.equal(res.status, 500);
    assert.equal(res.json.http_status_code, 500);
    assert.match(res.json.mkm_error_description, /request id [0-9a-f]{16}/);
    assert.doesNotMatch(res.text, /at .*\.ts:\d+/);
    await server.close();
  });

  it('a database that is down answers 503 with the error body: requests cannot be verified', async () => {
    const server = await startTestServer();
    const { api } = await createTestClient(server);
    await server.services.database.close();
    const res = await api.get('/account', { json: true });
    assert.equal(res.status, 503);
    assert.match(res.json.mkm_error_description, /cannot be verified/);
    await server.app.close();
  });
});
