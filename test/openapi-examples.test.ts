import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type ExamplesFile, indentXml } from '../src/http/openapi.js';
import { checkContract, checkRequestBody } from './contract.js';
import { startTestServer, type TestServer } from './helpers.js';

/**
 * The examples on `/docs` (`docs/openapi-examples.json`, recorded by `npm run openapi:examples`):
 * one for every operation, each still valid against the document (both formats, as the contract
 * tests read answers), and the committed file what the server answers today.
 */
const FILE = new URL('../docs/openapi-examples.json', import.meta.url);

describe('the OpenAPI examples', () => {
  let server: TestServer;
  let doc: any;
  const recorded = JSON.parse(readFileSync(FILE, 'utf8')) as ExamplesFile;
  before(async () => {
    server = await startTestServer();
    const res = await server.app.inject({ method: 'GET', url: '/ws/v2.0/openapi.json' });
    doc = JSON.parse(res.body);
  });
  after(async () => server.close());

  const operations = () =>
    Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
      Object.entries(ops)
        // The sandbox control API is no request of the API: it has no recorded example.
        .filter(([, op]) => !op.tags?.includes('Sandbox control'))
        .map(([method, op]) => ({ path, method, op })),
    );

  it('every operation of the document shows its recorded request, and its answer in each media type', () => {
    const without: string[] = [];
    for (const { path, method, op } of operations()) {
      const example = recorded.operations[op.operationId];
      const sample = op['x-codeSamples']?.[0]?.source as string | undefined;
      if (!example || !sample) {
        without.push(`${method.toUpperCase()} ${path}`);
        continue;
      }
      assert.ok(
        sample.startsWith(`${method.toUpperCase()} /ws/v2.0${example.request.path} HTTP/1.1`),
        `${op.operationId}: ${sample.slice(0, 120)}`,
      );
      if (example.request.authorization !== null)
        assert.ok(sample.includes(`Authorization: ${example.request.authorization}`), op.operationId);
      if (example.request.body !== null)
        assert.equal(
          op.requestBody.content['application/xml'].examples.demo.value,
          indentXml(example.request.body),
          op.operationId,
        );
      for (const p of op.parameters ?? [])
        if (p.in === 'path') assert.notEqual(p.example, undefined, `${op.operationId}: ${p.name}`);
      const answer = op.responses[String(example.status)];
      assert.ok(answer, `${op.operationId}: the status ${example.status} is declared`);
      assert.ok(example.status < 400, `${op.operationId} answered ${example.status}`);
      for (const [mediaType, media] of Object.entries((answer.content ?? {}) as Record<string, any>)) {
        if (example.omitted) continue;
        assert.ok(media.examples?.demo, `${op.operationId} ${example.status} ${mediaType} has no example`);
      }
    }
    assert.deepEqual(without, [], 'operations without an example');
    assert.equal(Object.keys(recorded.operations).length, operations().length);
  });

  it('every example is valid against the document: answers in XML and JSON, request bodies', () => {
    let answers = 0;
    for (const [id, example] of Object.entries(recorded.operations)) {
      const { method, path, body } = example.request;
      const xmlUrl = `/ws/v2.0${path}`;
      const jsonUrl = `/ws/v2.0/output.json${path}`;
      if (body !== null) checkRequestBody(server.services, method, xmlUrl, body);
      if (example.xml !== undefined) {
        checkContract(server.services, method, xmlUrl, {
          status: example.status,
          contentType: 'application/xml; charset=utf-8',
          body: example.xml,
        });
        checkContract(server.services, method, jsonUrl, {
          status: example.status,
          contentType: 'application/json; charset=utf-8',
          body: JSON.stringify(example.json),
        });
        answers += 2;
      } else if (example.mediaType === 'application/json') {
        checkContract(server.services, method, jsonUrl, {
          status: example.status,
          contentType: example.mediaType,
          body: JSON.stringify(example.body),
        });
        answers++;
      } else {
        assert.ok(example.location ?? example.omitted, `${id}: no answer recorded`);
      }
    }
    assert.ok(answers > 120, `${answers} answers checked`);
  });

  it('an example that breaks its schema is caught (a field of the wrong type)', () => {
    const account = recorded.operations.getAccount!;
    const broken = JSON.parse(JSON.stringify(account.json));
    broken.account.idUser = 'one';
    assert.throws(
      () =>
        checkContract(server.services, 'GET', '/ws/v2.0/output.json/account', {
          status: 200,
          contentType: 'application/json',
          body: JSON.stringify(broken),
        }),
      /Contract: GET \/account \(getAccount\), JSON answered 200: the body does not match .*idUser/,
    );
    assert.throws(
      () =>
        checkContract(server.services, 'GET', '/ws/v2.0/account', {
          status: 200,
          contentType: 'application/xml',
          body: account.xml!.replace(/<idUser>\d+<\/idUser>/, '<idUser>one</idUser>'),
        }),
      /XML answered 200: the body does not match/,
    );
    assert.throws(
      () =>
        checkRequestBody(
          server.services,
          'PUT',
          '/ws/v2.0/shoppingcart/shippingmethod/1',
          '<request><idShippingMethod>fast</idShippingMethod></request>',
        ),
      /the request body does not match/,
    );
  });

  it('the page shows the XML indented, the same elements as recorded', () => {
    const account = recorded.operations.getAccount!;
    const shown = doc.paths['/account'].get.responses['200'].content['application/xml'].examples.demo.value;
    assert.equal(shown, indentXml(account.xml!));
    assert.match(
      shown,
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<response>\n {2}<account>\n {4}<idUser>\d+<\/idUser>\n/,
    );
    assert.equal(shown.replace(/\n\s*/g, ''), account.xml!.replace(/\n/g, ''));
    assert.deepEqual(
      doc.paths['/account'].get.responses['200'].content['application/json'].examples.demo.value,
      account.json,
    );
  });

  it('the recorded answers are real: the demo seller, a signed request with the fixed clock', () => {
    const account = recorded.operations.getAccount!;
    assert.equal((account.json as any).account.username, 'demo-seller');
    assert.match(account.xml!, /<username>demo-seller<\/username>/);
    assert.match(
      account.request.authorization!,
      /^OAuth realm="http:\/\/127\.0\.0\.1:8080\/ws\/v2\.0\/account", /,
    );
    assert.match(account.request.authorization!, /oauth_timestamp="1772445600"/);
    const cart = recorded.operations.putShoppingcart!;
    assert.match(cart.request.body!, /<action>add<\/action>/);
    assert.equal((cart.json as any).shoppingCart[0].article[0].count, 2);
    assert.equal(recorded.operations.getAuthenticateAppToken!.status, 303);
    assert.match(recorded.operations.getAuthenticateAppToken!.location!, /^\/authorize\/\w+\?lang=en$/);
  });

  it('the committed file is what the server answers today (npm run openapi:examples -- --check)', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'scripts/openapi-examples/generate.ts', '--check'],
      { cwd: new URL('..', import.meta.url), encoding: 'utf8', timeout: 240_000 },
    );
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /is current \(69 operations\)/);
  });
});
