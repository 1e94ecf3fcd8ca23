import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { listSnapshots, loadSnapshot, saveSnapshot } from '../src/domain/snapshots.js';
import { announceRestore, withdrawRestore } from '../src/store/snapshots.js';
import { productionCliOn, startTwoServers, type TwoServers } from './file-servers.js';
import { createProduct } from './fixtures.js';
import {
  createTestClient,
  describeUnless,
  NO_POSTGRES,
  signedHeader,
  startTestServer,
  type TestCredentials,
  type TestServer,
  xmlRequest,
} from './helpers.js';
import { articleXml } from './stock-helpers.js';

/**
 * `cardbazaar snapshot save|load|list|delete` beside running servers, over real HTTP: what changed
 * after a save is gone after the load, on every server on the file, and the servers' own state
 * (limit counts, nonces, cached credentials, the clock) starts again from the restored world.
 */

async function call(
  base: string,
  cred: TestCredentials,
  method: string,
  path: string,
  options: { body?: string; authorization?: string } = {},
) {
  const url = `${base}/ws/v2.0/output.json${path}`;
  const started = Date.now();
  const res = await fetch(url, {
    method,
    headers: {
      authorization: options.authorization ?? signedHeader(cred, method, url),
      ...(options.body ? { 'content-type': 'application/xml' } : {}),
    },
    body: options.body,
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    json: text ? JSON.parse(text) : undefined,
    ms: Date.now() - started,
  };
}

describe('snapshots beside running servers (SQLite)', () => {
  let servers: TwoServers;
  let server: TestServer & { databaseUrl: string };
  let base: string;
  let base2: string;
  let cred: TestCredentials;
  let idProduct: number;
  const cli = (...args: string[]) => servers.cli(...args);
  const ok = async (...args: string[]) => {
    const r = await cli(...args);
    assert.equal(r.code, 0, r.err);
    return r.out;
  };

  before(async () => {
    servers = await startTwoServers({ first: { limitsEnabled: true, limitsDailyPrivate: 1000 } });
    ({ first: server, base1: base, base2 } = servers);
    ({ cred } = await createTestClient(server, { accountType: 'private' }));
    ({ idProduct } = await createProduct(server, { enName: 'Snapshot Card' }));
    const res = await call(base, cred, 'POST', '/stock', {
      body: xmlRequest(articleXml({ idProduct, count: 3, price: '2.00' })),
    });
    assert.equal(res.status, 200);
  });
  after(() => servers.close());

  it('save, change things through the API, load: the API answers the old state on every server', async () => {
    const saved = JSON.parse(await ok('snapshot', 'save', 'base'));
    assert.equal(saved.name, 'base');
    assert.ok(saved.bytes > 0);
    assert.equal(typeof saved.ms, 'number');
    assert.ok(existsSync(join(dirname(server.databaseUrl), 'snapshots', 'base.sqlite')));

    // After the save: more stock, the account on vacation, a new app, the clock a day on, a fault.
    const post = await call(base, cred, 'POST', '/stock', {
      body: xmlRequest(articleXml({ idProduct, count: 5, price: '3.00' })),
    });
    assert.equal(post.status, 200);
    assert.equal((await call(base, cred, 'GET', '/stock')).json.article.length, 2);
    const vacation = await call(base, cred, 'PUT', '/account/vacation?onVacation=true');
    assert.equal(vacation.status, 200);
    assert.equal(vacation.json.account.onVacation, true);
    const { cred: later } = await createTestClient(server);
    assert.equal((await call(base, later, 'GET', '/account')).status, 200);
    await ok('clock', 'advance', '1d');
    assert.match(await ok('clock', 'show'), /offset 24 h/);
    await ok('faults', 'add', '--path', '/games', '--status', '503');
    const countBefore = Number(
      (await call(base, cred, 'GET', '/account')).headers.get('x-request-limit-count'),
    );
    assert.ok(countBefore >= 5, `count ${countBefore}`);
    // A request whose nonce is spent: its replay is refused before the load.
    const accountUrl = `${base}/ws/v2.0/output.json/account`;
    const spent = signedHeader(cred, 'GET', accountUrl);
    assert.equal((await call(base, cred, 'GET', '/account', { authorization: spent })).status, 200);
    const replay = await call(base, cred, 'GET', '/account', { authorization: spent });
    assert.equal(replay.status, 401);
    assert.equal(replay.json.internal_error_code, 'reused_nonce');

    const loaded = JSON.parse(await ok('snapshot', 'load', 'base'));
    assert.equal(loaded.name, 'base');

    for (const b of [base, base2]) {
      const stock = await call(b, cred, 'GET', '/stock');
      assert.equal(stock.status, 200);
      assert.deepEqual(
        stock.json.article.map((a: { count: number; price: number }) => [a.count, a.price]),
        [[3, 2]],
      );
      const account = await call(b, cred, 'GET', '/account');
      assert.equal(account.json.account.onVacation, false);
      // The app made after the save does not exist in the restored world, cached or not.
      const gone = await call(b, later, 'GET', '/account');
      assert.equal(gone.status, 401);
      assert.equal(gone.json.internal_error_code, 'unknown_app_token');
    }
    // The clock went back with the data; the faults in force stayed (they are no part of a world).
    assert.match(await ok('clock', 'show'), /offset 0 h/);
    assert.equal(JSON.parse(await ok('faults', 'list')).length, 1);
    assert.equal((await call(base, cred, 'GET', '/games')).status, 503);
    await ok('faults', 'clear');
    // Limits start again from zero, and nonces are forgotten.
    const fresh = await call(base, cred, 'GET', '/account');
    assert.ok(
      Number(fresh.headers.get('x-request-limit-count')) <= 3,
      fresh.headers.get('x-request-limit-count')!,
    );
    assert.equal((await call(base, cred, 'GET', '/account', { authorization: spent })).status, 200);
  });

  it('a load under way holds requests until the data is in place', async () => {
    const db = server.services.database;
    await announceRestore(db, Date.now() + 400);
    const held = await call(base, cred, 'GET', '/account');
    assert.equal(held.status, 200);
    assert.ok(held.ms >= 300, `answered after ${held.ms} ms`);
    await withdrawRestore(db);
    assert.ok((await call(base, cred, 'GET', '/account')).ms < 300);
  });

  it('lists, replaces and deletes snapshots; refuses bad names and unknown snapshots', async () => {
    await ok('snapshot', 'save', 'second.one');
    await ok('snapshot', 'save', 'second.one'); // replaced, not refused
    const list = JSON.parse(await ok('snapshot', 'list'));
    assert.deepEqual(
      list.map((s: { name: string }) => s.name),
      ['base', 'second.one'],
    );
    assert.ok(
      list.every((s: { bytes: number; savedAt: string }) => s.bytes > 0 && /^\d{4}-/.test(s.savedAt)),
    );
    assert.match(await ok('snapshot', 'delete', 'second.one'), /deleted/);
    assert.deepEqual(
      JSON.parse(await ok('snapshot', 'list')).map((s: { name: string }) => s.name),
      ['base'],
    );
    for (const [args, message] of [
      [['snapshot', 'save', '../evil'], /not a snapshot name/],
      [['snapshot', 'load', 'nope'], /no snapshot "nope"/],
      [['snapshot', 'delete', 'nope'], /no snapshot "nope"/],
    ] as const) {
      const r = await cli(...args);
      assert.equal(r.code, 1);
      assert.match(r.err, message);
    }
    // A server still answers after the refusals.
    assert.equal((await call(base, cred, 'GET', '/account')).status, 200);
  });

  it('SNAPSHOT_DIR puts them elsewhere', async () => {
    const dir = join(dirname(server.databaseUrl), 'elsewhere');
    const r = await cli('--snapshot-dir', dir, 'snapshot', 'save', 'there');
    assert.equal(r.code, 0, r.err);
    assert.ok(existsSync(join(dir, 'there.sqlite')));
    const loaded = await cli('--snapshot-dir', dir, 'snapshot', 'load', 'there');
    assert.equal(loaded.code, 0, loaded.err);
  });

  it('production refuses snapshots', async () => {
    const r = await productionCliOn(server.databaseUrl)('snapshot', 'save', 'x');
    assert.equal(r.code, 1);
    assert.match(r.err, /production refuses/);
  });
});

describe('snapshots where they cannot be', () => {
  it('a database in memory keeps its snapshots in the process holding it (the control API reaches them)', async () => {
    const server = await startTestServer();
    try {
      const saved = await saveSnapshot(server.services, 'x');
      assert.equal(saved.name, 'x');
      assert.ok(saved.bytes > 0);
      assert.deepEqual(
        listSnapshots(server.services).map((s) => s.name),
        ['x'],
      );
      assert.equal((await loadSnapshot(server.services, 'x')).name, 'x');
      // test/control-api.test.ts loads them with data changed in between, through HTTP.
    } finally {
      await server.close();
    }
  });

  describeUnless(NO_POSTGRES, 'PostgreSQL', () => {
    it('is refused with a clear message', async () => {
      const server = await startTestServer({ dialect: 'postgres' });
      try {
        await assert.rejects(saveSnapshot(server.services, 'x'), /SQLite only.*pg_dump/);
        await assert.rejects(loadSnapshot(server.services, 'x'), /SQLite only/);
        const { api } = await createTestClient(server);
        assert.equal((await api.get('/account')).status, 200);
      } finally {
        await server.close();
      }
    });
  });
});
