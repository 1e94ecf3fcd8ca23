import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { OffsetClock } from '../src/clock.js';
import { testConfig } from '../src/config.js';
import { createServices } from '../src/services.js';
import { CLOCK_OFFSET } from '../src/store/faults.js';
import { getSetting, putSetting } from '../src/store/settings.js';
import {
  loadScenario,
  readMarketState,
  setMarketStatus,
  startServerMarket,
  parseScenario,
  runMarket,
  type Scenario,
  ScenarioError,
  validateScenario,
} from '../src/domain/market/index.js';
import { ApiError } from '../src/errors.js';
import { createUser } from '../src/domain/users.js';
import { marketActions } from '../src/store/market.js';
import { parseSteps, runFixture } from '../src/sandbox/fixtures.js';
import { runCli } from './cli-helpers.js';
import { cliOn } from './file-servers.js';
import { DIALECTS, startFileTestServer, startTestServer, type TestServer } from './helpers.js';
import { catalog, START } from './market-helpers.js';

async function freshServer(dialect: (typeof DIALECTS)[number] = 'sqlite'): Promise<TestServer> {
  const server = await startTestServer({ dialect });
  server.clock.set(START);
  await catalog(server);
  return server;
}

/** The outbox as it was written: type, payload and time of every event, in order. */
async function eventStream(server: TestServer): Promise<string> {
  const rows = await server.services.database.db
    .selectFrom('events')
    .select(['idEvent', 'type', 'payload', 'createdAt'])
    .orderBy('idEvent')
    .execute();
  return rows.map((r) => `${r.idEvent} ${r.createdAt} ${r.type} ${r.payload}`).join('\n');
}

const small = (name: string): Scenario => {
  const s = loadScenario(name);
  return { ...s, products: { count: 6 } };
};

describe('the living market is deterministic', () => {
  const servers: TestServer[] = [];
  after(async () => {
    for (const s of servers) await s.close();
  });

  it('the same seed and scenario give byte-identical event streams; another seed another', async () => {
    const streams: string[] = [];
    const logs: string[] = [];
    for (const seed of ['1234', '1234', '999']) {
      const server = await freshServer();
      servers.push(server);
      const summary = await runMarket(server.services, server.clock, {
        scenario: small('spike'),
        seed,
        days: 4,
      });
      assert.equal(summary.days, 4);
      assert.equal(server.clock.now(), START + 4 * 86_400_000, 'the market moved the clock by its days');
      streams.push(await eventStream(server));
      logs.push(
        JSON.stringify((await marketActions(server.services.database.db)).map(({ idAction: _, ...a }) => a)),
      );
    }
    const [a, b, c] = streams as [string, string, string];
    assert.ok(a.split('\n').length > 100, `a market week raises many events (${a.split('\n').length})`);
    for (const type of [
      'article.listed',
      'order.stateChanged',
      'article.reserved',
      'message.sent',
      'order.changed',
    ])
      assert.ok(a.includes(` ${type} `), `the stream has ${type} events`);
    assert.equal(a, b, 'same seed, same events');
    assert.equal(logs[0], logs[1], 'same seed, same market log');
    assert.notEqual(a, c, 'another seed, other events');

    // Each trader's actions show in the request log as its app's requests.
    const first = servers[0]!.services;
    await first.requestLog?.flush();
    const house = await first.database.db
      .selectFrom('marketTraders')
      .selectAll()
      .where('name', '=', 'spike-house-1')
      .executeTakeFirstOrThrow();
    const requests = await first.database.db
      .selectFrom('requestLog')
      .select(['method', 'path', 'status', 'idApp'])
      .where('idUser', '=', house.idUser)
      .execute();
    assert.ok(requests.length > 0, 'the house seller has requests in the log');
    assert.ok(requests.every((r) => r.idApp === house.idApp));
    assert.ok(requests.some((r) => r.method === 'POST' && r.path === '/ws/v2.0/stock'));

    // The website's market page shows the run, the traders, value beside guide, the last actions.
    const page = await servers[0]!.app.inject({ method: 'GET', url: '/market' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Scenario spike, seed 1234: finished, day 4 of 4\./);
    assert.match(page.body, /<td>house<\/td><td>2<\/td>/);
    assert.match(page.body, /id="market-product-700001"/);
    assert.match(page.body, /<td>spike-[a-zA-Z]+-\d<\/td>/);
  });
});

for (const dialect of DIALECTS) {
  describe(`the living market conserves money and stock over a simulated week (${dialect})`, () => {
    let server: TestServer;
    after(() => server?.close());

    async function totalMoney(): Promise<number> {
      const db = server.services.database.db;
      const balances = await db
        .selectFrom('users')
        .select(sql<string>`coalesce(sum("moneyBalance" + "bonusBalance"), 0)`.as('n'))
        .executeTakeFirstOrThrow();
      const held = await db
        .selectFrom('orders')
        .select(sql<string>`coalesce(sum("paidFromMoney" + "paidFromBonus"), 0)`.as('n'))
        .where('state', 'in', ['paid', 'sent'])
        .executeTakeFirstOrThrow();
      return Number(balances.n) + Number(held.n);
    }

    /** Copies per product: available, reserved, or in an order not cancelled with relist. */
    async function copies(): Promise<Map<number, number>> {
      const db = server.services.database.db;
      const out = new Map<number, number>();
      const add = (id: number, n: number) => out.set(id, (out.get(id) ?? 0) + n);
      for (const r of await db.selectFrom('articles').select(['idProduct', 'count']).execute())
        add(r.idProduct, r.count);
      for (const r of await db
        .selectFrom('reservationArticles as r')
        .innerJoin('articles as a', 'a.idArticle', 'r.idArticle')
        .select(['a.idProduct', 'r.count'])
        .execute())
        add(r.idProduct, r.count);
      for (const l of await db
        .selectFrom('orderArticles as l')
        .innerJoin('orders as o', 'o.idOrder', 'l.idOrder')
        .select(['l.idProduct', 'l.count', 'o.state', 'o.relistOnCancel'])
        .where('o.wasMergedInto', 'is', null)
        .execute()) {
        if (l.state === 'cancelled' && l.relistOnCancel === 1) continue;
        add(l.idProduct, l.count);
      }
      return out;
    }

    it('balances plus held money change only by logged top-ups; copies only by logged listings', async () => {
      server = await freshServer(dialect);
      // A real user with stock of their own: the market buys from them, and never acts for them.
      const client = await createUser(server.services, {
        username: 'real-client',
        country: 'D',
        accountType: 'private',
        firstName: 'Real',
        lastName: 'Client',
        street: 'Weg 1',
        zip: '10115',
        city: 'Berlin',
      });
      await server.services.database.db
        .insertInto('articles')
        .values({
          idUser: client.idUser,
          idProduct: 700_001,
          idLanguage: 1,
          comments: '',
          price: 3,
          condition: 'NM',
          isFoil: 0,
          isSigned: 0,
          isAltered: 0,
          isPlayset: 0,
          isFirstEd: 0,
          isReverseHolo: 0,
          count: 2,
          createdAt: START,
          lastEdited: START,
        })
        .execute();
      const money = await totalMoney();
      const before = await copies();
      await runMarket(server.services, server.clock, { scenario: small('calm'), seed: '77', days: 7 });
      const log = await marketActions(server.services.database.db);
      const funded = log
        .filter((a) => a.action === 'fund')
        .reduce((n, a) => n + (JSON.parse(a.detail) as { cents: number }).cents, 0);
      assert.equal(await totalMoney(), money + funded, 'money');
      const listed = new Map<number, number>();
      for (const a of log) {
        if (a.action !== 'list' || a.outcome !== 'ok') continue;
        const d = JSON.parse(a.detail) as { idProduct: number; count: number };
        listed.set(d.idProduct, (listed.get(d.idProduct) ?? 0) + d.count);
      }
      const after = await copies();
      for (const id of new Set([...before.keys(), ...after.keys()]))
        assert.equal(after.get(id) ?? 0, (before.get(id) ?? 0) + (listed.get(id) ?? 0), `copies of ${id}`);

      const done = (action: string) => log.filter((a) => a.action === action && a.outcome === 'ok').length;
      for (const action of ['list', 'reprice', 'checkout', 'pay', 'send', 'confirmReception', 'evaluate'])
        assert.ok(done(action) > 0, `the week saw ${action} (${done(action)})`);
      assert.ok(!log.some((a) => a.idUser === client.idUser), 'the market never acts for a real user');
      const sold = await server.services.database.db
        .selectFrom('orders')
        .select('idOrder')
        .where('idSeller', '=', client.idUser)
        .execute();
      assert.ok(sold.length > 0, "the client's cheap offer was bought");
      const guide = await server.services.database.db
        .selectFrom('priceGuides')
        .select(['idProduct', 'avg1', 'trend'])
        .where('idProduct', '>', 700_000)
        .where('trend', 'is not', null)
        .execute();
      assert.ok(guide.length > 0, 'the price guide was computed from the simulated sales');
    });
  });
}

describe('market scenarios', () => {
  it('the shipped scenarios load', () => {
    for (const name of ['calm', 'spike', 'sellout']) assert.equal(loadScenario(name).name, name);
    // The benchmark's market (bench/scenarios/market.ts): a file beside them, not a named scenario.
    const crowd = loadScenario('scenarios/market/crowd.json');
    assert.equal(
      crowd.traders.reduce((n, t) => n + t.count, 0),
      1000,
    );
    assert.equal(crowd.stepsPerDay, 1440);
  });

  it('errors name the field at fault', () => {
    const base = { traders: [{ kind: 'house', count: 1 }] };
    const cases: Array<[unknown, RegExp]> = [
      [{ ...base, traders: [{ kind: 'whale', count: 1 }] }, /traders\[0\]\.kind: must be one of house/],
      [{ ...base, traders: [{ kind: 'house', count: -1 }] }, /traders\[0\]\.count: must be from 0/],
      [{ ...base, traders: [{ kind: 'house', count: 1, spred: 1 }] }, /traders\[0\]\.spred: unknown field/],
      [{ ...base, products: { count: 'ten' } }, /products\.count: must be a number/],
      [{ ...base, value: { volatility: 9 } }, /value\.volatility: must be from 0 to 2/],
      [{ ...base, shocks: [{ day: 1, type: 'value', product: 0 }] }, /shocks\[0\]\.factor: is required/],
      [
        { ...base, shocks: [{ day: 1, type: 'meteor' }] },
        /shocks\[0\]\.type: must be value, vacation or noRestock/,
      ],
      [{ traders: [] }, /traders: must be a non-empty list/],
      [{ ...base, stepsPerDay: 1.5 }, /stepsPerDay: must be a whole number/],
      [{ ...base, stepsPerDay: 2880 }, /stepsPerDay: must be from 1 to 1440/],
    ];
    for (const [raw, message] of cases) assert.throws(() => validateScenario(raw, 'test'), message);
    assert.throws(() => parseScenario('traders: [', 'broken', '.yaml'), ScenarioError);
    assert.throws(() => loadScenario('no-such-scenario'), /not one of the shipped scenarios/);
  });

  it('a YAML file is a scenario too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'market-'));
    try {
      const file = join(dir, 'mine.yaml');
      writeFileSync(
        file,
        'description: two sellers\ntraders:\n  - kind: undercutter\n    count: 2\nshocks:\n  - { day: 1, type: value, product: all, factor: 1.5 }\n',
      );
      const s = loadScenario(file);
      assert.equal(s.name, 'mine');
      assert.equal(s.traders[0]!.count, 2);
      assert.equal(s.shocks[0]!.type, 'value');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the market is sandbox only', () => {
  let server: TestServer;
  after(() => server?.close());

  it('production refuses it, and it never takes over a real user', async () => {
    server = await freshServer();
    const production = {
      ...server.services,
      config: { ...server.services.config, mode: 'production' as const },
    };
    await assert.rejects(
      runMarket(production, server.clock, { scenario: small('calm'), seed: '1', days: 1 }),
      (err: unknown) => err instanceof ApiError && err.status === 403 && /sandbox/.test(err.message),
    );
    await createUser(server.services, { username: 'calm-house-1', country: 'D', accountType: 'private' });
    await assert.rejects(
      runMarket(server.services, server.clock, { scenario: small('calm'), seed: '1', days: 1 }),
      /belongs to a real user/,
    );
    const actions = await marketActions(server.services.database.db);
    assert.ok(!actions.some((a) => a.trader === 'calm-house-1'));
  });

  it('a fixture step runs a market', async () => {
    const server2 = await freshServer();
    try {
      const steps = parseSteps({ steps: [{ market: 'week', scenario: 'calm', seed: '3', days: 2 }] });
      const { created } = await runFixture(server2.services, steps);
      assert.equal(created.week!.days, 2);
      assert.ok(Number(created.week!.actions) > 10);
      assert.equal(server2.clock.now(), START + 2 * 86_400_000);
      assert.throws(
        () => parseSteps({ steps: [{ market: 'm', scenery: 'calm' }] }),
        /field "scenery": unknown/,
      );
      await assert.rejects(
        runFixture(server2.services, parseSteps({ steps: [{ market: 'm2', scenario: 'nope' }] })),
        /step 1 \(market "m2"\), field "scenario": scenario nope/,
      );
    } finally {
      await server2.close();
    }
  });

  it('production has no market page', async () => {
    const prod = await startTestServer({
      config: { mode: 'production', publicBaseUrl: 'https://api.example.org' },
    });
    try {
      assert.equal((await prod.app.inject({ method: 'GET', url: '/market' })).statusCode, 404);
    } finally {
      await prod.close();
    }
  });

  it('the CLI runs a market, prints the seed, its log and its status', async () => {
    const file = await startFileTestServer();
    try {
      await catalog(file);
      const cli = cliOn(file.databaseUrl);
      const ran = await cli('market', 'run', '--scenario', 'calm', '--seed', '9', '--days', '1');
      assert.equal(ran.code, 0, ran.err);
      assert.match(ran.out, /^Market calm, seed 9, 1 days$/m);
      assert.match(ran.out, /^day 1: \d+ actions/m);
      assert.match(ran.out, /actions over 1 days; seed 9\./);
      const log = await cli('market', 'log', '--json');
      const actions = log.out.split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.ok(actions.length > 10);
      for (const a of actions) {
        assert.equal(typeof a.trader, 'string');
        assert.equal(typeof a.reason, 'string');
        assert.equal(typeof a.seedPosition, 'number');
        assert.equal(a.seed, '9');
      }
      assert.ok(actions.some((a) => a.action === 'list' && a.trader === 'calm-house-1'));
      const last = await cli('market', 'log', '--last', '3');
      assert.equal(last.out.split('\n').length, 3);
      const status = await cli('market', 'status');
      assert.match(status.out, /Market calm \(seed 9\): finished, day 1 of 1/);
      assert.match(status.out, /700001 Market Card 1/);
      const pause = await cli('market', 'pause');
      assert.equal(pause.code, 1);
      assert.match(pause.err, /finished: there is nothing to pause/);
    } finally {
      await file.close();
    }
  });

  it('the CLI refuses production and names an unknown scenario', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'market-cli-'));
    const db = join(dir, 'db.sqlite');
    try {
      const refused = await runCli(
        '--production',
        '--secret-key',
        'k'.repeat(40),
        '--public-base-url',
        'https://api.example.org',
        '--database-url',
        db,
        'market',
        'run',
        '--scenario',
        'calm',
      );
      assert.equal(refused.code, 1);
      assert.match(refused.err, /does not run in production/);
      const bad = await runCli('--database-url', db, 'market', 'run', '--scenario', 'nope');
      assert.equal(bad.code, 1);
      assert.match(bad.err, /not one of the shipped scenarios/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a server's market", () => {
  it('runs beside the server on the shared clock, pauses, resumes, keeps a clock advance, finishes', async () => {
    const clock = new OffsetClock(0);
    const services = await createServices(testConfig(), { clock });
    try {
      await catalog({ services } as TestServer);
      const db = services.database.db;
      // A marketplace day in about 40 ms of pacing: the test watches it move, pause and go on.
      const market = startServerMarket(
        services,
        { scenario: small('calm'), seed: '5', days: 3, speed: 2_000_000 },
        (err) => assert.fail(String(err)),
      );
      const started = clock.now();
      for (let i = 0; i < 200 && (await readMarketState(services))?.day !== 1; i++)
        await new Promise((r) => setTimeout(r, 20));
      await setMarketStatus(services, 'paused');
      await new Promise((r) => setTimeout(r, 400));
      const paused = await readMarketState(services);
      assert.equal(paused?.status, 'paused');
      await new Promise((r) => setTimeout(r, 400));
      assert.equal((await readMarketState(services))?.day, paused?.day, 'a paused market stands still');
      // `clock advance 5d` from another process while paused: the market goes on from there.
      const offset = Number((await getSetting(db, CLOCK_OFFSET)) ?? 0);
      await putSetting(db, CLOCK_OFFSET, String(offset + 5 * 86_400_000));
      await setMarketStatus(services, 'running');
      const summary = await market.done;
      assert.equal(summary?.days, 3);
      assert.equal((await readMarketState(services))?.status, 'finished');
      const moved = clock.now() - started;
      assert.ok(
        moved >= 8 * 86_400_000 && moved < 9 * 86_400_000,
        `three market days and the five advanced (${moved})`,
      );
      assert.equal(
        Number(await getSetting(db, CLOCK_OFFSET)),
        clock.offset,
        'the shared offset is the market clock',
      );
      await market.stop();
    } finally {
      await services.close();
    }
  });

  it('stops when told', async () => {
    const clock = new OffsetClock(0);
    const services = await createServices(testConfig(), { clock });
    try {
      await catalog({ services } as TestServer);
      const market = startServerMarket(
        services,
        { scenario: small('calm'), seed: '6', days: 50, speed: 86_400 },
        (err) => assert.fail(String(err)),
      );
      await new Promise((r) => setTimeout(r, 300));
      await market.stop();
      const state = await readMarketState(services);
      assert.equal(state?.status, 'stopped');
      assert.ok((state?.day ?? 0) < 50);
    } finally {
      await services.close();
    }
  });
});
