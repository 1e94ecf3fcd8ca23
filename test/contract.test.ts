import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { CONTRACT_FAILURE_HEADER, type ContractFailure, installContractCheck } from './contract.js';
import { createTestClient, startTestServer, type TestServer } from './helpers.js';

/**
 * The contract hook `startTestServer` installs (test/contract.ts): answers under /ws/v2.0 that break
 * the OpenAPI document fail the test that got them, however it asked. The API's own answers keep to
 * the document, so the hook is tried here on a bare Fastify app answering wrong ones.
 */
describe('the contract hook', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.close());

  async function wrongApp(failures: ContractFailure[]) {
    const app = Fastify();
    installContractCheck(app, server.services, failures);
    app.get('/ws/v2.0/output.json/account', async (_req, reply) =>
      reply.type('application/json; charset=utf-8').send(JSON.stringify({ account: { idUser: 'one' } })),
    );
    app.get('/ws/v2.0/games', async (_req, reply) =>
      reply
        .code(418)
        .type('application/xml; charset=utf-8')
        .send('<?xml version="1.0" encoding="UTF-8"?>\n<response/>'),
    );
    app.get('/ws/v2.0/output.json/games', async (_req, reply) =>
      reply.type('application/json; charset=utf-8').send(Readable.from(['{"game":', '[{"idGame":"x"}]}'])),
    );
    app.get('/ws/v2.0/output.json/users/find', async (_req, reply) =>
      reply.type('application/json; charset=utf-8').send(JSON.stringify({ user: [] })),
    );
    app.get('/elsewhere', async () => ({ anything: true }));
    await app.ready();
    return app;
  }

  it('replaces a wrong answer by a 500 that names the operation, and records it', async () => {
    const failures: ContractFailure[] = [];
    const app = await wrongApp(failures);
    const json = await app.inject({ method: 'GET', url: '/ws/v2.0/output.json/account' });
    assert.equal(json.statusCode, 500);
    assert.equal(json.headers[CONTRACT_FAILURE_HEADER], '1');
    assert.match(
      json.body,
      /^Contract: GET \/account \(getAccount\), JSON answered 200: the body does not match #\/components\/schemas\/GetAccount200: .*idUser/,
    );
    const xml = await app.inject({ method: 'GET', url: '/ws/v2.0/games' });
    assert.equal(xml.statusCode, 500);
    assert.match(xml.body, /GET \/games \(getGames\), XML answered 418: status 418 is not declared/);
    assert.deepEqual(
      failures.map((f) => `${f.method} ${f.url}`),
      ['GET /ws/v2.0/output.json/account', 'GET /ws/v2.0/games'],
    );
    // Outside /ws, nothing is checked; a right answer goes out unchanged.
    assert.equal((await app.inject({ method: 'GET', url: '/elsewhere' })).statusCode, 200);
    const right = await app.inject({ method: 'GET', url: '/ws/v2.0/output.json/users/find' });
    assert.equal(right.statusCode, 200, right.body);
    assert.equal(failures.length, 2);
    await app.close();
  });

  it('checks a streamed answer as it goes out (recorded: its status has gone)', async () => {
    const failures: ContractFailure[] = [];
    const app = await wrongApp(failures);
    const res = await app.inject({ method: 'GET', url: '/ws/v2.0/output.json/games' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, '{"game":[{"idGame":"x"}]}');
    assert.equal(failures.length, 1);
    assert.match(
      failures[0]!.message,
      /GET \/games \(getGames\), JSON answered 200: the body does not match/,
    );
    await app.close();
  });

  it('the test server holds real answers to it: ApiClient and raw inject alike pass', async () => {
    const { api } = await createTestClient(server);
    assert.equal((await api.get('/account', { json: true })).status, 200);
    const raw = await server.app.inject({ method: 'GET', url: '/ws/v2.0/openapi.json' });
    assert.equal(raw.statusCode, 200);
    assert.deepEqual(server.contractFailures, []);
  });

  it('closing a test server fails with the failures no request reported', async () => {
    const other = await startTestServer();
    other.contractFailures.push({
      method: 'GET',
      url: '/ws/v2.0/games',
      message: 'Contract: …',
      reported: false,
    });
    await assert.rejects(
      other.close(),
      /1 answer\(s\) broke the OpenAPI document:\nGET \/ws\/v2\.0\/games: Contract: …/,
    );
  });
});
