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
    await offer(server, seller.user, { count: 30, price: 120 });
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

  it('events trigger produces every kind for real, with --override fields; unknown fields are refused by name', async () => {
    const wanter = await createTrader(server, { name: 'wanter' });
    const kinds = [
      'message.received',
      'order.stateChanged',
      'article.reserved',
      'article.sold',
      'order.trackingNumberSet',
      'order.cancellationRequested',
      'order.evaluated',
      'wantslist.offerFound',
      'export.ready',
    ];
    for (const kind of kinds) {
      const user = kind === 'wantslist.offerFound' ? wanter.user : seller.user;
      const res = await cli('events', 'trigger', kind, '--user', user.username, '--json');
      assert.equal(res.code, 0, `${kind}: ${res.err}`);
      const events = JSON.parse(res.out);
      assert.ok(events.length >= 1, kind);
      for (const e of events) {
        assert.equal(e.type, kind);
        assert.equal(e.idUser, user.idUser);
      }
    }
    const text = await cli(
      'events',
      'trigger',
      'message.received',
      '--user',
      seller.user.username,
      '--override',
      'text=Hello from a test',
      '--json',
    );
    assert.equal(text.code, 0, text.err);
    assert.equal(JSON.parse(text.out)[0].data.message.text, 'Hello from a test');
    const tracked = await cli(
      'events',
      'trigger',
      'order.trackingNumberSet',
      '--user',
      seller.user.username,
      '--override',
      'trackingNumber=TRK-42',
      '--override',
      'count=2',
      '--json',
    );
    assert.equal(tracked.code, 0, tracked.err);
    const order = JSON.parse(tracked.out)[0].data.order;
    assert.equal(order.trackingNumber, 'TRK-42');
    assert.equal(order.articleCount, 2);
    const evaluated = await cli(
      'events',
      'trigger',
      'order.evaluated',
      '--user',
      seller.user.username,
      '--override',
      'evaluationGrade=3',
      '--override',
      'comment=Slow but fine',
      '--json',
    );
    assert.equal(evaluated.code, 0, evaluated.err);
    assert.equal(JSON.parse(evaluated.out)[0].data.order.evaluation.evaluationGrade, 3);

    const unknown = await cli(
      'events',
      'trigger',
      'message.received',
      '--user',
      seller.user.username,
      '--override',
      'colour=red',
      '--override',
      'size=9',
    );
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /message\.received has no field colour, size; its fields: user, text/);
    const malformed = await cli(
      'events',
      'trigger',
      'article.sold',
      '--user',
      seller.user.username,
      '--override',
      'count',
    );
    assert.equal(malformed.code, 1);
    assert.match(malformed.err, /field=value/);
    const badCount = await cli(
      'events',
      'trigger',
      'article.sold',
      '--user',
      seller.user.username,
      '--override',
      'count=0',
    );
    assert.equal(badCount.code, 1);
    assert.match(badCount.err, /count must be a whole number/);
  });

  it("webhook disable|enable|deliveries|resend: the website's actions from the command line", async () => {
    const target = await startReceiver();
    try {
      const created = await cli(
        'webhook',
        'create',
        '--user',
        seller.user.username,
        '--url',
        target.url,
        '--kinds',
        'message.received',
      );
      assert.equal(created.code, 0, created.err);
      const endpoint = JSON.parse(created.out);
      const id = String(endpoint.idEndpoint);
      const disabled = await cli('webhook', 'disable', id);
      assert.equal(disabled.code, 0, disabled.err);
      assert.equal(JSON.parse(disabled.out).enabled, false);
      assert.equal(
        (await cli('events', 'trigger', 'message.received', '--user', seller.user.username)).code,
        0,
      );
      server.clock.set(Date.now() + 1000);
      await server.services.webhooks.deliverDue();
      assert.equal(target.received.length, 0);

      const enabled = await cli('webhook', 'enable', id);
      assert.equal(enabled.code, 0, enabled.err);
      assert.equal(JSON.parse(enabled.out).enabled, true);
      assert.equal(
        (await cli('events', 'trigger', 'message.received', '--user', seller.user.username)).code,
        0,
      );
      server.clock.set(Date.now() + 1000);
      await server.services.webhooks.deliverDue();
      assert.equal(target.received.length, 1);
      const first = target.received[0]!;
      const idDelivery = first.headers['cardbazaar-delivery-id'];
      assert.match(String(idDelivery), /^\d+$/);
      assert.equal(first.headers['cardbazaar-delivery-attempt'], '1');

      const deliveries = await cli('webhook', 'deliveries', id);
      assert.equal(deliveries.code, 0, deliveries.err);
      const page = JSON.parse(deliveries.out);
      assert.equal(page.total, 1);
      assert.equal(String(page.attempts[0].idDelivery), idDelivery);
      assert.equal(page.attempts[0].status, 200);

      const resent = await cli('webhook', 'resend', String(idDelivery));
      assert.equal(resent.code, 0, resent.err);
      server.clock.set(Date.now() + 2000);
      await server.services.webhooks.deliverDue();
      assert.equal(target.received.length, 2);
      assert.equal(target.received[1]!.headers['cardbazaar-delivery-id'], idDelivery);
      assert.equal(target.received[1]!.json.idEvent, first.json.idEvent);
      assert.equal(JSON.parse((await cli('webhook', 'deliveries', id)).out).total, 2);

      const missing = await cli('webhook', 'resend', '999999');
      assert.equal(missing.code, 1);
      assert.match(missing.err, /no delivery 999999/);
      assert.equal((await cli('webhook', 'delete', id)).code, 0);
    } finally {
      await target.close();
    }
  });

  it('events listen --forward-to retries a failed forward as deliveries do, with the same delivery headers', async () => {
    // Fails twice, then accepts.
    const target = await startReceiver((_r, n) => (n <= 2 ? 500 : 200));
    try {
      const triggered = await cli(
        'events',
        'trigger',
        'message.received',
        '--user',
        seller.user.username,
        '--json',
      );
      assert.equal(triggered.code, 0, triggered.err);
      const last = JSON.parse(triggered.out)[0];
      const res = await cli(
        'events',
        'listen',
        '--user',
        seller.user.username,
        '--since',
        String(last.idEvent - 1),
        '--max-events',
        '1',
        '--forward-to',
        target.url,
        '--first-retry',
        '100ms',
      );
      assert.equal(res.code, 0, res.err);
      const secret = /signed with (whsec_\S+)/.exec(res.err)?.[1];
      assert.ok(secret, res.err);
      assert.equal(target.received.length, 3);
      for (const [i, r] of target.received.entries()) {
        assert.equal(r.headers['cardbazaar-delivery-id'], `listen-${last.idEvent}`);
        assert.equal(r.headers['cardbazaar-delivery-attempt'], String(i + 1));
        assert.equal(r.headers['cardbazaar-event-id'], String(last.idEvent));
        assert.equal(r.headers['user-agent'], 'cardbazaar-webhooks/1');
        assert.ok(
          verifySignature(
            secret,
            r.headers['cardbazaar-signature'] as string,
            r.body,
            Math.floor(Date.now() / 1000),
          ),
        );
      }
      assert.match(res.out, /→ 200 \(attempt 3\)/);
      assert.match(res.err, /→ 500, attempt 1; retrying in \d+ ms/);
    } finally {
      await target.close();
    }
  });

  it('webhook create --strict-order: a failing delivery holds back the later ones until it succeeds', async () => {
    // The first answer fails; every later one succeeds.
    const target = await startReceiver((_r, n) => (n === 1 ? 500 : 200));
    try {
      const created = await cli(
        'webhook',
        'create',
        '--user',
        seller.user.username,
        '--url',
        target.url,
        '--kinds',
        'message.received',
        '--strict-order',
      );
      assert.equal(created.code, 0, created.err);
      const endpoint = JSON.parse(created.out);
      assert.equal(endpoint.strictOrder, true);
      const ids: number[] = [];
      for (const text of ['first', 'second']) {
        const t = await cli(
          'events',
          'trigger',
          'message.received',
          '--user',
          seller.user.username,
          '--override',
          `text=${text}`,
          '--json',
        );
        assert.equal(t.code, 0, t.err);
        ids.push(JSON.parse(t.out)[0].idEvent);
      }
      server.clock.set(Date.now() + 1000);
      await server.services.webhooks.deliverDue();
      // The first failed; the second waits behind it.
      assert.deepEqual(
        target.received.map((r) => r.json.idEvent),
        [ids[0]],
      );
      await server.services.webhooks.deliverDue();
      assert.equal(target.received.length, 1);
      // Past the first retry's delay: the first goes through, then the second.
      server.clock.set(Date.now() + 5 * 60_000);
      await server.services.webhooks.deliverDue();
      await server.services.webhooks.deliverDue();
      assert.deepEqual(
        target.received.map((r) => r.json.idEvent),
        [ids[0], ids[0], ids[1]],
      );

      const off = await cli('webhook', 'strict-order', String(endpoint.idEndpoint), 'off');
      assert.equal(off.code, 0, off.err);
      assert.equal(JSON.parse(off.out).strictOrder, false);
      assert.equal((await cli('webhook', 'delete', String(endpoint.idEndpoint))).code, 0);
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
