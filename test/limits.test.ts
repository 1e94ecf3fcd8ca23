import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { createAccessToken } from '../src/auth/apps.js';
import type { Config } from '../src/config.js';
import { badRequest } from '../src/errors.js';
import { ALL_KINDS, ok, type Router, USER_KINDS } from '../src/http/routing.js';
import { berlinDay } from '../src/limits/berlin-day.js';
import { minuteOf } from '../src/limits/rate.js';
import { RedisLimitStore } from '../src/limits/redis-store.js';
import { ALLOWED, type LimitStore } from '../src/limits/store.js';
import { accountRoutes } from '../src/routes/account.js';
import type { Services } from '../src/services.js';
import { openRedis } from '../src/store/redis.js';
import {
  ApiClient,
  type ApiResult,
  BASE,
  createTestApp,
  createTestClient,
  createTestUser,
  DIALECTS,
  HOST,
  signedHeader,
  startTestServer,
  type TestServer,
  xmlValue,
} from './helpers.js';

/**
 * The request limits through the real HTTP stack (spec §8, reference §5). Routes of other resource
 * groups are stood in for by small handlers registered under their real route keys, so the group
 * rules are tested on the keys the limits table holds; GET /account is the real one.
 */

/** Holds requests inside their handler until released, so "in progress" is a fact, not a timing. */
class Holds {
  private held: Array<() => void> = [];
  private waiters: Array<() => void> = [];
  holding = true;

  async enter(): Promise<void> {
    if (!this.holding) return;
    await new Promise<void>((resolve) => {
      this.held.push(resolve);
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Resolves once `n` requests are inside a handler at the same time. */
  async inside(n: number): Promise<void> {
    while (this.held.length < n) await new Promise<void>((r) => this.waiters.push(r));
  }

  get count() {
    return this.held.length;
  }

  releaseAll(): void {
    for (const r of this.held.splice(0)) r();
  }
}

const holds = new Holds();

function routes(r: Router, services: Services): void {
  accountRoutes(r, services);
  r.get('/games', { kinds: ALL_KINDS }, async () => ok({ game: [] }));
  r.get('/stock', { kinds: USER_KINDS }, async () => ok({ article: [] }));
  r.get('/stock/file', { kinds: USER_KINDS }, async () => {
    await holds.enter();
    return ok({ stock: '', mime: 'application/x-gzip' });
  });
  r.post('/exports/stock', { kinds: USER_KINDS }, async () => {
    await holds.enter();
    return { status: 202, body: { stockExport: [] } };
  });
  r.get('/products/find', { kinds: ALL_KINDS }, async (req) => {
    if (!req.query.search) throw badRequest('search is required.', { field: 'search' });
    await holds.enter();
    return ok({ product: [] });
  });
}

const ON: Partial<Config> = { limitsEnabled: true };

async function limitedServer(dialect: (typeof DIALECTS)[number], config: Partial<Config> = {}) {
  return startTestServer({ dialect, config: { ...ON, ...config }, routes });
}

function limitHeaders(res: ApiResult) {
  return { count: res.headers['x-request-limit-count'], max: res.headers['x-request-limit-max'] };
}

/** 12:00:15 in Berlin on a winter day: 45 seconds before the minute ends. */
const NOON = Date.UTC(2026, 10, 21, 11, 0, 15);

for (const dialect of DIALECTS) {
  describe(`request limits (${dialect})`, () => {
    const servers: TestServer[] = [];
    const start = async (config: Partial<Config> = {}) => {
      const server = await limitedServer(dialect, config);
      servers.push(server);
      server.clock.set(NOON);
      return server;
    };
    afterEach(async () => {
      holds.releaseAll();
      holds.holding = true;
      for (const s of servers.splice(0)) await s.close();
    });

    it('answers the 600th request of a minute and refuses the 601st with 503 Slow Down', async () => {
      const server = await start();
      const { api, user } = await createTestClient(server, { accountType: 'professional' });
      for (let i = 1; i <= 599; i++) {
        const res = await api.get('/account');
        assert.equal(res.status, 200, `request ${i}`);
      }
      const last = await api.get('/account', { json: true });
      assert.equal(last.status, 200);
      assert.deepEqual(limitHeaders(last), { count: '600', max: '100000' });

      const refused = await api.get('/account', { json: true });
      assert.equal(refused.status, 503);
      assert.equal(refused.headers['retry-after'], '45', 'seconds until the minute ends');
      assert.equal(refused.json.mkm_error_description, 'Slow Down');
      assert.equal(refused.json.internal_error_code, 'rate_limited');
      assert.equal(refused.json.http_status_code, 503);
      assert.deepEqual(limitHeaders(refused), { count: '600', max: '100000' }, 'refused: not counted');
      const xml = await api.get('/account');
      assert.equal(xml.status, 503);
      assert.equal(xmlValue(xml.text, 'mkm_error_description'), 'Slow Down');

      // Another app token acting for the same user has a minute of its own.
      const thirdParty = await createTestApp(server, await createTestUser(server), 'thirdParty');
      const token = await createAccessToken(server.services, {
        idApp: thirdParty.idApp,
        idUser: user.idUser,
      });
      const other = new ApiClient(server, {
        ...thirdParty,
        accessToken: token.token,
        accessTokenSecret: token.secret,
        idUser: user.idUser,
      });
      assert.equal((await other.get('/account')).status, 200);

      // The next minute starts from zero; the two refusals spent nothing of the day.
      server.clock.advance(45_000);
      const next = await api.get('/account');
      assert.equal(next.status, 200);
      assert.deepEqual(limitHeaders(next), { count: '601', max: '100000' });
    });

    it('answers the 5,000th request of a private account and refuses the 5,001st with 429 until midnight', async () => {
      const server = await start();
      const { api, user, cred } = await createTestClient(server, { accountType: 'private' });
      // 4,999 requests of earlier minutes today, counted straight into the store.
      const day = berlinDay(NOON);
      for (let i = 0; i < 4999; i++) {
        const r = await server.services.limits.charge({
          idUser: user.idUser,
          idApp: cred.idApp,
          minute: minuteOf(NOON) - 1 - (i % 60),
          rateMax: 1e9,
          rateTtlMs: 60_000,
          day: day.key,
          dayMax: 5000,
          marketplaceMax: 0,
          dayTtlMs: day.end - NOON,
          lockKey: '',
          lockToken: '',
          lockTtlMs: 1,
        });
        assert.equal(r.outcome, ALLOWED);
      }
      const last = await api.get('/account', { json: true });
      assert.equal(last.status, 200);
      assert.deepEqual(limitHeaders(last), { count: '5000', max: '5000' });

      const refused = await api.get('/account', { json: true });
      assert.equal(refused.status, 429);
      assert.equal(refused.json.internal_error_code, 'daily_limit_reached');
      assert.match(refused.json.mkm_error_description, /5000 requests a day/);
      assert.match(
        refused.json.mkm_error_description,
        /midnight Europe\/Berlin \(2026-11-22T00:00:00\+0100\)/,
      );
      // 12:00:15 to midnight, Berlin time.
      assert.equal(refused.headers['retry-after'], String(12 * 3600 - 15));
      assert.deepEqual(limitHeaders(refused), { count: '5000', max: '5000' });
      const xml = await api.get('/account');
      assert.equal(xml.status, 429);
      assert.equal(xmlValue(xml.text, 'http_status_code'), '429');
      assert.equal(xmlValue(xml.text, 'internal_error_code'), 'daily_limit_reached');
    });

    it('sets the quota by the app owner’s account type, and the headers on every answer', async () => {
      const server = await start();
      for (const [accountType, max] of [
        ['private', '5000'],
        ['professional', '100000'],
        ['powerseller', '1000000'],
      ] as const) {
        const { api } = await createTestClient(server, { accountType });
        const okRes = await api.get('/account');
        assert.equal(okRes.status, 200);
        assert.deepEqual(limitHeaders(okRes), { count: '1', max });
        // A request the route refuses still was a request: counted, with the headers.
        const bad = await api.put('/account/language', undefined, { json: true });
        assert.equal(bad.status, 400);
        assert.deepEqual(limitHeaders(bad), { count: '2', max });
      }
    });

    it('gives widget and third-party apps no quota and no limit headers', async () => {
      const server = await start({ limitsDailyPrivate: 2 });
      const owner = await createTestUser(server, { accountType: 'private' });
      const widget = new ApiClient(server, await createTestApp(server, owner, 'widget'));
      const thirdParty = await createTestApp(server, owner, 'thirdParty');
      const user = await createTestUser(server, { accountType: 'private' });
      const token = await createAccessToken(server.services, {
        idApp: thirdParty.idApp,
        idUser: user.idUser,
      });
      const acting = new ApiClient(server, {
        ...thirdParty,
        accessToken: token.token,
        accessTokenSecret: token.secret,
        idUser: user.idUser,
      });
      for (let i = 0; i < 5; i++) {
        const w = await widget.get('/games');
        assert.equal(w.status, 200);
        assert.deepEqual(limitHeaders(w), { count: undefined, max: undefined });
        const t = await acting.get('/account');
        assert.equal(t.status, 200);
        assert.deepEqual(limitHeaders(t), { count: undefined, max: undefined });
      }
    });

    it('caps the marketplace group at 30,000 a day while other groups use the rest of the quota', async () => {
      const server = await start();
      const { api, user, cred } = await createTestClient(server, { accountType: 'powerseller' });
      const day = berlinDay(NOON);
      for (let i = 0; i < 29_999; i++) {
        await server.services.limits.charge({
          idUser: user.idUser,
          idApp: cred.idApp,
          minute: minuteOf(NOON) - 1,
          rateMax: 1e9,
          rateTtlMs: 60_000,
          day: day.key,
          dayMax: 1_000_000,
          marketplaceMax: 30_000,
          dayTtlMs: day.end - NOON,
          lockKey: '',
          lockToken: '',
          lockTtlMs: 1,
        });
      }
      const last = await api.get('/games');
      assert.equal(last.status, 200);
      assert.deepEqual(limitHeaders(last), { count: '30000', max: '1000000' });

      const capped = await api.get('/games', { json: true });
      assert.equal(capped.status, 429);
      assert.equal(capped.json.internal_error_code, 'marketplace_limit_reached');
      assert.match(capped.json.mkm_error_description, /at most 30000 requests a day to the marketplace/);
      assert.deepEqual(limitHeaders(capped), { count: '30000', max: '1000000' });
      // Product search is marketplace too; stock and the account are not.
      assert.equal((await api.get('/products/find?search=abcd')).status, 429);
      const stock = await api.get('/stock');
      assert.equal(stock.status, 200);
      assert.deepEqual(limitHeaders(stock), { count: '30001', max: '1000000' });
      assert.equal((await api.get('/account')).status, 200);
    });

    it('stops every group when the overall quota is spent', async () => {
      const server = await start({ limitsDailyPrivate: 4, limitsDailyMarketplace: 2 });
      const { api } = await createTestClient(server, { accountType: 'private' });
      assert.equal((await api.get('/games')).status, 200);
      assert.equal((await api.get('/games')).status, 200);
      assert.equal((await api.get('/games')).status, 429, 'marketplace cap');
      assert.equal((await api.get('/stock')).status, 200);
      const fourth = await api.get('/account');
      assert.equal(fourth.status, 200);
      assert.deepEqual(limitHeaders(fourth), { count: '4', max: '4' });
      const spent = await api.get('/stock', { json: true });
      assert.equal(spent.status, 429);
      assert.equal(spent.json.internal_error_code, 'daily_limit_reached');
      assert.equal((await api.get('/games', { json: true })).json.internal_error_code, 'daily_limit_reached');
    });

    it('starts the day again at midnight Europe/Berlin, on the marketplace clock', async () => {
      const server = await start({ limitsDailyPrivate: 2 });
      const { api } = await createTestClient(server, { accountType: 'private' });
      // 23:30 in Berlin (22:30 UTC, winter).
      server.clock.set(Date.UTC(2026, 10, 21, 22, 30));
      assert.equal((await api.get('/account')).status, 200);
      assert.equal((await api.get('/account')).status, 200);
      server.clock.set(Date.UTC(2026, 10, 21, 22, 59, 59, 500));
      const before = await api.get('/account');
      assert.equal(before.status, 429);
      assert.equal(before.headers['retry-after'], '1');
      // Berlin midnight, an hour before UTC's.
      server.clock.set(Date.UTC(2026, 10, 21, 23, 0, 0));
      const after = await api.get('/account');
      assert.equal(after.status, 200);
      assert.deepEqual(limitHeaders(after), { count: '1', max: '2' });

      // In summer Berlin is two hours ahead.
      server.clock.set(Date.UTC(2027, 6, 1, 21, 59, 0));
      assert.equal((await api.get('/account')).status, 200);
      assert.equal((await api.get('/account')).status, 200);
      assert.equal((await api.get('/account')).status, 429);
      server.clock.set(Date.UTC(2027, 6, 1, 22, 0, 0));
      assert.equal((await api.get('/account')).status, 200);
    });

    it('answers one request of a restricted group at a time per IP, with 429 and Retry-After: 1', async () => {
      const server = await start();
      const { api } = await createTestClient(server, { accountType: 'professional' });
      const first = api.get('/stock/file', { remoteAddress: '10.0.0.1' });
      await holds.inside(1);

      const second = await api.get('/stock/file', { remoteAddress: '10.0.0.1', json: true });
      assert.equal(second.status, 429);
      assert.equal(second.headers['retry-after'], '1');
      assert.equal(second.json.internal_error_code, 'concurrent_request');
      assert.match(
        second.json.mkm_error_description,
        /"stockFile" from your address is still being processed/,
      );
      assert.deepEqual(limitHeaders(second), { count: '1', max: '100000' }, 'the refusal is not counted');
      assert.equal(holds.count, 1, 'the refused request never reached its handler');

      // Unrestricted routes and other restricted groups from the same IP are not held up.
      assert.equal((await api.get('/stock', { remoteAddress: '10.0.0.1' })).status, 200);
      const exportReq = api.post('/exports/stock', undefined, { remoteAddress: '10.0.0.1' });
      await holds.inside(2);

      holds.releaseAll();
      assert.equal((await first).status, 200);
      assert.equal((await exportReq).status, 202);
      holds.holding = false;
      const third = await api.get('/stock/file', { remoteAddress: '10.0.0.1' });
      assert.equal(third.status, 200, 'the place is free once the first request has been answered');
      assert.deepEqual(limitHeaders(third), { count: '4', max: '100000' }, 'held, stock, export, this one');
    });

    it('lets requests of one restricted group from two IPs run at the same time', async () => {
      const server = await start();
      const a = (await createTestClient(server)).api;
      const b = (await createTestClient(server)).api;
      const fromA = a.get('/products/find?search=Forest', { remoteAddress: '192.0.2.10' });
      const fromB = b.get('/products/find?search=Forest', { remoteAddress: '198.51.100.20' });
      // Both are inside the handler at once: neither waited for the other.
      await holds.inside(2);
      // A second client behind the first address is refused while that address has one in progress.
      assert.equal(
        (await b.get('/products/find?search=Forest', { remoteAddress: '192.0.2.10' })).status,
        429,
      );
      holds.releaseAll();
      assert.equal((await fromA).status, 200);
      assert.equal((await fromB).status, 200);
    });

    it('frees the place of a request that failed', async () => {
      const server = await start();
      const { api } = await createTestClient(server);
      holds.holding = false;
      const failed = await api.get('/products/find', { remoteAddress: '10.0.0.2', json: true });
      assert.equal(failed.status, 400);
      assert.equal(failed.json.post_data_field, 'search');
      assert.equal(
        (await api.get('/products/find?search=Island', { remoteAddress: '10.0.0.2' })).status,
        200,
      );
    });

    it('restricts only the groups named in LIMITS_CONCURRENT_GROUPS', async () => {
      const server = await start({ limitsConcurrentGroups: ['exports'] });
      const { api } = await createTestClient(server);
      const first = api.get('/stock/file', { remoteAddress: '10.0.0.3' });
      const second = api.get('/stock/file', { remoteAddress: '10.0.0.3' });
      await holds.inside(2);
      holds.releaseAll();
      assert.equal((await first).status, 200);
      assert.equal((await second).status, 200);
    });

    it('answers 503 at once, counting nothing, while the limit store is unreachable, and recovers', async () => {
      const server = await start();
      const { api } = await createTestClient(server, { accountType: 'professional' });
      assert.equal((await api.get('/account')).status, 200);
      const working = server.services.limits;
      const redis = openRedis('redis://127.0.0.1:1');
      try {
        server.services.limits = new RedisLimitStore(redis, 'test:limits:unreachable:');
        const started = Date.now();
        const res = await api.get('/account', { json: true });
        assert.equal(res.status, 503);
        assert.equal(res.json.internal_error_code, 'limits_unavailable');
        assert.match(res.json.mkm_error_description, /limit store \(Redis\) is unreachable/);
        assert.ok(Date.now() - started < 3000);
      } finally {
        server.services.limits = working;
        redis.disconnect();
      }
      const back = await api.get('/account');
      assert.equal(back.status, 200);
      assert.deepEqual(limitHeaders(back), { count: '2', max: '100000' });
    });

    it('counts nothing and adds no hook when LIMITS_ENABLED is false', async () => {
      const server = await start({ limitsEnabled: false, limitsPerMinute: 1 });
      const { api } = await createTestClient(server);
      for (let i = 0; i < 3; i++) {
        const res = await api.get('/account');
        assert.equal(res.status, 200);
        assert.equal(res.headers['x-request-limit-count'], undefined);
      }
    });
  });
}

describe('request limits over a real connection', () => {
  let server: TestServer;
  let port: number;
  before(async () => {
    server = await limitedServer('sqlite');
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    port = (server.app.server.address() as AddressInfo).port;
  });
  after(async () => {
    holds.releaseAll();
    holds.holding = true;
    await server.close();
  });

  /** A GET through a socket of its own, signed for the test host the server expects. */
  function get(api: ApiClient, path: string, agent: Agent | false = false) {
    const url = `${BASE}/ws/v2.0${path}`;
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path: `/ws/v2.0${path}`,
      headers: { host: HOST, authorization: signedHeader(api.cred, 'GET', url) },
      agent,
    });
    const response = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
    });
    req.end();
    return { req, response };
  }

  it('frees the place when the client goes away before the answer', async () => {
    const { api } = await createTestClient(server);
    const store: LimitStore = server.services.limits;
    const released = new Promise<void>((resolve) => {
      const original = store.release.bind(store);
      store.release = async (key, token) => {
        await original(key, token);
        store.release = original;
        resolve();
      };
    });
    const first = get(api, '/stock/file');
    first.response.catch(() => {});
    await holds.inside(1);
    assert.equal(await get(api, '/stock/file').response, 429, 'held by the first request');
    // The handler is still running (held); the client hangs up.
    first.req.destroy();
    await released;
    assert.equal(holds.count >= 1, true, 'the first request is still inside its handler');
    holds.releaseAll();
    holds.holding = false;
    assert.equal(await get(api, '/stock/file').response, 200);
  });

  it('frees the place after each answer on a kept-alive connection', async () => {
    const { api } = await createTestClient(server);
    holds.holding = false;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 3; i++) {
        assert.equal(await get(api, '/stock/file', agent).response, 200, `request ${i + 1}`);
      }
    } finally {
      agent.destroy();
    }
  });
});
