import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createCoupon } from '../src/domain/account.js';
import { createTestClient, signedHeader, startTestServer, type TestServer, xmlRequest } from './helpers.js';

/**
 * What Node's HTTP server answers by itself unless told otherwise (Expect, CONNECT, methods the
 * router does not know), tried through real sockets: each must be the API's answer, with the error
 * body and every CORS header naming the resource's methods.
 */

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes on a fresh connection and reads the answer until the server closes it. */
function raw(port: number, request: string | Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString();
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

function assertApiError(res: RawAnswer, status: number, allowed: string) {
  assert.equal(res.status, status, res.body);
  assert.equal(res.headers['access-control-allow-origin'], '*');
  assert.equal(res.headers['access-control-allow-methods'], allowed);
  assert.ok(res.headers['access-control-expose-headers']);
  if (res.headers['content-type']?.startsWith('application/json')) {
    assert.equal(JSON.parse(res.body).http_status_code, status);
  } else {
    assert.match(res.body, new RegExp(`<http_status_code>${status}</http_status_code>`));
  }
}

describe('wire edges through real sockets', () => {
  let server: TestServer;
  let port: number;
  let host: string;
  before(async () => {
    server = await startTestServer();
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    port = (server.app.server.address() as { port: number }).port;
    host = `127.0.0.1:${port}`;
  });
  after(() => server.close());

  const signed = async (method: string, path: string) => {
    const { cred } = await createTestClient(server);
    return signedHeader(cred, method, `http://${host}${path}`);
  };

  it('an empty Expect: header with a large body is accepted', async () => {
    const code = await createCoupon(server.services, 100);
    const body = xmlRequest(`<couponCode>${code}</couponCode><!--${'x'.repeat(2000)}-->`);
    const path = '/ws/v2.0/output.json/account/coupon';
    const res = await raw(
      port,
      `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${await signed('POST', path)}\r\nContent-Type: application/xml\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect:\r\nConnection: close\r\n\r\n${body}`,
    );
    assert.equal(res.status, 200, res.body);
    assert.equal(JSON.parse(res.body).coupon[0].successful, true);
  });

  it('an expectation the server cannot meet is a 417 with the error body and the resource’s methods', async () => {
    const path = '/ws/v2.0/shoppingcart';
    const res = await raw(
      port,
      `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${await signed('GET', path)}\r\nExpect: something-else\r\nConnection: close\r\n\r\n`,
    );
    assertApiError(res, 417, 'GET, PUT, DELETE, OPTIONS');
    assert.match(res.body, /something-else/);
  });

  it('100-continue on a large body is a 417 naming the resource’s methods, before the body is sent', async () => {
    const path = '/ws/v2.0/output.json/shoppingcart';
    const res = await raw(
      port,
      `PUT ${path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${await signed('PUT', path)}\r\nContent-Type: application/xml\r\nContent-Length: 5000\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    );
    assertApiError(res, 417, 'GET, PUT, DELETE, OPTIONS');
  });

  it('an undecodable path names the methods of the resource it would be', async () => {
    assertApiError(
      await raw(port, `GET /ws/v2.0/stock/%zz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
      400,
      'GET, OPTIONS',
    );
    assertApiError(
      await raw(
        port,
        `GET /ws/v2.0/output.json/wantslist/%zz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      ),
      400,
      'GET, PUT, DELETE, OPTIONS',
    );
  });

  it('CONNECT is a 405 with the error body, not a dropped connection', async () => {
    assertApiError(
      await raw(port, `CONNECT /ws/v2.0/account HTTP/1.1\r\nHost: ${host}\r\n\r\n`),
      405,
      'GET, OPTIONS',
    );
    const json = await raw(port, `CONNECT /ws/v2.0/output.json/stock HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    assertApiError(json, 405, 'GET, POST, PUT, DELETE, OPTIONS');
    assert.match(json.headers['content-type']!, /application\/json/);
    // The proxy form names no resource here.
    assertApiError(
      await raw(port, `CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n`),
      405,
      'OPTIONS',
    );
  });

  it('TRACE and PROPFIND on a resource are 405 with its methods; on no resource 404', async () => {
    const trace = await raw(
      port,
      `TRACE /ws/v2.0/account HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    );
    assertApiError(trace, 405, 'GET, OPTIONS');
    assert.equal(trace.headers.allow, 'GET, OPTIONS');
    const propfind = await raw(
      port,
      `PROPFIND /ws/v2.0/output.json/stock/1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    );
    assertApiError(propfind, 405, 'GET, OPTIONS');
    const missing = await raw(
      port,
      `TRACE /ws/v2.0/nothing HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    );
    assert.equal(missing.status, 404);
  });
});
