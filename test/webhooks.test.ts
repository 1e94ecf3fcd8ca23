import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createApp, issueAccessToken } from '../src/auth/apps.js';
import { exportBuildsSettled } from '../src/domain/exports.js';
import { payOrder, setTrackingNumber } from '../src/domain/orders.js';
import {
  createEndpoint,
  endpointSecret,
  NO_ANSWER,
  postJson,
  PRIVATE_ANSWER,
  RETRY_WINDOW_MS,
  WebhookDeliverer,
  type WebhookSettings,
} from '../src/domain/webhooks.js';
import type { HostLookup } from '../src/domain/webhook-targets.js';
import { createServices } from '../src/services.js';
import { ATTEMPT_INTERRUPTED, claimDueDeliveries } from '../src/store/webhooks.js';
import {
  DIALECTS,
  NO_POSTGRES,
  describeUnless,
  startTestServer,
  type TestServer,
  xmlRequest,
} from './helpers.js';
import { buy, createTrader, offer, type Trader } from './trading-helpers.js';
import { type Receiver, startReceiver, verifySignature } from './webhook-receiver.js';

/** Host names resolved without any DNS: `example.org` is public, `inside.test` is loopback. */
const lookup: HostLookup = async (host) => {
  if (host === 'example.org') return [{ address: '93.184.215.14', family: 4 }];
  if (host === 'inside.test') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};
/** The sandbox listening on loopback alone: private targets allowed. */
const SANDBOX: WebhookSettings = {
  mode: 'sandbox',
  webhookTimeoutMs: 2000,
  targets: { allowPrivate: true, lookup },
};

async function settle(server: TestServer): Promise<void> {
  await server.services.events.deliverPending();
  await server.services.webhooks.deliverDue();
}

async function dedicatedApp(server: TestServer, idUser: number): Promise<number> {
  const app = await server.services.database.db
    .selectFrom('apps')
    .select('idApp')
    .where('idUser', '=', idUser)
    .where('kind', '=', 'dedicated')
    .executeTakeFirstOrThrow();
  return app.idApp;
}

for (const dialect of DIALECTS) {
  describe(`webhooks (${dialect})`, () => {
    let server: TestServer;
    let seller: Trader;
    let buyer: Trader;
    let sellerHook: Receiver;
    let buyerHook: Receiver;
    let secretOf: Map<string, string>;

    before(async () => {
      server = await startTestServer({ dialect, config: { webhookTimeoutMs: 300 } });
      seller = await createTrader(server, { name: 'hookseller' });
      buyer = await createTrader(server, { name: 'hookbuyer', balanceCents: 10_000 });
      sellerHook = await startReceiver();
      buyerHook = await startReceiver();
      secretOf = new Map();
      for (const [trader, hook] of [
        [seller, sellerHook],
        [buyer, buyerHook],
      ] as const) {
        const endpoint = await createEndpoint(server.services, SANDBOX, trader.user.idUser, {
          idApp: await dedicatedApp(server, trader.user.idUser),
          url: hook.url,
        });
        secretOf.set(hook.url, endpointSecret(server.services.serverKey, endpoint));
      }
    });
    after(async () => {
      await server.close();
      await sellerHook.close();
      await buyerHook.close();
    });

    it('delivers each kind, signed as the README says, to the user concerned only', async () => {
      const article = await offer(server, seller.user, { price: 300, count: 2 });
      const [order] = await buy(buyer.api, [[article.idArticle, 1]]);
      await payOrder(server.services, order!.idOrder);
      await setTrackingNumber(server.services, seller.user.idUser, order!.idOrder, 'TRACK-123');
      await buyer.api.post(
        `/account/messages/${seller.user.idUser}`,
        xmlRequest('<message>When will it ship?</message>'),
      );
      assert.equal((await seller.api.post('/exports/stock')).status, 202);
      await server.services.events.deliverPending();
      await exportBuildsSettled();
      await settle(server);

      const kinds = (hook: Receiver) => hook.received.map((r) => r.json.type);
      assert.deepEqual(kinds(sellerHook), [
        'article.reserved',
        'order.stateChanged',
        'article.sold',
        'order.stateChanged',
        'order.trackingNumberSet',
        'message.received',
        'export.ready',
      ]);
      assert.deepEqual(kinds(buyerHook), [
        'order.stateChanged',
        'order.stateChanged',
        'order.trackingNumberSet',
      ]);
      const nowSeconds = Math.floor(Date.now() / 1000);
      for (const hook of [sellerHook, buyerHook]) {
        const idUser = hook === sellerHook ? seller.user.idUser : buyer.user.idUser;
        for (const r of hook.received) {
          assert.ok(
            verifySignature(
              secretOf.get(hook.url)!,
              r.headers['cardbazaar-signature'] as string,
              r.body,
              nowSeconds,
            ),
            `signature of ${r.json.type}`,
          );
          assert.equal(r.json.idUser, idUser);
          assert.equal(r.headers['content-type'], 'application/json; charset=utf-8');
          assert.equal(r.headers['cardbazaar-event-id'], String(r.json.idEvent));
          assert.equal(r.headers['cardbazaar-event-type'], r.json.type);
        }
      }
      // A tampered body or another secret fails the same check.
      const r = sellerHook.received[0]!;
      const header = r.headers['cardbazaar-signature'] as string;
      assert.equal(
        verifySignature(secretOf.get(sellerHook.url)!, header, r.body.replace('}', ' }'), nowSeconds),
        false,
      );
      assert.equal(verifySignature(secretOf.get(buyerHook.url)!, header, r.body, nowSeconds), false);
      assert.equal(verifySignature(secretOf.get(sellerHook.url)!, header, r.body, nowSeconds + 600), false);

      const paid = buyerHook.received[1]!.json;
      assert.equal(paid.data.previousState, 'bought');
      assert.equal(paid.data.order.state.state, 'paid');
      assert.equal(paid.data.order.totalValue, order!.totalValue);
      const tracking = buyerHook.received[2]!.json;
      assert.equal(tracking.data.order.trackingNumber, 'TRACK-123');
      const exported = sellerHook.received[6]!.json;
      assert.equal(exported.data.export.status, 'finished');
      assert.match(exported.data.export.url, /\/ws\/v2\.0\/exports\/files\/\d+\//);
      // What the feed shows is what was delivered.
      const feed = await seller.api.get('/events', { json: true });
      assert.deepEqual(
        feed.json.event,
        sellerHook.received.map((x) => x.json),
      );
    });

    it('retries a receiver that answered 500: the event arrives twice, the second accepted', async () => {
      const hook = await startReceiver((_r, n) => (n === 1 ? 500 : 200));
      const other = await createTrader(server, { name: 'flaky' });
      const endpoint = await createEndpoint(server.services, SANDBOX, other.user.idUser, {
        idApp: await dedicatedApp(server, other.user.idUser),
        url: hook.url,
        kinds: 'message.received',
      });
      try {
        await seller.api.post(
          `/account/messages/${other.user.idUser}`,
          xmlRequest('<message>Hello</message>'),
        );
        await settle(server);
        assert.equal(hook.received.length, 1);
        const delivery = await server.services.database.db
          .selectFrom('webhookDeliveries')
          .selectAll()
          .where('idEndpoint', '=', endpoint.idEndpoint)
          .executeTakeFirstOrThrow();
        assert.equal(delivery.state, 'pending');
        assert.equal(delivery.attempts, 1);
        // Not before its time: the first retry comes 15 to 30 s later (marketplace clock).
        assert.ok(delivery.nextAttemptAt >= server.clock.now() + 15_000);
        assert.ok(delivery.nextAttemptAt <= server.clock.now() + 30_000);
        await server.services.webhooks.deliverDue();
        assert.equal(hook.received.length, 1);
        server.clock.advance(31_000);
        await server.services.webhooks.deliverDue();
        assert.equal(hook.received.length, 2);
        assert.equal(hook.received[0]!.body, hook.received[1]!.body);
        const attempts = await server.services.database.db
          .selectFrom('webhookAttempts')
          .selectAll()
          .where('idEndpoint', '=', endpoint.idEndpoint)
          .orderBy('idAttempt')
          .execute();
        assert.deepEqual(
          attempts.map((a) => [a.status, a.response]),
          // The receiver is on loopback: its status is kept, never its bytes.
          [
            [500, PRIVATE_ANSWER],
            [200, PRIVATE_ANSWER],
          ],
        );
        const settled = await server.services.database.db
          .selectFrom('webhookDeliveries')
          .select(['state', 'attempts'])
          .where('idEndpoint', '=', endpoint.idEndpoint)
          .executeTakeFirstOrThrow();
        assert.deepEqual(settled, { state: 'delivered', attempts: 2 });
        server.clock.advance(24 * 3600 * 1000);
        await server.services.webhooks.deliverDue();
        assert.equal(hook.received.length, 2);
      } finally {
        await hook.close();
      }
    });

    it('records the attempts of one pass together: a failure then a success leave the endpoint not failing', async () => {
      const hook = await startReceiver((_r, n) => (n === 1 ? 503 : 200));
      const other = await createTrader(server, { name: 'batched' });
      const endpoint = await createEndpoint(server.services, SANDBOX, other.user.idUser, {
        idApp: await dedicatedApp(server, other.user.idUser),
        url: hook.url,
        kinds: 'message.received',
      });
      try {
        for (const text of ['one', 'two', 'three'])
          await seller.api.post(
            `/account/messages/${other.user.idUser}`,
            xmlRequest(`<message>${text}</message>`),
          );
        await settle(server);
        assert.deepEqual(
          hook.received.map((r) => r.json.data.message.text),
          ['one', 'two', 'three'],
        );
        const deliveries = await server.services.database.db
          .selectFrom('webhookDeliveries')
          .select(['state', 'attempts', 'leaseToken'])
          .where('idEndpoint', '=', endpoint.idEndpoint)
          .orderBy('idDelivery')
          .execute();
        assert.deepEqual(
          deliveries.map((d) => [d.state, d.attempts, d.leaseToken]),
          [
            ['pending', 1, null],
            ['delivered', 1, null],
            ['delivered', 1, null],
          ],
        );
        const attempts = await server.services.database.db
          .selectFrom('webhookAttempts')
          .select(['status', 'response'])
          .where('idEndpoint', '=', endpoint.idEndpoint)
          .orderBy('idAttempt')
          .execute();
        assert.deepEqual(
          attempts.map((a) => a.status),
          [503, 200, 200],
        );
        // The 503 marked it failing within the pass; the successes after it, in the same
        // transaction, cleared that again.
        const row = await server.services.database.db
          .selectFrom('webhookEndpoints')
          .select(['failingSince', 'enabled'])
          .where('idEndpoint', '=', endpoint.idEndpoint)
          .executeTakeFirstOrThrow();
        assert.deepEqual(row, { failingSince: null, enabled: 1 });
      } finally {
        await hook.close();
      }
    });

    it('gives back, unsent, the rest of a claim once half its lease has gone on a slow receiver', async () => {
      // Timeout 300 ms: lease 1.6 s; each attempt on a receiver that never answers takes 300 ms.
      let hang = true;
      const hook = await startReceiver(() => (hang ? 'hang' : 200));
      const other = await createTrader(server, { name: 'slowpoke' });
      const endpoint = await createEndpoint(server.services, SANDBOX, other.user.idUser, {
        idApp: await dedicatedApp(server, other.user.idUser),
        url: hook.url,
        kinds: 'message.received',
      });
      const N = 6;
      try {
        for (let i = 0; i < N; i++)
          await seller.api.post(
            `/account/messages/${other.user.idUser}`,
            xmlRequest(`<message>m${i}</message>`),
          );
        await settle(server);
        const sent = hook.received.length;
        assert.ok(sent >= 2 && sent < N, `sent ${sent} of ${N} in the pass`);
        const deliveries = await server.services.database.db
          .selectFrom('webhookDeliveries')
          .selectAll()
          .where('idEndpoint', '=', endpoint.idEndpoint)
          .orderBy('idDelivery')
          .execute();
        const records = await server.services.database.db
          .selectFrom('webhookAttempts')
          .select(['idDelivery', 'status'])
          .where('idEndpoint', '=', endpoint.idEndpoint)
          .execute();
        assert.deepEqual(
          records.map((r) => r.idDelivery).sort((a, b) => a - b),
          deliveries.slice(0, sent).map((d) => d.idDelivery),
        );
        for (const [i, d] of deliveries.entries()) {
          assert.equal(d.state, 'pending');
          assert.equal(d.leaseToken, null);
          // Sent and failed: retried later; given back: due now, as if never claimed.
          assert.equal(d.attempts, i < sent ? 1 : 0);
          assert.ok(i < sent ? d.nextAttemptAt > server.clock.now() : d.nextAttemptAt <= server.clock.now());
        }
        hang = false;
        await server.services.webhooks.deliverDue();
        assert.deepEqual(
          hook.received.slice(sent).map((r) => r.json.data.message.text),
          Array.from({ length: N - sent }, (_, i) => `m${sent + i}`),
        );
      } finally {
        await hook.close();
      }
    });

    it('retries a receiver that never answers with growing delays for 3 days, then disables it and tells the owner', async () => {
      const hook = await startReceiver(() => 'hang');
      const owner = await createTrader(server, { name: 'deadhook' });
      const endpoint = await createEndpoint(server.services, SANDBOX, owner.user.idUser, {
        idApp: await dedicatedApp(server, owner.user.idUser),
        url: hook.url,
        kinds: ['message.received'],
      });
      try {
        await seller.api.post(
          `/account/messages/${owner.user.idUser}`,
          xmlRequest('<message>Anyone?</message>'),
        );
        await settle(server);
        const start = server.clock.now();
        const gaps: number[] = [];
        let last = start;
        for (let i = 0; i < 200; i++) {
          const d = await server.services.database.db
            .selectFrom('webhookDeliveries')
            .selectAll()
            .where('idEndpoint', '=', endpoint.idEndpoint)
            .executeTakeFirstOrThrow();
          if (d.state !== 'pending') break;
          server.clock.advance(d.nextAttemptAt - server.clock.now());
          gaps.push(d.nextAttemptAt - last);
          last = d.nextAttemptAt;
          await server.services.webhooks.deliverDue();
        }
        const row = await server.services.database.db
          .selectFrom('webhookEndpoints')
          .selectAll()
          .where('idEndpoint', '=', endpoint.idEndpoint)
          .executeTakeFirstOrThrow();
        assert.equal(row.enabled, 0);
        assert.ok(row.disabledAt! - start >= RETRY_WINDOW_MS);
        assert.ok(row.disabledAt! - start < RETRY_WINDOW_MS + 60_000);
        // Exponential: each early gap at least the previous one's half-step; later ones capped.
        assert.ok(gaps.length >= 10 && gaps.length < 40, `attempts: ${gaps.length}`);
        assert.ok(gaps[3]! > gaps[0]!);
        assert.ok(Math.max(...gaps) <= 6 * 3600 * 1000);
        assert.equal(hook.received.length, gaps.length + 1);
        const attempts = await server.services.database.db
          .selectFrom('webhookAttempts')
          .selectAll()
          .where('idEndpoint', '=', endpoint.idEndpoint)
          .execute();
        assert.ok(attempts.every((a) => a.status === null && a.response === NO_ANSWER));
        const notice = await server.services.database.db
          .selectFrom('messages')
          .select('text')
          .where('idReceiver', '=', owner.user.idUser)
          .where('text', 'like', '%was disabled%')
          .executeTakeFirst();
        assert.ok(notice, 'the owner got a system message');
        assert.match(notice.text, new RegExp(`endpoint ${endpoint.idEndpoint}`));
        // Disabled: new events are not queued for it any more.
        const before = hook.received.length;
        await seller.api.post(
          `/account/messages/${owner.user.idUser}`,
          xmlRequest('<message>Still there?</message>'),
        );
        await settle(server);
        assert.equal(hook.received.length, before);
      } finally {
        await hook.close();
      }
    });

    it("sends a third-party app's endpoint the events of each user who authorized it, and nobody else's", async () => {
      const developer = await createTrader(server, { name: 'developer' });
      const app = await createApp(server.services, {
        idUser: developer.user.idUser,
        kind: 'thirdParty',
        callbackUrl: 'https://example.org/cb',
      });
      const hook = await startReceiver();
      await createEndpoint(server.services, SANDBOX, developer.user.idUser, {
        idApp: app.app.idApp,
        url: hook.url,
      });
      const authorizing = await createTrader(server, { name: 'authorizing' });
      const other = await createTrader(server, { name: 'notauthorizing' });
      await server.services.database.transaction((tx) =>
        issueAccessToken(tx, server.services, { idApp: app.app.idApp, idUser: authorizing.user.idUser }),
      );
      try {
        for (const to of [authorizing, other, developer]) {
          await seller.api.post(`/account/messages/${to.user.idUser}`, xmlRequest('<message>Hi</message>'));
        }
        await settle(server);
        assert.deepEqual(
          hook.received.map((r) => r.json.idUser),
          [authorizing.user.idUser],
        );
      } finally {
        await hook.close();
      }
    });

    it('refuses bad endpoints with 400 naming the field, and private addresses in production', async () => {
      const idApp = await dedicatedApp(server, seller.user.idUser);
      const refused = async (settings: typeof SANDBOX, url: string, kinds?: string) =>
        createEndpoint(server.services, settings, seller.user.idUser, { idApp, url, kinds }).then(
          () => undefined,
          (err: { status: number; field: string; code: string }) => [err.status, err.field, err.code],
        );
      assert.deepEqual(await refused(SANDBOX, 'ftp://example.org/'), [400, 'url', 'webhook_scheme']);
      assert.deepEqual(await refused(SANDBOX, 'not a url'), [400, 'url', 'webhook_url_invalid']);
      assert.deepEqual(await refused(SANDBOX, 'https://u:p@example.org/'), [
        400,
        'url',
        'webhook_credentials',
      ]);
      assert.deepEqual(await refused(SANDBOX, 'https://example.org/', 'order.nope'), [
        400,
        'kinds',
        'unknown_event_kind',
      ]);
      const production: WebhookSettings = {
        ...SANDBOX,
        mode: 'production',
        targets: { allowPrivate: false, lookup },
      };
      assert.deepEqual(await refused(production, 'http://example.org/'), [400, 'url', 'webhook_scheme']);
      for (const url of [
        'https://127.0.0.1/',
        'https://localhost:8443/',
        'https://localhost.:8443/',
        'https://LOCALHOST../',
        'https://api.localhost/',
        'https://inside.test/',
        'https://10.1.2.3/',
        'https://192.168.0.10/',
        'https://169.254.169.254/latest',
        'https://0.0.0.0/',
        'https://0x7f.1/',
        'https://2130706433/',
        'https://[::1]/',
        'https://[::]/',
        'https://[::ffff:127.0.0.1]/',
        'https://[::ffff:7f00:1]/',
        'https://[::7f00:1]/',
        'https://[::127.0.0.1]/',
        'https://[64:ff9b::a00:1]/',
        'https://[2002:c0a8:1::1]/',
        'https://[fd00::1]/',
        'https://[fe80::1]/',
        'https://[ff02::1]/',
        'https://224.0.0.1/',
      ]) {
        assert.deepEqual(await refused(production, url), [400, 'url', 'webhook_private'], url);
      }
      assert.deepEqual(await refused(production, 'https://nowhere.test/'), [
        400,
        'url',
        'webhook_unresolvable',
      ]);
      assert.equal(await refused(production, 'https://example.org/hook'), undefined);
      assert.equal(await refused(production, 'https://[2606:4700::1111]/hook'), undefined);
      assert.equal(
        await refused({ ...production, targets: { allowPrivate: true, lookup } }, 'https://10.1.2.3/'),
        undefined,
      );
      const stranger = await createTrader(server, { name: 'stranger' });
      await assert.rejects(
        createEndpoint(server.services, SANDBOX, stranger.user.idUser, {
          idApp,
          url: 'https://example.org/',
        }),
        (err: { status: number }) => err.status === 404,
      );
      // At delivery time too, whatever the name resolves to, with the one text of every failure.
      for (const url of ['http://localhost:9/x', 'http://inside.test:9/x', 'http://[::ffff:7f00:1]:9/x']) {
        const r = await postJson(url, '{}', {}, 1000, production.targets);
        assert.equal(r.status, null);
        assert.equal(r.response, NO_ANSWER);
        assert.match(r.detail ?? '', /private or loopback/);
      }
    });
  });
}

describeUnless(NO_POSTGRES, 'webhooks with two instances on PostgreSQL', () => {
  it('delivers each of many attempts exactly once between them', async () => {
    const server = await startTestServer({ dialect: 'postgres' });
    const second = await createServices(server.services.config, {
      clock: server.clock,
      wallClock: server.wallClock,
    });
    const hook = await startReceiver();
    try {
      const seller = await createTrader(server, { name: 'pgseller' });
      const receivers: Trader[] = [];
      for (let i = 0; i < 4; i++) receivers.push(await createTrader(server, { name: `pgrecv${i}` }));
      for (const r of receivers) {
        await createEndpoint(server.services, SANDBOX, r.user.idUser, {
          idApp: await dedicatedApp(server, r.user.idUser),
          url: hook.url,
        });
      }
      const N = 60;
      await Promise.all(
        Array.from({ length: N }, (_, i) =>
          seller.api.post(
            `/account/messages/${receivers[i % receivers.length]!.user.idUser}`,
            xmlRequest(`<message>n${i}</message>`),
          ),
        ),
      );
      await server.services.events.deliverPending();
      const one = new WebhookDeliverer({ ...server.services, config: server.services.webhookSettings });
      const two = new WebhookDeliverer({ ...second, config: second.webhookSettings });
      await Promise.all([one.deliverDue(), two.deliverDue(), one.deliverDue(), two.deliverDue()]);
      await Promise.all([one.deliverDue(), two.deliverDue()]);
      const ids = hook.received.map((r) => r.headers['cardbazaar-delivery-id']);
      assert.equal(ids.length, N);
      assert.equal(new Set(ids).size, N);
      const states = await server.services.database.db
        .selectFrom('webhookDeliveries')
        .select(['state', 'attempts'])
        .execute();
      assert.equal(states.length, N);
      assert.ok(states.every((s) => s.state === 'delivered' && s.attempts === 1));
      assert.equal(
        Number(
          (
            await server.services.database.db
              .selectFrom('webhookAttempts')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        ),
        N,
      );
    } finally {
      await hook.close();
      await second.close();
      await server.close();
    }
  });
});

describe('webhooks across a restart (sqlite file)', () => {
  it('a delivery claimed by a process that died is sent again after a restart, once its lease runs out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-webhooks-'));
    const config = { databaseUrl: join(dir, 'db.sqlite'), webhookTimeoutMs: 300 };
    const hook = await startReceiver();
    try {
      const first = await startTestServer({ config });
      const owner = await createTrader(first, { name: 'restart' });
      await createEndpoint(first.services, SANDBOX, owner.user.idUser, {
        idApp: await dedicatedApp(first, owner.user.idUser),
        url: hook.url,
      });
      const writer = await createTrader(first, { name: 'writer' });
      await writer.api.post(
        `/account/messages/${owner.user.idUser}`,
        xmlRequest('<message>Before the crash</message>'),
      );
      await first.services.events.deliverPending();
      // What a process killed in the middle of sending leaves behind: the row claimed, its attempt
      // under way (test/webhooks-kill.test.ts kills a real server process instead).
      const wallNow = first.wallClock.now();
      const lease = first.services.webhooks.leaseMs;
      const claimed = await claimDueDeliveries(
        first.services.database,
        first.clock.now(),
        wallNow,
        wallNow + lease,
        'dead',
        10,
      );
      assert.equal(claimed.length, 1);
      await first.services.webhooks.deliverDue();
      assert.equal(hook.received.length, 0, 'a live claim is left alone');
      const marketNow = first.clock.now();
      await first.close();

      const second = await startTestServer({ config });
      try {
        second.clock.set(marketNow);
        await second.services.webhooks.deliverDue();
        assert.equal(hook.received.length, 0, 'not before the lease runs out');
        second.wallClock.setOffset(lease + 1000);
        await second.services.webhooks.deliverDue();
        assert.equal(hook.received.length, 1);
        assert.equal(hook.received[0]!.json.data.message.text, 'Before the crash');
        const row = await second.services.database.db
          .selectFrom('webhookDeliveries')
          .select(['state', 'attempts', 'leaseToken'])
          .executeTakeFirstOrThrow();
        assert.deepEqual(row, { state: 'delivered', attempts: 2, leaseToken: null });
        const attempts = await second.services.database.db
          .selectFrom('webhookAttempts')
          .select(['status', 'response'])
          .orderBy('idAttempt')
          .execute();
        assert.deepEqual(attempts, [
          { status: null, response: ATTEMPT_INTERRUPTED },
          { status: 200, response: PRIVATE_ANSWER },
        ]);
      } finally {
        await second.close();
      }
    } finally {
      await hook.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
