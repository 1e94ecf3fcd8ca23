import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../../src/auth/apps.js';
import type { ClientCredentials } from '../../src/auth/client.js';
import { createUser } from '../../src/domain/users.js';
import type { Services } from '../../src/services.js';
import { sqliteHandles } from '../../src/store/db.js';
import { benchCatalog, dedicatedCredentials } from '../prepare.js';
import type { Scenario } from '../scenario.js';

/**
 * `GET /orders/seller/paid/1` for a seller with N paid orders (one line each, bought by 1,000
 * different buyers), at N = 10,000 and N = 1,000,000: the first page must cost the same at both
 * sizes, since its ids come from the (idSeller, state, idOrder) index and its total from the
 * per-user counters. The orders are generated in SQL (recursive CTEs) and the finished database
 * is kept in bench/.cache/ and copied in on later runs (the million takes a while to build).
 */
const CACHE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '.cache');
const CACHE_VERSION = 2;
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

/**
 * Fills the harness's database: from the cache when there is one for this size, else generated
 * (and then cached). The cache is a copy of a whole database, restored with SQLite's backup API.
 */
async function prepareOrders(services: Services, orders: number): Promise<ClientCredentials> {
  const raw = sqliteHandles.get(services.database.db)!;
  const cached = join(CACHE_DIR, `orders-${orders}-v${CACHE_VERSION}.sqlite`);
  if (existsSync(cached)) {
    // Copied table by table into the database the harness opened (it stays open meanwhile).
    const tables = (
      raw
        .prepare(
          `select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%'`,
        )
        .all() as Array<{ name: string }>
    ).map((t) => t.name);
    raw.pragma('foreign_keys = OFF');
    raw.exec(`attach database '${cached.replace(/'/g, "''")}' as cache`);
    raw.exec('begin');
    for (const t of tables)
      raw.exec(`delete from main."${t}"; insert into main."${t}" select * from cache."${t}";`);
    raw.exec('commit');
    raw.exec('detach database cache');
    raw.pragma('foreign_keys = ON');
    raw.exec('analyze');
  } else {
    await generate(services, orders);
    mkdirSync(CACHE_DIR, { recursive: true });
    const partial = `${cached}.partial`;
    rmSync(partial, { force: true });
    raw.exec(`vacuum into '${partial.replace(/'/g, "''")}'`);
    renameSync(partial, cached);
  }
  return dedicatedCredentials(services, 'bench-seller');
}

function ordersScenario(orders: number, label: string): Scenario<ClientCredentials> {
  return {
    name: `GET /orders/seller/paid/1 (${label} orders)`,
    description: `first page of a seller's paid orders, out of ${label} (100 orders, XML)`,
    prepare: (services) => prepareOrders(services, orders),
    request: (credentials) => ({ method: 'GET', path: '/orders/seller/paid/1', credentials }),
    expectStatus: 206,
  };
}

export const orders10kScenario = ordersScenario(10_000, '10,000');
export const orders1mScenario = ordersScenario(1_000_000, '1,000,000');
