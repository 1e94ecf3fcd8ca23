import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  type ApiClient,
  countRows,
  createTestClient,
  createTestUser,
  DIALECTS,
  HOST,
  signedHeader,
  startTestServer,
  type TestServer,
  xmlRequest,
} from './helpers.js';
import { createArticle, createProduct } from './fixtures.js';

/**
 * Input a client should never send, each answered with the API's error body and a 4xx, never a 500,
 * and never stored. Run on both dialects: PostgreSQL refuses what SQLite accepts (NUL in text, an
 * integer beyond the 32-bit column), which is where a missing check turns into a 500.
 */
for (const dialect of DIALECTS) {
  describe(`hostile input (${dialect})`, () => {
    let server: TestServer;
    let api: ApiClient;
    let other: Awaited<ReturnType<typeof createTestUser>>;
    before(async () => {
      server = await startTestServer({ dialect });
      ({ api } = await createTestClient(server));
      other = await createTestUser(server);
    });
    after(() => server.close());

    const assertErrorBody = (res: { status: number; text: string; json: any }, status: number) => {
      assert.equal(res.status, status, res.text);
      assert.equal(res.json.http_status_code, status);
      assert.equal(typeof res.json.mkm_error_description, 'string');
    };

    describe('a path the router cannot decode', () => {
      it('is a 400 with the error body in the chosen format and the CORS headers', async () => {
        const json = await server.app.inject({ method: 'GET', url: '/ws/v2.0/output.json/products/%zz' });
        assert.equal(json.statusCode, 400);
        assert.equal(json.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(JSON.parse(json.body).http_status_code, 400);
        assert.equal(json.headers['access-control-allow-origin'], '*');
        const xml = await server.app.inject({ method: 'GET', url: '/ws/v2.0/products/%zz' });
        assert.equal(xml.statusCode, 400);
        assert.match(xml.body, /<mkm_error_description>The request path is not valid/);
      });
    });

    describe('control characters', () => {
      it('in a query value are a 400 naming the parameter', async () => {
        const res = await api.get('/users/find?search=ab%00cd', { json: true });
        assertErrorBody(res, 400);
        assert.equal(res.json.post_data_field, 'search');
      });

      it('in a path parameter are a 400 naming it', async () => {
        const res = await api.get('/users/a%00b', { json: true });
        assertErrorBody(res, 400);
        assert.equal(res.json.post_data_field, 'idUser');
      });

      it('in body text are a 400 naming the element, and nothing is stored', async () => {
        const before = await countRows(server, 'messages');
        for (const ch of ['\u0001', '\u001f', '\u000b', '\uffff']) {
          const res = await api.post(
            `/account/messages/${other.idUser}`,
            xmlRequest(`<message>a${ch}b</message>`),
            { json: true },
          );
          assertErrorBody(res, 400);
          assert.equal(res.json.post_data_field, 'message');
        }
        assert.equal(await countRows(server, 'messages'), before);
      });

      it('leave tab, line feed and carriage return alone', async () => {
        const res = await api.post(
          `/account/messages/${other.idUser}`,
          xmlRequest('<message>line one\n\tline two</message>'),
          { json: true },
        );
        assert.equal(res.status, 200, res.text);
      });
    });

    describe('integers beyond the 32-bit id columns', () => {
      it('in a path: an id is a 400, a user id is looked up as a username (404)', async () => {
        assertErrorBody(await api.get('/products/99999999999', { json: true }), 400);
        assertErrorBody(await api.get('/users/99999999999', { json: true }), 404);
        assertErrorBody(await api.get('/users/99999999999/articles', { json: true }), 404);
      });

      it('in a query are a 400 naming the parameter', async () => {
        const res = await api.get('/products/find?search=abcd&idGame=99999999999', { json: true });
        assertErrorBody(res, 400);
        assert.equal(res.json.post_data_field, 'idGame');
        const languages = await api.get(`/users/${other.idUser}/articles?idLanguage=4294967296`, {
          json: true,
        });
        assertErrorBody(languages, 400);
        assert.equal(languages.json.post_data_field, 'idLanguage');
      });

      it('in a body are refused per article or for the request, and nothing changes', async () => {
        const product = await createProduct(server);
        const article = await createArticle(server, other, product);
        const put = await api.put(
          '/stock',
          xmlRequest('<article><idArticle>4294967297</idArticle><count>1</count></article>'),
          { json: true },
        );
        assert.equal(put.status, 200, put.text);
        assert.equal(put.json.notUpdatedArticles.length, 1);
        const cart = await api.put(
          '/shoppingcart',
          xmlRequest(
            `<action>add</action><article><idArticle>${article.idArticle}</idArticle><count>4294967297</count></article>`,
          ),
          { json: true },
        );
        assertErrorBody(cart, 400);
        assert.equal(cart.json.post_data_field, 'count');
        assert.equal(await countRows(server, 'reservations'), 0);
        const list = await api.post(
          '/wantslist',
          xmlRequest('<wantslist><idGame>4294967297</idGame><name>Big</name></wantslist>'),
          { json: true },
        );
        assert.equal(list.status, 200, list.text);
        assert.deepEqual(list.json.wantslist, []);
        assert.equal(list.json.failed[0].idGame, '4294967297');
        assert.equal(await countRows(server, 'wantslists'), 0);
      });
    });

    describe('body encodings', () => {
      const postMessage = (body: Buffer, contentType: string) =>
        server.app.inject({
          method: 'POST',
          url: `/ws/v2.0/output.json/account/messages/${other.idUser}`,
          headers: {
            host: HOST,
            'content-type': contentType,
            authorization: signedHeader(api.cred, 'POST', api.url(`/account/messages/${other.idUser}`, true)),
          },
          payload: body,
        });

      it('bytes that are not UTF-8 in a UTF-8 body are a 400, not text with replacement marks', async () => {
        const before = await countRows(server, 'messages');
        const res = await postMessage(
          Buffer.from('<request><message>caf\xe9</message></request>', 'latin1'),
          'application/xml',
        );
        assert.equal(res.statusCode, 400, res.body);
        assert.match(JSON.parse(res.body).mkm_error_description, /not valid utf-8/);
        assert.equal(await countRows(server, 'messages'), before);
      });

      it('the XML declaration names the charset when Content-Type does not', async () => {
        const res = await postMessage(
          Buffer.from(
            '<?xml version="1.0" encoding="ISO-8859-1"?><request><message>café</message></request>',
            'latin1',
          ),
          'application/xml',
        );
        assert.equal(res.statusCode, 200, res.body);
        const thread = JSON.parse(res.body);
        assert.equal(thread.message.at(-1).text, 'café');
      });
    });
  });
}

describe('requests Node refuses before routing', () => {
  let server: TestServer;
  let port: number;
  before(async () => {
    server = await startTestServer();
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    port = (server.app.server.address() as { port: number }).port;
  });
  after(() => server.close());

  const raw = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(request));
      let data = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk) => (data += chunk));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });

  it('a control character in a header is a 400 with the XML error body and CORS headers', async () => {
    const res = await raw(
      'GET /ws/v2.0/account HTTP/1.1\r\nHost: x\r\nAuthorization: OAuth a="\u0001"\r\n\r\n',
    );
    assert.match(res, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.match(res, /\r\nAccess-Control-Allow-Origin: \*\r\n/);
    assert.match(res, /<http_status_code>400<\/http_status_code>/);
  });

  it('headers over the size bound are a 431 with the error body', async () => {
    const res = await raw(`GET /ws/v2.0/account HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.match(res, /^HTTP\/1\.1 431 /);
    assert.match(res, /<http_status_code>431<\/http_status_code>/);
  });
});
