import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { loadScenario, runMarket } from '../src/domain/market/index.js';
import { recomputeGuides } from '../src/domain/priceguide.js';
import { createUser } from '../src/domain/users.js';
import { listen } from './file-servers.js';
import { createTestApp, startTestServer, type TestServer } from './helpers.js';
import { catalog, START } from './market-helpers.js';

const run = promisify(execFile);

/**
 * Issue 34's "done means": the example bot runs against the calm and the spike scenarios for ten
 * marketplace days, and its log shows it reacting to undercuts, sales and (spike) the shock.
 */
const DAYS = 10;

for (const name of ['calm', 'spike'] as const)
  describe(`the example price bot against a living market (${name})`, () => {
    let server: TestServer;
    after(() => server?.close());

    it(`undercuts the market, sells, and sends its orders, over ${DAYS} days of the ${name} scenario`, async () => {
      server = await startTestServer();
      server.clock.set(START);
      const ids = await catalog(server, 6);
      const db = server.services.database.db;
      // A price guide to start from: the market's fair values and the bot's floor read it.
      for (const idProduct of ids)
        await db
          .insertInto('importedPriceGuides')
          .values({
            idProduct,
            sell: 200,
            low: 180,
            trend: 200,
            avg1: 200,
            avg7: 200,
            avg30: 200,
            sellFoil: null,
            lowFoil: null,
            trendFoil: null,
            foilAvg1: null,
            foilAvg7: null,
            foilAvg30: null,
            importedAt: START,
          })
          .execute();
      await recomputeGuides(db, START);

      const bot = await createUser(server.services, {
        username: 'price-bot',
        country: 'D',
        accountType: 'private',
        firstName: 'Price',
        lastName: 'Bot',
        street: 'Botweg 1',
        zip: '10115',
        city: 'Berlin',
      });
      const cred = await createTestApp(server, bot);
      for (const idProduct of ids.slice(0, 2))
        await db
          .insertInto('articles')
          .values({
            idUser: bot.idUser,
            idProduct,
            idLanguage: 1,
            comments: '',
            price: 260,
            condition: 'NM',
            isFoil: 0,
            isSigned: 0,
            isAltered: 0,
            isPlayset: 0,
            isFirstEd: 0,
            isReverseHolo: 0,
            count: 6,
            createdAt: START,
            lastEdited: START,
          })
          .execute();
      const base = `${await listen(server)}/ws/v2.0`;

      // The bot runs one round after every market step: the market and the bot take turns, as a
      // bot polling a server's market would, but in an order that repeats.
      const lines: string[] = [];
      const scenario = { ...loadScenario(name), products: { count: ids.length, ids } };
      await runMarket(server.services, server.clock, {
        scenario,
        seed: '2024',
        days: DAYS,
        pace: async () => {
          const { stdout } = await run(
            process.execPath,
            ['examples/price-bot.mjs', '--rounds', '1', '--products', ids.slice(0, 2).join(',')],
            {
              env: {
                ...process.env,
                CARDBAZAAR_URL: base,
                APP_TOKEN: cred.appToken,
                APP_SECRET: cred.appSecret,
                ACCESS_TOKEN: cred.accessToken,
                ACCESS_TOKEN_SECRET: cred.accessTokenSecret,
              },
            },
          );
          lines.push(...stdout.split('\n').filter(Boolean));
        },
      });
      const log = lines.join('\n');
      assert.ok(!/ error /.test(log), log);
      assert.match(log, / undercut +product \d+: 2\.60 → /, log);
      assert.match(log, / sale +order \d+ was paid/, log);
      assert.match(log, / sent +order \d+/, log);
      // The spike doubles the first product's fair value on day 3: the competitors follow it up and
      // the bot, finding room up to the next offer, raises its price with them (by more than a third).
      if (name === 'spike') {
        const rises = [
          ...log.matchAll(new RegExp(` reprice +product ${ids[0]}: ([\\d.]+) → ([\\d.]+)`, 'g')),
        ].filter((m) => Number(m[2]) > Number(m[1]) * 1.33);
        assert.ok(rises.length > 0, log);
      }
      const sent = await db
        .selectFrom('orders')
        .select('idOrder')
        .where('idSeller', '=', bot.idUser)
        .where('state', 'in', ['sent', 'received'])
        .execute();
      assert.ok(sent.length > 0, 'the bot sent orders the market bought');
      const floor = await db
        .selectFrom('articles')
        .select('price')
        .where('idUser', '=', bot.idUser)
        .execute();
      for (const a of floor) assert.ok(a.price >= 100, `never under its floor (${a.price})`);
    });
  });
