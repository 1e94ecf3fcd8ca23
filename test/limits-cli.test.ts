import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { testConfig } from '../src/config.js';
import { berlinDay } from '../src/limits/berlin-day.js';
import { OPERATOR_HEADER, OPERATOR_PREFIX, operatorHeader } from '../src/limits/operator.js';
import type { UsageReport } from '../src/limits/usage.js';
import { runCli } from './cli-helpers.js';
import {
  type ApiClient,
  createTestClient,
  describeUnless,
  NO_REDIS,
  startFileTestServer,
  type TestServer,
} from './helpers.js';

/**
 * `cardbazaar limits show|reset --user NAME`, run in-process as a user would run it beside a
 * server: against Redis directly when REDIS_URL is set, else through the running server's operator
 * path (the counts then live only in that server's memory).
 */

const SECRET = testConfig().secretKey!;

/** A port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

const cli = (args: string[]) => runCli('--secret-key', SECRET, ...args);

describe('limits show and reset, counts in the server’s memory', () => {
  let server: TestServer & { databaseUrl: string };
  let port: number;
  let api: ApiClient;
  let username: string;
  before(async () => {
    server = await startFileTestServer({ limitsEnabled: true, limitsDailyPrivate: 50 });
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    port = (server.app.server.address() as AddressInfo).port;
    const client = await createTestClient(server, { accountType: 'private' });
    api = client.api;
    username = client.user.username;
  });
  after(() => server.close());

  const args = () => ['--database-url', server.databaseUrl, '--host', '127.0.0.1', '--port', String(port)];

  it('shows the counts the running server keeps', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await api.get('/account')).status, 200);
    await api.get('/account/messages-that-do-not-exist'); // not a route: not counted
    const { out, code } = await cli([...args(), 'limits', 'show', '--user', username]);
    assert.equal(code, 0);
    const report: UsageReport = JSON.parse(out);
    const day = berlinDay(server.clock.now());
    assert.deepEqual(report, {
      user: username,
      idUser: api.cred.idUser,
      accountType: 'private',
      store: 'memory',
      day: day.key,
      resetsAt: report.resetsAt,
      daily: { count: 3, max: 50 },
      marketplace: { count: 0, max: 30000 },
      perMinute: { max: 600, apps: [{ idApp: api.cred.idApp, count: 3 }] },
    });
    assert.match(report.resetsAt, /T00:00:00\+0[12]00$/);
  });

  it('resets them, and the next request counts from one', async () => {
    const { out, code } = await cli([...args(), 'limits', 'reset', '--user', username]);
    assert.equal(code, 0);
    const report: UsageReport = JSON.parse(out);
    assert.deepEqual(report.daily, { count: 0, max: 50 });
    assert.deepEqual(report.perMinute.apps, []);
    const next = await api.get('/account');
    assert.equal(next.headers['x-request-limit-count'], '1');
  });

  it('says plainly that there is nothing to show or reset when no server runs', async () => {
    const closed = [
      '--database-url',
      server.databaseUrl,
      '--host',
      '127.0.0.1',
      '--port',
      String(await closedPort()),
    ];
    const show = await cli([...closed, 'limits', 'show', '--user', username]);
    assert.equal(show.code, 1);
    assert.match(show.err, /No server is running there: without REDIS_URL the counts live in the memory/);
    const reset = await cli([...closed, 'limits', 'reset', '--user', username]);
    assert.equal(reset.code, 0);
    assert.match(reset.out, /there are no counts to clear/);
  });

  it('names an unknown user', async () => {
    const res = await cli([...args(), 'limits', 'show', '--user', 'nobody-at-all']);
    assert.equal(res.code, 1);
    assert.match(res.err, /There is no user "nobody-at-all"/);
  });

  it('lets only the holder of the server key use the operator path', async () => {
    const path = OPERATOR_PREFIX + encodeURIComponent(username);
    const ask = (header?: string, method: 'GET' | 'DELETE' = 'GET') =>
      server.app.inject({ method, url: path, headers: header ? { [OPERATOR_HEADER]: header } : {} });
    const now = server.wallClock.now();
    assert.equal((await ask()).statusCode, 401);
    assert.equal(
      (await ask(operatorHeader('another-key-another-key-another-key', 'GET', path, now))).statusCode,
      401,
    );
    assert.equal((await ask(operatorHeader(SECRET, 'GET', path, now - 120_000))).statusCode, 401, 'stale');
    assert.equal(
      (await ask(operatorHeader(SECRET, 'GET', path, now), 'DELETE')).statusCode,
      401,
      'signed for GET',
    );
    assert.equal((await ask(operatorHeader(SECRET, 'GET', `${OPERATOR_PREFIX}x`, now))).statusCode, 401);
    const good = await ask(operatorHeader(SECRET, 'GET', path, now));
    assert.equal(good.statusCode, 200);
    assert.equal(JSON.parse(good.body).user, username);
    const unknown = `${OPERATOR_PREFIX}nobody-at-all`;
    assert.equal(
      (
        await server.app.inject({
          url: unknown,
          headers: { [OPERATOR_HEADER]: operatorHeader(SECRET, 'GET', unknown, now) },
        })
      ).statusCode,
      404,
    );
  });
});

describeUnless(NO_REDIS, 'limits show and reset, counts in Redis', () => {
  let server: TestServer & { databaseUrl: string };
  let api: ApiClient;
  let username: string;
  const prefix = `test:limits:${randomBytes(6).toString('hex')}:`;
  before(async () => {
    server = await startFileTestServer({
      redisUrl: process.env.TEST_REDIS_URL,
      limitsRedisPrefix: prefix,
      limitsEnabled: true,
    });
    const client = await createTestClient(server, { accountType: 'professional' });
    api = client.api;
    username = client.user.username;
  });
  after(() => server.close());

  // No server needs to run: the CLI reads and clears the counts in Redis itself.
  const args = () => [
    '--database-url',
    server.databaseUrl,
    '--redis-url',
    process.env.TEST_REDIS_URL!,
    '--limits-redis-prefix',
    prefix,
    '--port',
    '1',
  ];

  it('shows and resets the counts every instance shares', async (t) => {
    for (let i = 0; i < 4; i++) assert.equal((await api.get('/account')).status, 200);
    const shown = await cli([...args(), 'limits', 'show', '--user', username]);
    assert.equal(shown.code, 0, shown.err);
    const report: UsageReport = JSON.parse(shown.out);
    assert.equal(report.store, 'redis');
    assert.equal(report.accountType, 'professional');
    // The CLI reads the day by the real clock; the test server's clock stood still at its start.
    if (report.day !== berlinDay(server.clock.now()).key) return t.skip('ran across Berlin midnight');
    assert.deepEqual(report.daily, { count: 4, max: 100000 });

    const reset = await cli([...args(), 'limits', 'reset', '--user', username]);
    assert.equal(reset.code, 0, reset.err);
    assert.deepEqual(JSON.parse(reset.out).daily, { count: 0, max: 100000 });
    assert.equal((await api.get('/account')).headers['x-request-limit-count'], '1');
  });
});
