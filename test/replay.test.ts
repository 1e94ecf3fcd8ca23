import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DatabaseNonceStore } from '../src/auth/nonces.js';
import {
  ApiClient,
  BASE,
  countRows,
  createTestClient,
  DIALECTS,
  signedHeader,
  startTestServer,
  type TestCredentials,
  type TestServer,
} from './helpers.js';

/**
 * Replays (RFC 5849 §3.3): a request signed once is accepted once, whatever happens between the
 * two tries — a restart of the server, or another instance on the same database.
 */

const ACCOUNT = '/ws/v2.0/output.json/account';

function send(server: TestServer, authorization: string, method = 'GET', path = ACCOUNT) {
  return server.app.inject({
    method: method as 'GET',
    url: path,
    headers: { host: 'api.cardbazaar.test', authorization },
  });
}

function assertReplayRefused(res: { statusCode: number; body: string }) {
  assert.equal(res.statusCode, 401, res.body);
  assert.equal(JSON.parse(res.body).internal_error_code, 'reused_nonce');
}

describe('a replay after a restart (SQLite file, no Redis)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cardbazaar-replay-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('is refused, reads and writes alike', async () => {
    const databaseUrl = join(dir, 'db.sqlite');
    const first = await startTestServer({ config: { databaseUrl } });
    let cred: TestCredentials;
    const read = { header: '' };
    const write = { header: '', url: `${BASE}/ws/v2.0/output.json/account/vacation?onVacation=true` };
    try {
      ({ cred } = await createTestClient(first));
      read.header = signedHeader(cred, 'GET', `${BASE}${ACCOUNT}`);
      write.header = signedHeader(cred, 'PUT', write.url);
      assert.equal((await send(first, read.header)).statusCode, 200);
      const put = await send(
        first,
        write.header,
        'PUT',
        '/ws/v2.0/output.json/account/vacation?onVacation=true',
      );
      assert.equal(put.statusCode, 200, put.body);
      // Back off vacation with a fresh signature, so a replayed write would show.
      const api = new ApiClient(first, cred);
      assert.equal((await api.put('/account/vacation?onVacation=false')).status, 200);
    } finally {
      await first.close();
    }

    const second = await startTestServer({ config: { databaseUrl } });
    try {
      assertReplayRefused(await send(second, read.header));
      assertReplayRefused(
        await send(second, write.header, 'PUT', '/ws/v2.0/output.json/account/vacation?onVacation=true'),
      );
      const account = await new ApiClient(second, cred!).get('/account', { json: true });
      assert.equal(account.json.account.onVacation, false);
    } finally {
      await second.close();
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`a replay on another instance of the same database (${dialect}, no Redis)`, () => {
    let dir: string;
    let a: TestServer;
    let b: TestServer;
    let cred: TestCredentials;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'cardbazaar-replay-'));
      a = await startTestServer(
        dialect === 'sqlite' ? { config: { databaseUrl: join(dir, 'db.sqlite') } } : { dialect },
      );
      b = await startTestServer({ config: { databaseUrl: a.services.config.databaseUrl } });
      ({ cred } = await createTestClient(a));
    });
    after(async () => {
      await b.close();
      await a.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('is refused by the other instance', async () => {
      const header = signedHeader(cred, 'GET', `${BASE}${ACCOUNT}`);
      assert.equal((await send(a, header)).statusCode, 200);
      assertReplayRefused(await send(b, header));
      assertReplayRefused(await send(a, header));
    });

    it('sent to both at once, is accepted by exactly one', async () => {
      for (let round = 0; round < 5; round++) {
        const header = signedHeader(cred, 'GET', `${BASE}${ACCOUNT}`);
        const answers = await Promise.all([
          send(a, header),
          send(b, header),
          send(a, header),
          send(b, header),
        ]);
        assert.deepEqual(answers.map((r) => r.statusCode).sort(), [200, 401, 401, 401]);
      }
    });

    it('a nonce leaves the table once its timestamp has left the window, not before', async () => {
      const store = a.services.nonces as DatabaseNonceStore;
      const window = a.services.config.oauthWindowSeconds;
      const before = await countRows(a, 'oauthNonces');
      assert.ok(before > 0);
      assert.equal(await store.prune(window), 0);
      a.wallClock.setOffset((window + 5) * 1000);
      try {
        assert.equal(await store.prune(window), before);
        assert.equal(await countRows(a, 'oauthNonces'), 0);
      } finally {
        a.wallClock.setOffset(0);
      }
    });
  });
}
