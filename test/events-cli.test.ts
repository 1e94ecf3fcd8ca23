import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testConfig } from '../src/config.js';
import { runCli } from './cli-helpers.js';
import { startFileTestServer, type TestServer } from './helpers.js';
import { createTrader, offer, type Trader } from './trading-helpers.js';
import { type Receiver, startReceiver, verifySignature } from './webhook-receiver.js';

const KEY = testConfig().secretKey!;

describe('cardbazaar webhook and events (sqlite file)', () => {
  let file: string;
  let server: TestServer;
  let seller: Trader;
  let hook: Receiver;
  const cli = (...args: string[]) => runCli('--database-url', file, '--secret-key', KEY, ...args);

  before(async () => {
    const started = await startFileTestServer();
    server = started;
    file = started.databaseUrl;
    seller = await createTrader(server, { name: 'clishop' });
    await offer(server, seller.user, { count: 5, price: 120 });
    hook = await startReceiver();
  });
  after(async () => {
    await server.close();
    await hook.close();
  });

  it('webhook create/list/delete manage an endpoint; the server signs deliveries with the printed secret', async () => {
    const created = await cli(
      'webhook',
      'create',
      '--user',
      seller.user.username,
      '--url',
      hook.url,
      '--kinds',
      'message.received',
    );
    assert.equal(created.code, 0, created.err);
    const endpoint = JSON.parse(created.out);
    assert.equal(endpoint.url, hook.url);
    assert.deepEqual(endpoint.kinds, ['message.received']);
    assert.equal(endpoint.enabled, true);
    assert.match(endpoint.secret, /^whsec_[A-Za-z0-9_-]{43}$/);

    const triggered = await cli('events', 'trigger', 'message.received', '--user', seller.user.username);
    assert.equal(triggered.code, 0, triggered.err);
    assert.match(triggered.out, /#\d+\s+message\.received\s+from Cardbazaar System: A test message/);
    // The command ran on real time; the test server's marketplace clock stood still since it started.
    server.clock.set(Date.now() + 1000);
    await server.services.webhooks.deliverDue();
    assert.equal(hook.received.length, 1);
    const r = hook.received[0]!;
    assert.equal(r.json.type, 'message.received');
    assert.ok(
      verifySignature(
        endpoint.secret,
        r.headers['cardbazaar-signature'] as string,
        r.body,
        Math.floor(Date.now() / 1000),
      ),
    );

    const listed = await cli('webhook', 'list', '--user', seller.user.username);
    assert.equal(listed.code, 0, listed.err);
    const [shown] = JSON.parse(listed.out);
    assert.equal(shown.idEndpoint, endpoint.idEndpoint);
    assert.equal(shown.secret, endpoint.secret);
    assert.equal(shown.recentAttempts.length, 1);
    assert.equal(shown.recentAttempts[0].status, 200);
    assert.equal(shown.recentAttempts[0].type, 'message.received');

    const deleted = await cli('webhook', 'delete', String(endpoint.idEndpoint));
    assert.equal(deleted.code, 0, deleted.err);
    assert.deepEqual(JSON.parse((await cli('webhook', 'list', '--user', seller.user.username)).out), []);
    const again = await cli('webhook', 'delete', String(endpoint.idEndpoint));
    assert.equal(again.code, 1);
    assert.match(again.err, /no webhook endpoint/);
    const bad = await cli('webhook', 'create', '--user', seller.user.username, '--url', 'ftp://x.org/');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /https:\/\//);
  });

  it('events trigger order.stateChanged buys for real and prints the events', async () => {
    const res = await cli(
      'events',
      'trigger',
      'order.stateChanged',
      '--user',
      seller.user.username,
      '--json',
    );
    assert.equal(res.code, 0, res.err);
    const [event] = JSON.parse(res.out);
    assert.equal(event.type, 'order.stateChanged');
    assert.equal(event.idUser, seller.user.idUser);
    assert.equal(event.data.order.state.state, 'bought');
    assert.equal(event.data.order.buyer.username, 'sandbox-buyer');
    const order = await seller.api.get(`/order/${event.data.order.idOrder}`, { json: true });
    assert.equal(order.status, 200);
  });

  it('events listen --forward-to posts each event signed with the secret it prints', async () => {
    const target = await startReceiver();
    try {
      const res = await cli(
        'events',
        'listen',
        '--user',
        seller.user.username,
        '--since',
        '0',
        '--max-events',
        '2',
        '--forward-to',
        target.url,
      );
      assert.equal(res.code, 0, res.err);
      const secret = /signed with (whsec_\S+)/.exec(res.err)?.[1];
      assert.ok(secret, res.err);
      assert.equal(target.received.length, 2);
      for (const r of target.received) {
        assert.ok(
          verifySignature(
            secret,
            r.headers['cardbazaar-signature'] as string,
            r.body,
            Math.floor(Date.now() / 1000),
          ),
        );
        assert.equal(r.json.idUser, seller.user.idUser);
      }
      const lines = res.out.split('\n');
      assert.equal(lines.length, 2);
      assert.match(lines[0]!, /message\.received .*→ 200$/);
      const json = await cli(
        'events',
        'listen',
        '--user',
        seller.user.username,
        '--since',
        '0',
        '--max-events',
        '1',
        '--json',
      );
      assert.equal(JSON.parse(json.out).type, 'message.received');
    } finally {
      await target.close();
    }
  });

  it('refuses unknown kinds, and trigger outside the sandbox', async () => {
    const unknown = await cli('events', 'trigger', 'order.nope', '--user', seller.user.username);
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /Unknown event kind/);
    const production = await runCli(
      '--production',
      '--public-base-url',
      'https://market.example.org',
      '--database-url',
      file,
      '--secret-key',
      KEY,
      'events',
      'trigger',
      'message.received',
      '--user',
      seller.user.username,
    );
    assert.equal(production.code, 1);
    assert.match(production.err, /sandbox helper/);
  });
});
