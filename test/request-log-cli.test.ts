import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatRequestLine } from '../src/cli/request-log.js';
import { runCli } from './cli-helpers.js';
import {
  ApiClient,
  createTestClient,
  signedHeader,
  startFileTestServer,
  type TestServer,
} from './helpers.js';

/** `cardbazaar requests tail` beside a running server, and `cardbazaar oauth explain`. */
describe('the request log commands', () => {
  let server: TestServer & { databaseUrl: string };
  let api: ApiClient;
  let username: string;
  before(async () => {
    server = await startFileTestServer();
    const client = await createTestClient(server);
    api = client.api;
    username = client.user.username;
  });
  after(() => server.close());

  const flush = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    await server.services.requestLog!.flush();
  };
  const db = () => ['--database-url', server.databaseUrl];

  it('prints the latest requests, oldest first, one line each', async () => {
    await api.get('/account');
    await api.get('/games?lang=fr');
    await api.get('/products/999999999', { json: true });
    await flush();
    const res = await runCli(...db(), 'requests', 'tail', '--user', username, '--lines', '2', '--no-follow');
    assert.equal(res.code, 0, res.err);
    const lines = res.out.split('\n');
    assert.equal(lines.length, 2);
    assert.match(
      lines[0]!,
      /^\d{4}-\d\d-\d\dT\S+Z {2}200 {2}GET {5}\/ws\/v2\.0\/games\?lang=fr {2}\d+\.\d ms {2}app \d+$/,
    );
    assert.match(
      lines[1]!,
      /^\S+ {2}404 {2}GET {5}\/ws\/v2\.0\/output\.json\/products\/999999999 {2}\S+ ms {2}app \d+$/,
    );
    assert.ok(!res.out.includes('\u001b['), 'no colours when not on a terminal');
  });

  it('follows new requests as the server records them', async () => {
    const tail = runCli(
      ...db(),
      'requests',
      'tail',
      '--user',
      username,
      '--lines',
      '0',
      '--count',
      '2',
      '--interval',
      '50',
    );
    let done = false;
    void tail.finally(() => (done = true));
    for (let i = 0; i < 100 && !done; i++) {
      await api.get(`/games?n=${i}`);
      await flush();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const res = await tail;
    assert.equal(res.code, 0, res.err);
    const lines = res.out.split('\n');
    assert.equal(lines.length, 2);
    const n = lines.map((l) => Number(/games\?n=(\d+)/.exec(l)![1]));
    assert.equal(n[1], n[0]! + 1, 'consecutive requests, in order');
  });

  it('colours a line by its status on a terminal', () => {
    const row = {
      idRequest: 1,
      idUser: 1,
      idApp: null,
      time: 0,
      method: 'GET',
      path: '/ws/v2.0/account',
      query: '',
      status: 401,
      durationMicros: 1500,
      internalErrorCode: 'invalid_signature',
      signedOver: null,
    };
    assert.equal(
      formatRequestLine(row, true),
      '\u001b[33m1970-01-01T00:00:00.000Z  401  GET     /ws/v2.0/account  1.5 ms  invalid_signature\u001b[0m',
    );
    assert.ok(formatRequestLine({ ...row, status: 503 }, true).startsWith('\u001b[31m'));
    assert.ok(formatRequestLine({ ...row, status: 200 }, true).startsWith('\u001b[32m'));
    assert.equal(
      formatRequestLine(
        { ...row, status: 200, internalErrorCode: null, signedOver: 'https://apiv2.cardmarket.com' },
        false,
      ),
      '1970-01-01T00:00:00.000Z  200  GET     /ws/v2.0/account  1.5 ms  signed for https://apiv2.cardmarket.com',
    );
  });

  it('refuses an unknown user and bad numbers', async () => {
    const res = await runCli(...db(), 'requests', 'tail', '--user', 'nobody-here', '--no-follow');
    assert.equal(res.code, 1);
    assert.match(res.err, /There is no user "nobody-here"/);
    const bad = await runCli(...db(), 'requests', 'tail', '--user', username, '--lines', '-3');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /--lines must be a whole number/);
  });

  it('oauth explain: valid, and the query left out named, with exit codes', async () => {
    const cred = api.cred;
    const url = `${api.url('/games')}?lang=de`;
    const good = signedHeader(cred, 'GET', url);
    const common = ['--consumer-secret', cred.appSecret, '--token-secret', cred.accessTokenSecret];
    const ok = await runCli('oauth', 'explain', '--url', url, '--authorization', good, ...common);
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, /^valid: The signature is valid\./);
    assert.match(
      ok.out,
      /3\. The base string\n {2}GET&http%3A%2F%2Fapi\.cardbazaar\.test%2Fws%2Fv2\.0%2Fgames&lang%3Dde%26oauth_consumer_key/,
    );
    assert.ok(!ok.out.includes(cred.appSecret) && !ok.out.includes(cred.accessTokenSecret), 'secrets masked');

    const noQuery = signedHeader(cred, 'GET', api.url('/games'));
    const bad = await runCli('oauth', 'explain', '--url', url, '--authorization', noQuery, ...common);
    assert.equal(bad.code, 1);
    assert.match(bad.out, /^mismatch: /);
    assert.match(bad.out, /- query_left_out: The query was left out of the signature/);
    assert.match(bad.out, /First difference at character \d+, in the parameter lang\./);

    const json = await runCli(
      'oauth',
      'explain',
      '--url',
      url,
      '--authorization',
      noQuery,
      ...common,
      '--json',
    );
    const parsed = JSON.parse(json.out);
    assert.equal(parsed.verdict, 'mismatch');
    assert.deepEqual(
      parsed.mistakes.map((m: { code: string }) => m.code),
      ['query_left_out'],
    );

    // The server's 401 shows the same base string the command computes.
    const res = await api.get('/games?lang=de', { headers: { authorization: noQuery } });
    assert.equal(res.status, 401);
    assert.equal(parsed.baseString, res.headers['x-oauth-base-string']);
  });
});
