import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { testConfig, type Config } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';
import { startSandbox } from '../src/sandbox/start.js';
import { controlTokenOf } from '../src/auth/control-token.js';
import {
  DIALECTS,
  type DialectName,
  postgresSchemaUrl,
  signedHeader,
  type TestCredentials,
} from './helpers.js';

/**
 * The sandbox control API (`/_cardbazaar/`) through real HTTP on a loopback port, as a test suite
 * in another language reaches it: each endpoint, the token, production's 404, snapshots of an
 * in-memory database, fixtures in JSON and YAML, the clock and a fault seen by the API itself,
 * every triggerable event kind.
 */

interface Control {
  server: RunningServer;
  token: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** A signed API request (JSON format) with a fixture app's credentials. */
  api(method: string, path: string, cred: TestCredentials): Promise<Answer>;
  close(): Promise<void>;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** Read loosely by design, as in test/helpers.ts. */
  json: any;
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: unknown;
  if (text && (res.headers.get('content-type') ?? '').startsWith('application/json')) json = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, json };
}

async function startControl(dialect: DialectName, config: Partial<Config> = {}): Promise<Control> {
  let databaseUrl = ':memory:';
  let drop: (() => Promise<void>) | undefined;
  if (dialect === 'postgres') {
    const schema = await postgresSchemaUrl();
    databaseUrl = schema.url;
    drop = schema.drop;
  }
  const server = await startServer(
    testConfig({
      databaseUrl,
      host: '127.0.0.1',
      port: 0,
      requestLogRows: 1000,
      logLevel: process.env.CONTROL_TEST_LOG ?? 'silent',
      ...config,
    }),
    () => {},
  );
  const token = controlTokenOf(server.services.config, server.services.serverKey);
  return {
    server,
    token,
    async call(method, path, body, headers = {}) {
      const init: RequestInit = {
        method,
        headers: { authorization: `Bearer ${token}`, ...headers },
      };
      if (body !== undefined) {
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
      }
      return answer(await fetch(`${server.url}${path}`, init));
    },
    async api(method, path, cred) {
      const url = `${server.url}/ws/v2.0/output.json${path}`;
      return answer(
        await fetch(url, { method, headers: { authorization: signedHeader(cred, method, url) } }),
      );
    },
    async close() {
      await server.stop();
      await drop?.();
    },
  };
}

/** A seller with stock, a buyer with a cart and a dedicated app, as a world document. */
const WORLD = {
  steps: [
    { user: 'seller', username: 'ctl-seller', accountType: 'professional', country: 'D' },
    { user: 'buyer', username: 'ctl-buyer', country: 'D', balance: '100.00' },
    { app: 'buyerApp', owner: 'buyer', kind: 'dedicated' },
    { app: 'sellerApp', owner: 'seller', kind: 'dedicated' },
    { product: 'bolt', idProduct: 910001, idGame: 1, name: 'Lightning Bolt' },
    {
      articles: 'stock',
      user: 'seller',
      items: [{ idProduct: '${bolt.idProduct}', count: 20, price: '1.50', condition: 'NM' }],
    },
    { cart: 'cart', user: 'buyer', add: [{ idArticle: '${stock.articles.0.idArticle}', count: 2 }] },
  ],
};

const credOf = (world: Answer, step: string): TestCredentials => {
  const app = world.json.apps.find((a: { step: string }) => a.step === step);
  assert.ok(app, `no app ${step} in ${world.text}`);
  return app as TestCredentials;
};

/** The ids of the articles in the caller's cart (none: an empty cart). */
async function cartArticles(c: Control, cred: TestCredentials): Promise<number[]> {
  const res = await c.api('GET', '/shoppingcart', cred);
  assert.ok(res.status === 200 || res.status === 204, res.text);
  return [...(res.text ?? '').matchAll(/"idArticle":(\d+)/g)].map((m) => Number(m[1]));
}

for (const dialect of DIALECTS) {
  describe(`control API (${dialect})`, () => {
    let c: Control;
    let world: Answer;
    before(async () => {
      c = await startControl(dialect);
      world = await c.call('POST', '/_cardbazaar/fixtures', WORLD);
      assert.equal(world.status, 201, world.text);
    });
    after(() => c.close());

    it('needs the bearer token: none or a wrong one is 401 with WWW-Authenticate and the JSON error body', async () => {
      for (const headers of [
        {} as Record<string, string>,
        { authorization: 'Bearer wrong-token-wrong-token' },
        { authorization: c.token },
      ]) {
        const res = await answer(await fetch(`${c.server.url}/_cardbazaar/health`, { headers }));
        assert.equal(res.status, 401);
        assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="cardbazaar-control"');
        assert.equal(res.json.http_status_code, 401);
        assert.match(res.json.mkm_error_description, /Bearer/);
      }
      // Also for paths that do not exist, and for writes: nothing is done without the token.
      const post = await answer(
        await fetch(`${c.server.url}/_cardbazaar/clock/advance`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"by":"1d"}',
        }),
      );
      assert.equal(post.status, 401);
      assert.equal((await c.call('GET', '/_cardbazaar/clock')).json.offsetMs, 0);
    });

    it('health, and a JSON 404 for an unknown control path', async () => {
      const health = await c.call('GET', '/_cardbazaar/health');
      assert.equal(health.status, 200);
      assert.deepEqual(health.json, { ok: true, mode: 'sandbox' });
      const unknown = await c.call('GET', '/_cardbazaar/nothing-here');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.json.http_status_code, 404);
    });

    it('fixtures: the ids the CLI prints and each app’s credentials, which sign real requests', async () => {
      assert.deepEqual(Object.keys(world.json.ids), [
        'seller',
        'buyer',
        'buyerApp',
        'sellerApp',
        'bolt',
        'stock',
        'cart',
      ]);
      const buyerApp = credOf(world, 'buyerApp');
      assert.equal((buyerApp as unknown as { user: string }).user, 'ctl-buyer');
      for (const key of ['appToken', 'appSecret', 'accessToken', 'accessTokenSecret'] as const) {
        assert.equal(typeof buyerApp[key], 'string');
      }
      const account = await c.api('GET', '/account', buyerApp);
      assert.equal(account.status, 200, account.text);
      assert.equal(account.json.account.username, 'ctl-buyer');
    });

    it('fixtures in YAML, and all or nothing: a failing step names its place and leaves nothing behind', async () => {
      const yaml = 'steps:\n  - user: yamlUser\n    username: ctl-yaml\n    country: D\n';
      const ok = await c.call('POST', '/_cardbazaar/fixtures', yaml, { 'content-type': 'application/yaml' });
      assert.equal(ok.status, 201, ok.text);
      assert.equal(ok.json.ids.yamlUser.username, 'ctl-yaml');
      assert.deepEqual(ok.json.apps, []);

      const failing = {
        steps: [
          { user: 'first', username: 'ctl-never', country: 'D' },
          { user: 'second', username: 'ctl-never-2', country: 'D', balance: 'lots' },
        ],
      };
      for (const [body, type] of [
        [JSON.stringify(failing), 'application/json'],
        [
          'steps:\n  - user: first\n    username: ctl-never\n  - user: second\n    username: ctl-never-2\n    balance: lots\n',
          'application/yaml',
        ],
      ] as const) {
        const bad = await c.call('POST', '/_cardbazaar/fixtures', body, { 'content-type': type });
        assert.equal(bad.status, 400, bad.text);
        assert.match(bad.json.mkm_error_description, /step 2 \(user "second"\), field "balance"/);
        assert.equal(bad.json.post_data_field, 'steps[1].balance');
      }
      // Step 1 was rolled back with step 2: the same document minus its bad step creates the user now.
      const again = await c.call('POST', '/_cardbazaar/fixtures', { steps: [failing.steps[0]] });
      assert.equal(again.status, 201, again.text);

      const notJson = await c.call('POST', '/_cardbazaar/fixtures', '{"steps": [', {
        'content-type': 'application/json',
      });
      assert.equal(notJson.status, 400);
      const otherType = await c.call('POST', '/_cardbazaar/fixtures', '<steps/>', {
        'content-type': 'application/xml',
      });
      assert.equal(otherType.status, 415);
    });

    it('clock: read, advance (a duration or ms), set, reset — and an API rule follows it (reservation expiry)', async () => {
      const buyer = credOf(world, 'buyerApp');
      const idArticle = world.json.ids.stock.articles[0].idArticle;
      assert.deepEqual(await cartArticles(c, buyer), [idArticle]);

      const read = await c.call('GET', '/_cardbazaar/clock');
      assert.equal(read.status, 200);
      assert.equal(read.json.offsetMs, 0);
      assert.match(read.json.now, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:?\d\d$/);

      const advanced = await c.call('POST', '/_cardbazaar/clock/advance', { by: '8d' });
      assert.equal(advanced.status, 200, advanced.text);
      assert.equal(advanced.json.offsetMs, 8 * 86_400_000);
      // The reservation ran out on the marketplace clock: the cart is empty at the next request.
      assert.deepEqual(await cartArticles(c, buyer), []);

      const more = await c.call('POST', '/_cardbazaar/clock/advance', { by: 3_600_000 });
      assert.equal(more.json.offsetMs, 8 * 86_400_000 + 3_600_000);
      const bad = await c.call('POST', '/_cardbazaar/clock/advance', { by: 'soon' });
      assert.equal(bad.status, 400);
      assert.equal(bad.json.post_data_field, 'by');

      const target = new Date(Date.now() + 30 * 86_400_000).toISOString();
      const set = await c.call('POST', '/_cardbazaar/clock/set', { to: target });
      assert.equal(set.status, 200, set.text);
      assert.ok(Math.abs(set.json.offsetMs - 30 * 86_400_000) < 60_000);
      const past = await c.call('POST', '/_cardbazaar/clock/set', { to: '2001-01-01T00:00:00Z' });
      assert.equal(past.status, 400);
      assert.equal(past.json.post_data_field, 'to');

      const reset = await c.call('POST', '/_cardbazaar/clock/reset');
      assert.equal(reset.status, 200);
      assert.equal(reset.json.offsetMs, 0);
      assert.equal(c.server.services.clock.now() - Date.now() < 1000, true);
    });

    it('faults: created from the JSON body, seen on a real API request, listed, deleted one by one and all', async () => {
      const seller = credOf(world, 'sellerApp');
      const created = await c.call('POST', '/_cardbazaar/faults', {
        path: '/account',
        method: 'GET',
        status: 503,
      });
      assert.equal(created.status, 201, created.text);
      const { idFault } = created.json.fault;
      assert.equal(created.json.fault.path, '/account');
      const hit = await c.api('GET', '/account', seller);
      assert.equal(hit.status, 503);
      // Other requests are not touched.
      assert.equal((await c.api('GET', '/stock', seller)).status === 503, false);

      const list = await c.call('GET', '/_cardbazaar/faults');
      assert.deepEqual(
        list.json.faults.map((f: { idFault: number }) => f.idFault),
        [idFault],
      );
      const invalid = await c.call('POST', '/_cardbazaar/faults', { path: '/account', status: 'teapot' });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.json.post_data_field, 'status');

      assert.equal((await c.call('DELETE', `/_cardbazaar/faults/${idFault}`)).status, 204);
      assert.equal((await c.api('GET', '/account', seller)).status, 200);
      assert.equal((await c.call('DELETE', `/_cardbazaar/faults/${idFault}`)).status, 404);

      await c.call('POST', '/_cardbazaar/faults', { path: '/account', latency: '1ms' });
      await c.call('POST', '/_cardbazaar/faults', { path: '/stock', status: 500 });
      assert.equal((await c.call('DELETE', '/_cardbazaar/faults')).status, 204);
      assert.deepEqual((await c.call('GET', '/_cardbazaar/faults')).json.faults, []);
    });

    it('event triggers: every triggerable kind, each answered with the event it made', async () => {
      const kinds = await c.call('GET', '/_cardbazaar/events/kinds');
      assert.equal(kinds.status, 200);
      assert.equal(kinds.json.kinds.length, 9);
      for (const kind of kinds.json.kinds as string[]) {
        // A want finds the seller's offer: the buyer's event. Every other kind: the seller's stock is bought.
        const user = kind === 'wantslist.offerFound' ? 'ctl-buyer' : 'ctl-seller';
        const res = await c.call('POST', '/_cardbazaar/events/trigger', { kind, user });
        assert.equal(res.status, 201, `${kind}: ${res.text}`);
        assert.equal(res.json.event.kind, kind);
        assert.equal(res.json.event.type, kind);
        assert.equal(typeof res.json.event.idEvent, 'number');
      }
      const message = await c.call('POST', '/_cardbazaar/events/trigger', {
        kind: 'message.received',
        user: 'ctl-buyer',
        override: { text: 'Your order shipped' },
      });
      assert.equal(message.status, 201, message.text);
      assert.equal(message.json.event.data.message.text, 'Your order shipped');
      const wrongField = await c.call('POST', '/_cardbazaar/events/trigger', {
        kind: 'message.received',
        user: 'ctl-buyer',
        override: { colour: 'red' },
      });
      assert.equal(wrongField.status, 400);
      assert.equal(wrongField.json.post_data_field, 'colour');
      const unknown = await c.call('POST', '/_cardbazaar/events/trigger', { kind: 'order.teleported' });
      assert.equal(unknown.status, 400);
    });

    it('the request log: the requests a client sent, newest first, filtered by user and status', async () => {
      const buyer = credOf(world, 'buyerApp');
      await c.api('GET', '/account', buyer);
      await c.api('GET', '/products/0', buyer);
      const res = await c.call('GET', '/_cardbazaar/requests?user=ctl-buyer&limit=2');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.requests.length, 2);
      assert.match(res.json.requests[0].path, /\/products\/0$/);
      assert.match(res.json.requests[1].path, /\/account$/);
      assert.match(res.json.requests[0].time, /^\d{4}-\d\d-\d\dT/);
      const failed = await c.call('GET', '/_cardbazaar/requests?user=ctl-buyer&status=4xx');
      assert.ok(failed.json.requests.every((r: { status: number }) => r.status >= 400 && r.status < 500));
      const bad = await c.call('GET', '/_cardbazaar/requests?limit=0');
      assert.equal(bad.status, 400);
      assert.equal(bad.json.post_data_field, 'limit');
    });

    if (dialect === 'sqlite') {
      it('snapshots of an in-memory database: save, change, load brings the data back; list, delete', async () => {
        const buyer = credOf(world, 'buyerApp');
        const idArticle = world.json.ids.stock.articles[0].idArticle;
        // A cart to keep (the clock test let the fixture's run out).
        const refill = await c.call('POST', '/_cardbazaar/fixtures', {
          steps: [{ cart: 'again', user: 'ctl-buyer', add: [{ idArticle, count: 1 }] }],
        });
        assert.equal(refill.status, 201, refill.text);
        const saved = await c.call('POST', '/_cardbazaar/snapshots', { name: 'before-test' });
        assert.equal(saved.status, 201, saved.text);
        assert.equal(saved.json.snapshot.name, 'before-test');
        assert.match(saved.json.snapshot.createdAt, /^\d{4}-/);
        assert.ok(saved.json.snapshot.bytes > 0);

        // Change: a new user, the cart emptied through the API, the clock moved.
        const later = await c.call('POST', '/_cardbazaar/fixtures', {
          steps: [{ user: 'later', username: 'ctl-later', country: 'D' }],
        });
        assert.equal(later.status, 201);
        await c.call('POST', '/_cardbazaar/clock/advance', { by: '8d' });
        assert.deepEqual(await cartArticles(c, buyer), []);

        const loaded = await c.call('POST', '/_cardbazaar/snapshots/before-test/load');
        assert.equal(loaded.status, 200, loaded.text);
        assert.equal(loaded.json.snapshot.name, 'before-test');
        assert.deepEqual(await cartArticles(c, buyer), [idArticle]);
        assert.equal((await c.call('GET', '/_cardbazaar/clock')).json.offsetMs, 0);
        // The user made after the snapshot is gone: the same username can be made again.
        const again = await c.call('POST', '/_cardbazaar/fixtures', {
          steps: [{ user: 'later', username: 'ctl-later', country: 'D' }],
        });
        assert.equal(again.status, 201, again.text);

        const list = await c.call('GET', '/_cardbazaar/snapshots');
        assert.deepEqual(
          list.json.snapshots.map((s: { name: string }) => s.name),
          ['before-test'],
        );
        assert.equal((await c.call('POST', '/_cardbazaar/snapshots/nope/load')).status, 404);
        assert.equal((await c.call('POST', '/_cardbazaar/snapshots', { name: '../x' })).status, 400);
        assert.equal((await c.call('DELETE', '/_cardbazaar/snapshots/before-test')).status, 204);
        assert.equal((await c.call('DELETE', '/_cardbazaar/snapshots/before-test')).status, 404);
        assert.deepEqual((await c.call('GET', '/_cardbazaar/snapshots')).json.snapshots, []);
      });

      it('requests that arrive during a load wait for it and see the loaded data', async () => {
        const buyer = credOf(world, 'buyerApp');
        await c.call('POST', '/_cardbazaar/snapshots', { name: 'busy' });
        const before = await cartArticles(c, buyer);
        await c.call('POST', '/_cardbazaar/clock/advance', { by: '8d' });
        const [load, ...carts] = await Promise.all([
          c.call('POST', '/_cardbazaar/snapshots/busy/load'),
          ...Array.from({ length: 5 }, () => c.api('GET', '/shoppingcart', buyer)),
        ]);
        assert.equal(load.status, 200, load.text);
        for (const cart of carts) assert.ok(cart.status === 200 || cart.status === 204, cart.text);
        assert.deepEqual(await cartArticles(c, buyer), before);
      });

      it('reset: back to the state the server started with, faults cleared', async () => {
        await c.call('POST', '/_cardbazaar/faults', { path: '/account', status: 500 });
        const res = await c.call('POST', '/_cardbazaar/reset');
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.json, { ok: true });
        // The server started empty (no demo data in tests): the fixture's users are gone.
        const users = await c.server.services.database.db.selectFrom('users').select('username').execute();
        assert.deepEqual(
          users.filter((u) => u.username.startsWith('ctl-')),
          [],
        );
        assert.deepEqual((await c.call('GET', '/_cardbazaar/faults')).json.faults, []);
        const rebuilt = await c.call('POST', '/_cardbazaar/fixtures', WORLD);
        assert.equal(rebuilt.status, 201, rebuilt.text);
      });
    } else {
      it('snapshots and reset are refused on PostgreSQL, with what to use instead', async () => {
        const saved = await c.call('POST', '/_cardbazaar/snapshots', { name: 'pg' });
        assert.equal(saved.status, 400);
        assert.match(saved.json.mkm_error_description, /pg_dump/);
        assert.equal((await c.call('POST', '/_cardbazaar/reset')).status, 400);
      });
    }
  });
}

describe('control API on a SQLite file', () => {
  let c: Control;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cardbazaar-control-'));
    c = await startControl('sqlite', { databaseUrl: join(dir, 'db.sqlite') });
  });
  after(async () => {
    await c.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('saves and loads snapshots in the snapshot folder; reset goes back to the baseline', async () => {
    assert.equal((await c.call('POST', '/_cardbazaar/snapshots', { name: 'empty' })).status, 201);
    assert.equal((await c.call('POST', '/_cardbazaar/fixtures', WORLD)).status, 201);
    const loaded = await c.call('POST', '/_cardbazaar/snapshots/empty/load');
    assert.equal(loaded.status, 200, loaded.text);
    assert.equal((await c.call('POST', '/_cardbazaar/fixtures', WORLD)).status, 201);
    assert.equal((await c.call('POST', '/_cardbazaar/reset')).status, 200);
    assert.equal((await c.call('POST', '/_cardbazaar/fixtures', WORLD)).status, 201);
    // The baseline is no snapshot of the list.
    assert.deepEqual(
      (await c.call('GET', '/_cardbazaar/snapshots')).json.snapshots.map((s: { name: string }) => s.name),
      ['empty'],
    );
  });
});

describe('control API in production', () => {
  let c: Control;
  before(async () => {
    c = await startControl('sqlite', {
      mode: 'production',
      publicBaseUrl: 'http://127.0.0.1',
      demoData: false,
    });
  });
  after(() => c.close());

  it('is not there: 404 with the API’s error body, token or not', async () => {
    for (const [method, path] of [
      ['GET', '/_cardbazaar/health'],
      ['GET', '/_cardbazaar/clock'],
      ['POST', '/_cardbazaar/faults'],
      ['POST', '/_cardbazaar/reset'],
    ] as const) {
      const res = await c.call(method, path, method === 'POST' ? {} : undefined);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.json.http_status_code, 404);
    }
  });
});

describe('the control token', () => {
  it('is CONTROL_TOKEN when set, and startSandbox gives it as controlToken', async () => {
    const sandbox = await startSandbox({
      env: { CONTROL_TOKEN: 'a-token-of-my-own-1234', DEMO_DATA: 'false', LOG_LEVEL: 'silent' },
    });
    try {
      assert.equal(sandbox.controlToken, 'a-token-of-my-own-1234');
      const origin = new URL(sandbox.baseUrl).origin;
      const res = await fetch(`${origin}/_cardbazaar/health`, {
        headers: { authorization: 'Bearer a-token-of-my-own-1234' },
      });
      assert.equal(res.status, 200);
    } finally {
      await sandbox.stop();
    }
  });
});
