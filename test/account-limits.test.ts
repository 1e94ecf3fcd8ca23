import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { signIn, signInDelay, type SignInLimits } from '../src/auth/sign-in.js';
import type { Config } from '../src/config.js';
import { signInUserKey } from '../src/limits/attempts.js';
import { MemoryLimitStore } from '../src/limits/memory-store.js';
import { describeUnless, NO_REDIS, startTestServer, type TestServer } from './helpers.js';
import { textOf, WebClient } from './web-client.js';

/**
 * The website's sign-in and registration limits (issue 31): nobody can lock an owner out, and
 * nobody can create accounts without bound. Over the memory store and, with TEST_REDIS_URL, over
 * Redis (each suite with a key prefix of its own), where several instances share the counts.
 */

const PASSWORD = 'the right password';
let names = 0;
const uniqueName = (prefix: string) => `${prefix}${++names}${randomBytes(2).toString('hex')}`;

function storeConfig(store: 'memory' | 'redis'): Partial<Config> {
  return store === 'redis'
    ? { redisUrl: process.env.TEST_REDIS_URL, limitsRedisPrefix: `test:${randomBytes(6).toString('hex')}:` }
    : {};
}

async function registered(server: TestServer, prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  const res = await new WebClient(server, { remoteAddress: '192.0.2.200' }).register(name, PASSWORD);
  assert.equal(res.status, 303, res.text);
  return name;
}

for (const store of ['memory', 'redis'] as const) {
  describeUnless(store === 'redis' ? NO_REDIS : undefined, `sign-in limits (${store} store)`, () => {
    let server: TestServer;
    before(async () => {
      // The defaults, but for the per-address limit (the tests would take long to reach 30) and a
      // slowdown short enough to wait for.
      server = await startTestServer({
        config: {
          ...storeConfig(store),
          signInAttemptsPerAddress: 8,
          signInSlowdownAfter: 6,
          signInMaxDelayMs: 3000,
        },
      });
    });
    after(() => server.close());

    it('five wrong passwords from one address do not stop the right password from another', async () => {
      const name = await registered(server, 'bob');
      const attacker = new WebClient(server, { remoteAddress: '198.51.100.7' });
      for (let i = 0; i < 5; i++) assert.equal((await attacker.signIn(name, `wrong ${i}`)).status, 401);
      // The pair is locked, the right password included…
      const locked = await attacker.signIn(name, PASSWORD);
      assert.equal(locked.status, 429);
      assert.ok(Number(locked.headers['retry-after']) > 0);
      assert.match(textOf(locked.text), /Too many failed sign-ins/);
      assert.equal(attacker.cookies.get('cardbazaar_session'), undefined);
      // …but the owner, from an address with no failures, signs in at once.
      const owner = new WebClient(server, { remoteAddress: '203.0.113.9' });
      // Not slowed either: five failures of the name, where the slowdown starts at six.
      assert.equal(await server.services.limits.countAttempts(signInUserKey(name)), 5);
      const ok = await owner.signIn(name, PASSWORD);
      assert.equal(ok.status, 303, ok.text);
      assert.equal(ok.location, '/profile');
      assert.equal((await owner.get('/profile')).status, 200);
    });

    it('refuses an address that fails for many usernames, and only that address', async () => {
      const victim = await registered(server, 'carol');
      const scanner = new WebClient(server, { remoteAddress: '198.51.100.8' });
      for (let i = 0; i < 8; i++) {
        assert.equal((await scanner.signIn(uniqueName('guess'), 'password1')).status, 401);
      }
      assert.equal((await scanner.signIn(victim, PASSWORD)).status, 429);
      const elsewhere = new WebClient(server, { remoteAddress: '198.51.100.9' });
      assert.equal((await elsewhere.signIn(victim, PASSWORD)).status, 303);
    });

    it('slows a username attacked from many addresses down, and still lets the right password in', async () => {
      const name = await registered(server, 'dave');
      for (let i = 0; i < 8; i++) {
        const bot = new WebClient(server, { remoteAddress: `198.51.100.${100 + i}` });
        assert.equal((await bot.signIn(name, `guess ${i}`)).status, 401);
      }
      // Eight failures from eight addresses: every attempt on the name now waits (1 s at six
      // failures, doubling, here up to the 3 s cap), and none is refused.
      const owner = new WebClient(server, { remoteAddress: '203.0.113.10' });
      await owner.get('/login');
      const started = performance.now();
      const ok = await owner.post('/login', { username: name, password: PASSWORD, next: '/profile' });
      const waited = performance.now() - started;
      assert.equal(ok.status, 303, ok.text);
      assert.ok(waited >= 2990, `waited ${waited} ms`);
      // The failures are the name's, not anyone else's.
      const other = await registered(server, 'erin');
      assert.equal(await server.services.limits.countAttempts(signInUserKey(other)), 0);
    });
  });

  describeUnless(store === 'redis' ? NO_REDIS : undefined, `registration limits (${store} store)`, () => {
    let server: TestServer;
    let second: TestServer | undefined;
    before(async () => {
      const config = {
        ...storeConfig(store),
        limitsEnabled: true,
        registrationsPerAddress: 3,
        registrationsGlobal: 5,
        registrationWindowMs: 3600_000,
      };
      server = await startTestServer({ config });
      // With Redis, a second instance on the same counts (its own database: only the limits are shared).
      if (store === 'redis') second = await startTestServer({ config });
    });
    after(async () => {
      await server.close();
      await second?.close();
    });

    it('refuses more accounts from one address with 429, Retry-After and the reason on the page', async () => {
      const results: number[] = [];
      for (let i = 0; i < 3; i++) {
        const web = new WebClient(i === 1 && second ? second : server, { remoteAddress: '198.51.100.20' });
        results.push((await web.register(uniqueName('flood'))).status);
      }
      assert.deepEqual(results, [303, 303, 303]);
      const users = await server.services.database.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      const web = new WebClient(second ?? server, { remoteAddress: '198.51.100.20', acceptLanguage: 'fr' });
      const refused = await web.register(uniqueName('flood'));
      assert.equal(refused.status, 429);
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(retryAfter > 3500 && retryAfter <= 3600, String(retryAfter));
      assert.match(refused.headers['content-type'] as string, /^text\/html/);
      assert.match(
        textOf(refused.text),
        /Trop de comptes ont été créés récemment\. Réessayez dans 60 minutes\./,
      );
      assert.equal(web.cookies.get('cardbazaar_session'), undefined);
      const after = await server.services.database.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(after.n), Number(users.n));
      // A form with mistakes is answered as before and counts nothing.
      const typo = await new WebClient(server, { remoteAddress: '198.51.100.21' }).register('x');
      assert.equal(typo.status, 400);
    });

    it('refuses more accounts on the whole site, from any address', async () => {
      // Three from the first test, then two more from other addresses fill the site's five.
      for (const address of ['198.51.100.30', '198.51.100.31']) {
        assert.equal(
          (await new WebClient(server, { remoteAddress: address }).register(uniqueName('g'))).status,
          303,
        );
      }
      const refused = await new WebClient(server, { remoteAddress: '198.51.100.32' }).register(
        uniqueName('g'),
      );
      assert.equal(refused.status, 429);
      assert.match(textOf(refused.text), /Too many accounts were created recently/);
    });
  });
}

describe('the sign-in slowdown', () => {
  it('grows from one second, doubling with each failure, up to the cap', () => {
    const limits = { slowdownAfter: 3, maxDelayMs: 10_000 };
    assert.deepEqual(
      [0, 2, 3, 4, 5, 6, 7, 8].map((f) => signInDelay(limits, f)),
      [0, 0, 1000, 2000, 4000, 8000, 10_000, 10_000],
    );
    assert.equal(signInDelay({ slowdownAfter: 3, maxDelayMs: 0 }, 50), 0);
  });

  it('waits before checking each attempt on an attacked username, the right one included', async () => {
    const server = await startTestServer();
    try {
      const name = await registered(server, 'frank');
      const waits: number[] = [];
      const limits: SignInLimits = {
        limits: new MemoryLimitStore(),
        perPair: 5,
        perAddress: 30,
        slowdownAfter: 2,
        maxDelayMs: 5000,
        windowMs: 900_000,
        sleep: async (ms) => void waits.push(ms),
      };
      for (let i = 0; i < 5; i++) {
        await assert.rejects(
          signIn(server.services, limits, { username: name, password: `no ${i}`, ip: `198.51.100.${i}` }),
          (err: { status: number }) => err.status === 401,
        );
      }
      const user = await signIn(server.services, limits, {
        username: name,
        password: PASSWORD,
        ip: '203.0.113.1',
      });
      assert.equal(user.username, name);
      assert.deepEqual(waits, [1000, 2000, 4000, 5000]);
    } finally {
      await server.close();
    }
  });
});
