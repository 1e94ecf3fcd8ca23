import { join } from 'node:path';
import type { ClientCredentials } from '../../src/auth/client.js';
import { ManualClock } from '../../src/clock.js';
import { loadScenario, runMarket } from '../../src/domain/market/index.js';
import { openDatabase } from '../../src/store/db.js';
import { CLOCK_OFFSET } from '../../src/store/faults.js';
import { countMarketActions } from '../../src/store/market.js';
import { getSetting, putSetting } from '../../src/store/settings.js';
import { cachedDatabase, dedicatedCredentials } from '../prepare.js';
import type { Background, Scenario } from '../scenario.js';
import { buildCatalog, catalogKey } from './catalog.js';
import { productApiPageScenario } from './product-page.js';

/**
 * The living market's quality bar (issue 34): a market of 1,000 traders at `--speed 60` keeps the
 * API's latency for a client within 15 % of an idle server's. Each request is measured twice on the
 * same database — the scale-0.2 demo marketplace with the 1,000 traders of
 * `scenarios/market/crowd.json` set up and a marketplace day already played — once with the market
 * stopped (idle) and once with `serve --market crowd.json --speed 60` acting beside the requests.
 * Run the four together (`--only "beside a market"`) so both halves share the run's conditions.
 *
 * Setting the traders up and playing the first day (accounts, apps, budgets, wants lists, the
 * first listings) takes minutes, so it is done once into `bench/.cache/` and copied for every run;
 * the server's market then finds its traders and goes on from there, acting from its first step.
 */
const SCENARIO_FILE = join(import.meta.dirname, '..', '..', 'scenarios', 'market', 'crowd.json');
const SCALE = 0.2;
const SEED = '1';
const SPEED = 60;
// Bumped when the scenario file or the preparation changes (the cache is keyed by it).
const MARKET_VERSION = 'crowd-v1';

function preparedMarket(): Promise<string> {
  // The market's own clock: the first day is played on it, as `market run` does, and the sandbox
  // clock is left where it stopped, so the server's market goes on from that time.
  const clock = new ManualClock(Date.now());
  return cachedDatabase(
    `${catalogKey(SCALE)}-${MARKET_VERSION}`,
    async (services) => {
      await buildCatalog(services, SCALE);
      const started = performance.now();
      const summary = await runMarket(services, clock, {
        scenario: loadScenario(SCENARIO_FILE),
        seed: SEED,
        days: 1,
      });
      await putSetting(services.database.db, CLOCK_OFFSET, String(clock.now() - Date.now()));
      console.log(
        `   market: ${summary.traders} traders, ${summary.products} products, ${summary.actions} actions on day 1 (set-up included) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    },
    { clock },
  );
}

/**
 * The market's progress, read from the database between rounds: its actions so far (the log is
 * written at every step) and the marketplace time it has reached.
 */
const marketProgress: Background = {
  async progress(databaseUrl) {
    const database = openDatabase(databaseUrl);
    try {
      const count = await countMarketActions(database.db);
      const offset = Number((await getSetting(database.db, CLOCK_OFFSET)) ?? 0);
      return {
        count,
        note: `${count.toLocaleString('en')} market actions, marketplace time ${new Date(Date.now() + offset).toISOString().slice(0, 16)}Z`,
      };
    } finally {
      await database.close();
    }
  },
};

const marketArgs = ['--market', SCENARIO_FILE, '--market-seed', SEED, '--speed', String(SPEED)];
const idleName = 'idle (1,000 traders stopped)';
const liveName = `market of 1,000 traders at --speed ${SPEED}`;

export const accountIdleMarketScenario: Scenario<ClientCredentials> = {
  name: `GET /account beside a market: ${idleName}`,
  description: `signed GET /ws/v2.0/account on the market's database (scale 0.2, 1,000 traders), no market running`,
  database: preparedMarket,
  prepare: (services) => dedicatedCredentials(services, 'demo-seller'),
  request: (credentials) => ({ method: 'GET', path: '/account', credentials }),
  expectStatus: 200,
};

export const accountLiveMarketScenario: Scenario<ClientCredentials> = {
  ...accountIdleMarketScenario,
  name: `GET /account beside a market: ${liveName}`,
  description: `the same, with serve --market crowd.json --speed ${SPEED} acting in the same process`,
  serverArgs: marketArgs,
  background: marketProgress,
};

export const offersIdleMarketScenario: typeof productApiPageScenario = {
  ...productApiPageScenario,
  name: `product offers API page beside a market: ${idleName}`,
  description: `${productApiPageScenario.description}, on the market's database, no market running`,
  database: preparedMarket,
};

export const offersLiveMarketScenario: typeof productApiPageScenario = {
  ...offersIdleMarketScenario,
  name: `product offers API page beside a market: ${liveName}`,
  description: `the same, with serve --market crowd.json --speed ${SPEED} acting in the same process`,
  serverArgs: marketArgs,
  background: marketProgress,
};
