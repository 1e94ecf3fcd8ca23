import { createApp } from '../../src/auth/apps.js';
import type { ClientCredentials } from '../../src/auth/client.js';
import { createUser } from '../../src/domain/users.js';
import type { Services } from '../../src/services.js';
import { sqliteHandles } from '../../src/store/db.js';
import { benchCatalog, cachedDatabase, dedicatedCredentials, shortCount, sizeFromEnv } from '../prepare.js';
import type { Scenario } from '../scenario.js';

/**
 * `GET /orders/seller/paid/1` for a seller with N paid orders (one line each, bought by 1,000
 * different buyers), at N = 10,000 and N = 1,000,000: the first page must cost the same at both
 * sizes, since its ids come from the (idSeller, state, idOrder) index and its total from the
 * per-user counters; and the last page of the larger, which must cost what the first does. The
 * orders are generated in SQL (recursive CTEs) into a SQLite database kept in bench/.cache/ and
 * copied for every run (into PostgreSQL with `--dialect postgres`). The sizes come from
 * BENCH_ORDERS_SMALL and BENCH_ORDERS_LARGE (default 10,000 and 1,000,000).
 */
const GENERATOR_VERSION = 'orders-v3';
const BUYERS = 1000;
const PRODUCTS = 50;

async function generate(services: Services, orders: number): Promise<void> {
  const db = services.database.db;
  const raw = sqliteHandles.get(db);
  if (!raw) throw new Error('the orders benchmark generates its data with SQLite');
  const seller = await createUser(services, {
    username: 'bench-seller',
    country: 'D',
    accountType: 'powerseller',
    firstName: 'Bench',
    lastName: 'Seller',
    street: 'Benchstraße 1',
    zip: '10115',
    city: 'Berlin',
  });
  await createApp(services, { idUser: seller.idUser, kind: 'dedicated' });
  await benchCatalog(db, PRODUCTS);
  const t0 = Date.UTC(2026, 0, 1);
  raw.exec('begin');
  raw
    .prepare(
      `insert into users (username, country, "registerDate", "firstName", "lastName", "addressName", street, zip, city, email)
       with recursive seq(n) as (select 1 union all select n + 1 from seq where n < ?)
       select 'bench-buyer-' || n, 'FR', ?, 'Buyer', 'No ' || n, 'Buyer No ' || n, n || ' rue du Banc', '75001', 'Paris',
              'buyer' || n || '@bench.invalid'
       from seq`,
    )
    .run(BUYERS, t0);
  const firstBuyer = (
    raw.prepare(`select min("idUser") as id from users where username like 'bench-buyer-%'`).get() as {
      id: number;
    }
  ).id;
  raw
    .prepare(
      `insert into orders ("idBuyer", "idSeller", state, "dateBought", "datePaid", "lastStateChange", "idShippingMethod",
         "shippingMethodName", "shippingPrice", "isLetter", "isInsured", "shippingName", "shippingStreet", "shippingZip",
         "shippingCity", "shippingCountry", "articleCount", "articleValue", "totalValue", "relistOnCancel", note,
         revision, "paidFromMoney", "paidFromBonus")
       with recursive seq(n) as (select 1 union all select n + 1 from seq where n < ?)
       select ? + (n % ?), ?, 'paid', ? + n * 60000, ? + n * 60000 + 3600000, ? + n * 60000 + 3600000, 1,
              'Standard letter', 145, 1, 0, 'Buyer No ' || (n % ?), (n % ?) || ' rue du Banc', '75001', 'Paris', 'FR',
              1, 150 + (n % 7) * 25, 150 + (n % 7) * 25 + 145, 0, '', 1, 150 + (n % 7) * 25 + 145, 0
       from seq`,
    )
    .run(orders, firstBuyer, BUYERS, seller.idUser, t0, t0, t0, BUYERS, BUYERS);
  raw
    .prepare(
      `insert into "orderArticles" ("idOrder", "idArticle", "idProduct", "idLanguage", comments, price, condition,
         "isFoil", "isSigned", "isAltered", "isPlayset", "isFirstEd", "isReverseHolo", count)
       select "idOrder", "idOrder", 1 + "idOrder" % ?, 1, '', "articleValue", 'NM', 0, 0, 0, 0, 0, 0, 1
       from orders where "idSeller" = ?`,
    )
    .run(PRODUCTS, seller.idUser);
  raw
    .prepare(`insert into "orderCounts" ("idUser", actor, state, count) values (?, 1, 'paid', ?)`)
    .run(seller.idUser, orders);
  raw.exec(
    `insert into "orderCounts" ("idUser", actor, state, count)
     select "idBuyer", 2, 'paid', count(*) from orders group by "idBuyer"`,
  );
  raw.prepare('update users set "unsentShipments" = ? where "idUser" = ?').run(orders, seller.idUser);
  raw.exec('commit');
  raw.exec('analyze');
}

function ordersScenario(orders: number, page: 'first' | 'last'): Scenario<ClientCredentials> {
  // The path's start is 1-based: the last page holds the last 100 orders.
  const start = page === 'first' ? 1 : Math.max(1, orders - 99);
  return {
    name: `GET /orders/seller/paid ${page} page (${shortCount(orders)} orders)`,
    description: `the ${page} page of a seller's paid orders (/orders/seller/paid/${start}), out of ${orders.toLocaleString('en')} (100 orders, XML)`,
    database: () =>
      cachedDatabase(`${GENERATOR_VERSION}-${orders}`, async (services) => {
        await generate(services, orders);
      }),
    prepare: (services) => dedicatedCredentials(services, 'bench-seller'),
    request: (credentials) => ({ method: 'GET', path: `/orders/seller/paid/${start}`, credentials }),
    expectStatus: 206,
  };
}

const small = sizeFromEnv('BENCH_ORDERS_SMALL', 10_000);
const large = sizeFromEnv('BENCH_ORDERS_LARGE', 1_000_000);
export const orders10kScenario = ordersScenario(small, 'first');
export const orders1mScenario = ordersScenario(large, 'first');
export const orders1mLastScenario = ordersScenario(large, 'last');
