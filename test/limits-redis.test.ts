import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { Redis } from 'ioredis';
import { ALL_KINDS, ok, type Router, USER_KINDS } from '../src/http/routing.js';
import { accountRoutes } from '../src/routes/account.js';
import type { Services } from '../src/services.js';
import {
  ApiClient,
  type ApiResult,
  createTestClient,
  describeUnless,
  NO_REDIS,
  startTestServer,
  type TestServer,
} from './helpers.js';

/**
 * The limits with REDIS_URL: several instances behind one load balancer share counts and places
 * exactly, and an unreachable Redis means 503, never requests let through uncounted. Runs when
 * TEST_REDIS_URL is set (`.ci/run` gives the Redis on 127.0.0.1:6379, which is never stopped here:
 * the outage test starts a private redis-server of its own).
 */

const REDIS_URL = process.env.TEST_REDIS_URL;
const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

const NOON = Date.UTC(2026, 10, 21, 11, 0, 15);

let release: (() => void) | undefined;
function routes(r: Router, services: Services): void {
  accountRoutes(r, services);
  r.get('/games', { kinds: ALL_KINDS }, async () => ok({ game: [] }));
  r.get('/stock/file', { kinds: USER_KINDS }, async () => {
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return ok({ stock: '', mime: 'application/x-gzip' });
  });
}

/** Waits until a request is inside the held route; answers the function that lets it finish. */
async function inHandler(): Promise<() => void> {
  while (!release) await new Promise((r) => setTimeout(r, 5));
  const r = release;
  release = undefined;
  return r;
}

const limitHeaders = (res: ApiResult) => ({
  count: res.headers['x-request-limit-count'],
  max: res.headers['x-request-limit-max'],
});

describeUnless(NO_REDIS, 'request limits shared by two instances through Redis', () => {
  let dir: string;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cardbazaar-limits-'));
    // One database and one Redis prefix for both instances, as behind a load balancer.
    const config = {
      databaseUrl: join(dir, 'shared.sqlite'),
      redisUrl: REDIS_URL,
      limitsEnabled: true,
      limitsRedisPrefix: `test:limits:${randomBytes(6).toString('hex')}:`,
      limitsPerMinute: 10,
      limitsDailyPrivate: 7,
    };
    a = await startTestServer({ config, routes });
    b = await startTestServer({ config, routes });
    a.clock.set(NOON);
    b.clock.set(NOON);
  });
  after(async () => {
    release?.();
    await a?.close();
    await b?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts the daily quota once across both', async () => {
    const { api: onA, cred } = await createTestClient(a, { accountType: 'private' });
    const onB = new ApiClient(b, cred);
    const counts: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await (i % 2 ? onB : onA).get('/account');
      assert.equal(res.status, 200, `request ${i + 1}`);
      counts.push(limitHeaders(res).count as string);
    }
    assert.deepEqual(counts, ['1', '2', '3', '4', '5', '6', '7']);
    for (const api of [onA, onB]) {
      const refused = await api.get('/account', { json: true });
      assert.equal(refused.status, 429);
      assert.equal(refused.json.internal_error_code, 'daily_limit_reached');
      assert.deepEqual(limitHeaders(refused), { count: '7', max: '7' });
    }
  });

  it('counts the per-minute rate once across both', async () => {
    const { api: onA, cred } = await createTestClient(a, { accountType: 'professional' });
    const onB = new ApiClient(b, cred);
    for (let i = 0; i < 10; i++) assert.equal((await (i % 2 ? onB : onA).get('/account')).status, 200);
    assert.equal((await onA.get('/account')).status, 503);
    assert.equal((await onB.get('/account')).status, 503);
    a.clock.advance(60_000);
    b.clock.advance(60_000);
    assert.equal((await onB.get('/account')).status, 200);
  });

  it('shares the concurrency places: one instance’s request holds the other’s back', async () => {
    const { api: onA, cred } = await createTestClient(a, { accountType: 'professional' });
    const onB = new ApiClient(b, cred);
    const held = onA.get('/stock/file', { remoteAddress: '10.1.1.1' });
    const releaseHeld = await inHandler();
    const refused = await onB.get('/stock/file', { remoteAddress: '10.1.1.1', json: true });
    assert.equal(refused.status, 429);
    assert.equal(refused.json.internal_error_code, 'concurrent_request');
    assert.equal(refused.headers['retry-after'], '1');
    releaseHeld();
    assert.equal((await held).status, 200);
    // Freed in Redis by the instance that held it: the other may go now.
    const next = onB.get('/stock/file', { remoteAddress: '10.1.1.1' });
    (await inHandler())();
    assert.equal((await next).status, 200);
  });
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A private redis-server (no persistence), ready to answer. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, retryStrategy: () => 50 });
  probe.on('error', () => {});
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await probe.connect().catch(() => {});
      if ((await probe.ping()) === 'PONG') break;
    } catch {
      if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not start`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  probe.disconnect();
  return child;
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

describeUnless(
  NO_REDIS ?? (hasRedisServer ? undefined : 'no redis-server to start and stop here'),
  'request limits while Redis is away',
  () => {
    let redis: ChildProcess;
    let server: TestServer;
    let port: number;
    before(async () => {
      port = await freePort();
      redis = await startRedis(port);
      server = await startTestServer({
        config: { redisUrl: `redis://127.0.0.1:${port}`, limitsEnabled: true },
        routes,
      });
    });
    after(async () => {
      await server?.close();
      if (redis) await stopRedis(redis);
    });

    it('answers 503 quickly while Redis is down and recovers by itself when it is back', async () => {
      const { api } = await createTestClient(server, { accountType: 'professional' });
      const first = await api.get('/account');
      assert.equal(first.status, 200);
      assert.deepEqual(limitHeaders(first), { count: '1', max: '100000' });

      await stopRedis(redis);
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const res = await api.get('/account', { json: true });
        assert.equal(res.status, 503, 'never let through uncounted');
        assert.match(res.json.mkm_error_description, /\(Redis\) is unreachable/);
        assert.ok(Date.now() - started < 3000, 'never hanging');
      }

      redis = await startRedis(port);
      // The client reconnects on its own (within its retry interval); no restart, no operator.
      const deadline = Date.now() + 15_000;
      let res = await api.get('/account');
      while (res.status === 503 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        res = await api.get('/account');
      }
      assert.equal(res.status, 200);
      // The new Redis started empty (no persistence): the count starts again.
      assert.deepEqual(limitHeaders(res), { count: '1', max: '100000' });
    });
  },
);
