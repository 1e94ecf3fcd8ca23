import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { APP_KINDS_EXTENSION, openApiPath } from '../src/http/openapi.js';
import { Router } from '../src/http/routing.js';
import { registerRoutes } from '../src/routes/index.js';
import { runCli } from './cli-helpers.js';
import { BASE, createTestClient, startTestServer, type TestServer } from './helpers.js';

/** The OpenAPI document: generated from the routes, complete, valid, served without a signature. */
describe('the OpenAPI document', () => {
  let server: TestServer;
  let doc: any;
  before(async () => {
    server = await startTestServer();
    const res = await server.app.inject({
      method: 'GET',
      url: '/ws/v2.0/openapi.json',
      headers: { host: 'api.cardbazaar.test' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    doc = JSON.parse(res.body);
  });
  after(async () => server.close());

  /** The API's operations (the sandbox control API's, `/_cardbazaar/`, are not the router's: apart). */
  const operations = (d: any, control = false) =>
    Object.entries(d.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => (op.tags?.includes('Sandbox control') ?? false) === control)
        .map(([m]) => `${m.toUpperCase()} ${path}`),
    );

  it('has exactly the operations the server registers: none missing, none extra', () => {
    const router = new Router();
    registerRoutes(router, server.services);
    const registered = router.routeKeys().map((k) => {
      const [method, path] = k.split(' ') as [string, string];
      return `${method} ${openApiPath(path)}`;
    });
    assert.equal(registered.length, 70); // 69 + POST /account/logindata (issue 32)
    assert.deepEqual(operations(doc).sort(), registered.sort());
  });

  it('describes the sandbox control API under its own tag, as an extension with a bearer token', () => {
    const control = operations(doc, true);
    assert.ok(control.includes('POST /_cardbazaar/faults'));
    assert.ok(control.includes('GET /_cardbazaar/clock'));
    assert.ok(control.every((op) => op.split(' ')[1]!.startsWith('/_cardbazaar/')));
    const tag = doc.tags.find((t: { name: string }) => t.name === 'Sandbox control');
    assert.equal(tag['x-cardbazaar-extension'], true);
    const op = doc.paths['/_cardbazaar/clock'].get;
    assert.deepEqual(op.security, [{ ControlToken: [] }]);
    assert.deepEqual(op.servers, [{ url: '/', description: op.servers[0].description }]);
    assert.equal(doc.components.securitySchemes.ControlToken.scheme, 'bearer');
  });

  it('is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)', async () => {
    assert.equal(doc.openapi, '3.1.0');
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  });

  it('names the app kinds, the security scheme, both formats and the XML element names', () => {
    const account = doc.paths['/account'].get;
    assert.deepEqual(account[APP_KINDS_EXTENSION], ['dedicated', 'thirdParty']);
    assert.deepEqual(account.security, [{ OAuth1: [] }]);
    assert.deepEqual(doc.paths['/games'].get[APP_KINDS_EXTENSION], ['dedicated', 'widget', 'thirdParty']);
    assert.deepEqual(doc.paths['/account/logout'].post[APP_KINDS_EXTENSION], ['thirdParty']);
    const own = doc.paths['/openapi.json'].get;
    assert.deepEqual(own[APP_KINDS_EXTENSION], []);
    assert.deepEqual(own.security, []);
    assert.equal(doc.components.securitySchemes.OAuth1.type, 'apiKey');
    assert.equal(doc.components.securitySchemes.OAuth1.name, 'Authorization');
    assert.deepEqual(
      doc.servers.map((s: { url: string }) => s.url),
      ['http://api.cardbazaar.test/ws/v2.0', 'http://api.cardbazaar.test/ws/v2.0/output.json'],
    );
    const ok = account.responses['200'];
    assert.deepEqual(Object.keys(ok.content), ['application/xml', 'application/json']);
    const ref = ok.content['application/xml'].schema.$ref as string;
    const answer = doc.components.schemas[ref.split('/').pop()!];
    assert.deepEqual(answer.xml, { name: 'response' });
    assert.equal(answer.properties.account.$ref, '#/components/schemas/Account');
    assert.deepEqual(doc.components.schemas.Account.properties.homeAddress, {
      $ref: '#/components/schemas/Address',
    });
    const body = doc.paths['/stock'].post.requestBody.content['application/xml'].schema.$ref as string;
    assert.deepEqual(doc.components.schemas[body.split('/').pop()!].xml, { name: 'request' });
  });

  it('documents pagination, limit headers and the error body', () => {
    const find = doc.paths['/products/find'].get.responses;
    assert.ok(find['206'].headers['Content-Range']);
    assert.ok(find['204']);
    assert.ok(find['307'].headers.Location);
    assert.ok(find['200'].headers['X-Request-Limit-Count']);
    assert.equal(find['400'].$ref, '#/components/responses/Error400');
    assert.deepEqual(doc.components.responses.Error400.content['application/json'].schema, {
      $ref: '#/components/schemas/Error',
    });
    assert.deepEqual(doc.components.schemas.Error.required.slice(0, 3), [
      'mkm_error_description',
      'internal_error_code',
      'post_data_field',
    ]);
    // Parameters: an id path parameter with the bounds idParam reads, a repeatable query parameter.
    const params = doc.paths['/articles/{idProduct}'].get.parameters;
    const { example, ...idProduct } = params[0];
    // The example is the product the recorded request asked for (test/openapi-examples.test.ts).
    assert.equal(typeof example, 'number');
    assert.deepEqual(idProduct, {
      name: 'idProduct',
      in: 'path',
      required: true,
      schema: { minimum: 1, maximum: 2147483647, description: 'A positive id.', type: 'integer' },
    });
    const language = params.find((p: { name: string }) => p.name === 'idLanguage');
    assert.equal(language.schema.type, 'array');
    assert.equal(language.explode, true);
  });

  it('explains the signing with a worked example the server itself accepts', async () => {
    const text = doc.info.description as string;
    assert.match(text, /## Signing a request/);
    const m = /Authorization: (OAuth [^\n]+)/.exec(text);
    assert.ok(m, 'the example header');
    assert.match(m[1]!, /oauth_signature="[^"]+"/);
    assert.match(
      text,
      /GET&https%3A%2F%2Fapi\.cardbazaar\.example%2Fws%2Fv2\.0%2Foutput\.json%2Fproducts%2Ffind&/,
    );
  });

  it('is served without a signature, also under output.json, and is what `cardbazaar openapi` prints', async () => {
    const json = await server.app.inject({
      method: 'GET',
      url: '/ws/v2.0/output.json/openapi.json',
      headers: { host: 'api.cardbazaar.test' },
    });
    assert.equal(json.statusCode, 200);
    assert.deepEqual(JSON.parse(json.body), doc);
    const cli = await runCli('openapi', '--public-base-url', 'http://api.cardbazaar.test/');
    assert.equal(cli.code, 0, cli.err);
    assert.deepEqual(JSON.parse(cli.out), doc);
    // Without an address to name, the command's servers stay relative.
    const relative = await runCli('openapi');
    assert.deepEqual(
      JSON.parse(relative.out).servers.map((s: { url: string }) => s.url),
      ['/ws/v2.0', '/ws/v2.0/output.json'],
    );
  });

  it('names the address it was asked at as its server, so an imported document has a host to call', async () => {
    assert.deepEqual(
      doc.servers.map((s: { url: string }) => s.url),
      ['http://api.cardbazaar.test/ws/v2.0', 'http://api.cardbazaar.test/ws/v2.0/output.json'],
    );
    const other = await server.app.inject({
      method: 'GET',
      url: '/ws/v2.0/openapi.json',
      headers: { host: '127.0.0.1:9000' },
    });
    const servers = JSON.parse(other.body).servers.map((s: { url: string }) => s.url);
    assert.deepEqual(servers, ['http://127.0.0.1:9000/ws/v2.0', 'http://127.0.0.1:9000/ws/v2.0/output.json']);
    // The rest of the document does not depend on the address.
    assert.deepEqual({ ...JSON.parse(other.body), servers: doc.servers }, doc);
  });

  it('a signed request to it is fine too', async () => {
    const { api } = await createTestClient(server);
    const res = await api.requestUrl('GET', `${BASE}/ws/v2.0/openapi.json`);
    assert.equal(res.status, 200);
  });
});
