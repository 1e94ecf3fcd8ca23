import BetterSqlite3 from 'better-sqlite3';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describeApps, type IssuedApp } from '../src/auth/apps.js';
import type { ClientCredentials } from '../src/auth/client.js';
import { testConfig } from '../src/config.js';
import { seedDemo } from '../src/seed/index.js';
import { createServices, type ServiceOverrides, type Services } from '../src/services.js';
import { insertExpansion, insertGame, insertProduct } from '../src/store/catalog.js';
import type { Executor } from '../src/store/db.js';
import { migrations } from '../src/store/migrations/index.js';
import type { NewArticle } from '../src/store/schema.js';
import { findUserByUsername } from '../src/store/users.js';

/** What the scenarios' `prepare` functions share: users' credentials, a small catalog, articles. */

/**
 * The harness's server key (bench/run.ts): stored credentials are hashes of tokens derived from
 * it, so a cached database must be built with the key the benchmarked server runs with.
 */
export const BENCH_SECRET_KEY = 'bench-secret-key-bench-secret-key-0123456789';
const CACHE_DIR = join(import.meta.dirname, '.cache');

/**
 * A SQLite database built once by `build` and kept in `bench/.cache/` under `name`, for data that
 * takes long to make (the scale-20 marketplace takes minutes). The harness copies it for each run
 * (into PostgreSQL with `--dialect postgres`), and opening the copy applies any migration added
 * since it was built, as a deployed server's would; a cache holding a migration this code does not
 * know (built on another branch) is built again.
 */
export async function cachedDatabase(
  name: string,
  build: (services: Services) => Promise<void>,
  overrides: ServiceOverrides = {},
): Promise<string> {
  const file = join(CACHE_DIR, `${name}.sqlite`);
  if (existsSync(file) && knownMigrations(file)) return file;
  mkdirSync(CACHE_DIR, { recursive: true });
  const building = `${file}.building`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
  console.log(`Preparing ${name} once (cached in ${file})…`);
  const started = performance.now();
  const services = await createServices(
    testConfig({ databaseUrl: building, secretKey: BENCH_SECRET_KEY, logLevel: 'warn' }),
    overrides,
  );
  try {
    await build(services);
  } finally {
    await services.close();
  }
  renameSync(building, file);
  console.log(`   built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return file;
}

function knownMigrations(file: string): boolean {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    const applied = db.prepare('select name from kysely_migration').all() as Array<{ name: string }>;
    return applied.every((m) => m.name in migrations);
  } catch {
    return false;
  } finally {
    db.close();
  }
}

/** A size from the environment (`BENCH_ORDERS_LARGE=20000`), for quicker runs or larger ones. */
export function sizeFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw.replace(/_/g, ''));
  if (!(n > 0)) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

/** 10000 → "10k", 1000000 → "1M": scenario names stay short and name the size they ran at. */
export function shortCount(n: number): string {
  if (n >= 1_000_000 && n % 100_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1_000 && n % 100 === 0) return `${n / 1_000}k`;
  return String(n);
}

/** The credentials `createApp` issued for a dedicated app. */
export function issuedCredentials(issued: IssuedApp): ClientCredentials {
  return {
    appToken: issued.appToken,
    appSecret: issued.appSecret,
    accessToken: issued.accessToken!.token,
    accessTokenSecret: issued.accessToken!.secret,
  };
}

/** The credentials of a user's dedicated app, derived again from the database (e.g. a cached one). */
export async function dedicatedCredentials(services: Services, username: string): Promise<ClientCredentials> {
  const user = await findUserByUsername(services.database.db, username);
  const app = (await describeApps(services, user!.idUser)).find((a) => a.kind === 'dedicated')!;
  const token = app.accessTokens[0]!;
  return {
    appToken: app.appToken,
    appSecret: app.appSecret,
    accessToken: token.token,
    accessTokenSecret: token.secret,
  };
}

/** Loads the demo data unless the database has it already. */
export async function ensureDemo(services: Services): Promise<void> {
  if (!(await findUserByUsername(services.database.db, 'demo-seller'))) await seedDemo(services);
}

/** Magic with one expansion of `products` single cards, ids 1 to `products`. */
export async function benchCatalog(db: Executor, products: number): Promise<void> {
  await insertGame(db, { idGame: 1, name: 'Magic the Gathering', abbreviation: 'MtG' });
  await insertExpansion(db, {
    idExpansion: 1,
    idGame: 1,
    enName: 'Bench Expansion',
    abbreviation: 'BEN',
    icon: 1,
    releaseDate: Date.UTC(2020, 0, 1),
    isReleased: 1,
  });
  for (let p = 1; p <= products; p++) {
    await insertProduct(db, {
      idProduct: p,
      idGame: 1,
      idExpansion: 1,
      idMetaproduct: null,
      idCategory: 1,
      categoryName: 'Magic Single',
      enName: `Bench Card ${p}`,
      number: String(p),
      rarity: 'Rare',
      isSingle: 1,
      dateAdded: Date.UTC(2020, 0, 1),
      image: `/img/items/1/BEN/${p}.jpg`,
    });
  }
}

/** An article row (not written): English, near mint, no flags, no comment. */
export function benchArticle(
  idUser: number,
  idProduct: number,
  now: number,
  offer: { price: number; count: number },
): NewArticle {
  return {
    idUser,
    idProduct,
    idLanguage: 1,
    comments: '',
    price: offer.price,
    condition: 'NM',
    isFoil: 0,
    isSigned: 0,
    isAltered: 0,
    isPlayset: 0,
    isFirstEd: 0,
    isReverseHolo: 0,
    count: offer.count,
    createdAt: now,
    lastEdited: now,
  };
}
