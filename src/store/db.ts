import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.js';
import { isStalePlanError, StatementNames } from './pg-statements.js';
import { type Checkpointer, SAFETY_CHECKPOINT_PAGES, startCheckpointer } from './checkpointer.js';
import { CachingSqliteDialect } from './sqlite-dialect.js';

export type Dialect = 'sqlite' | 'postgres';
/** Anything a query can run on: the database itself or an open transaction. */
export type Executor = Kysely<DB> | Transaction<DB>;
export type Tx = Transaction<DB>;

export interface Database {
  readonly db: Kysely<DB>;
  readonly dialect: Dialect;
  /** Where the data lives, for messages (the file path, or the PostgreSQL URL without password). */
  readonly location: string;
  /**
   * Runs `fn` in one transaction: all of it is written or none. On PostgreSQL a serialization
   * failure or deadlock is retried a few times, since the loser of such a race did nothing wrong,
   * and so is a statement whose prepared plan another instance's migration made stale.
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
  /**
   * A long-running server's SQLite file: checkpoints move to a worker thread (`checkpointer.ts`),
   * out of the requests' way. Nothing on PostgreSQL or in memory.
   */
  checkpointInBackground?(): void;
}

// pg returns bigint (int8) columns and COUNT(*) as strings; every bigint here (cents, epoch ms,
// counts) fits in a double, so numbers are what the rest of the code sees on both dialects.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * The better-sqlite3 handle behind a SQLite Kysely instance, for the hot-path reads of
 * `prepared.ts`, which may run synchronously when no transaction holds the connection.
 */
export const sqliteHandles = new WeakMap<Kysely<DB>, BetterSqlite3.Database>();

/** The better-sqlite3 handle by the adapter a SQLite database shares with its transactions. */
const adapterHandles = new WeakMap<object, BetterSqlite3.Database>();

/**
 * The better-sqlite3 handle a hot-path statement of `prepared.ts` may run on directly, or undefined
 * when it must go through Kysely's queue: the database itself while no transaction holds its one
 * connection, or an open transaction, which holds that connection until it ends (so the transaction
 * open on the handle is this one). Undefined on PostgreSQL.
 */
export function directSqlite(db: Executor): BetterSqlite3.Database | undefined {
  const raw = sqliteHandles.get(db as Kysely<DB>);
  if (raw) return raw.inTransaction ? undefined : raw;
  if (!db.isTransaction) return undefined;
  const held = adapterHandles.get(db.getExecutor().adapter);
  return held?.inTransaction ? held : undefined;
}

function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** `./data/x.sqlite`, `sqlite:./data/x.sqlite`, `sqlite:///abs/x.sqlite` or `:memory:`. */
function sqlitePath(url: string): string {
  const path = url.replace(/^sqlite:(\/\/)?/i, '');
  return path === ':memory:' ? path : resolve(path);
}

export function openDatabase(url: string): Database {
  return isPostgresUrl(url) ? openPostgres(url) : openSqlite(sqlitePath(url));
}

function openSqlite(path: string): Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const raw = new BetterSqlite3(path);
  // WAL + NORMAL: a killed process loses nothing it committed (only a power cut can lose the last
  // commits), at about ten times the write rate of FULL.
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('foreign_keys = ON');
  // SQLite's default page cache (2 MB) holds little of a large marketplace: a page of 100 offers
  // or products then reads most of its pages from the file again, a system call and a copy each.
  // 64 MB is a ceiling, filled only as pages are read (measured: 7–15% less CPU per page of 100 on
  // the million-offer benchmark databases).
  raw.pragma('cache_size = -65536');
  const db = new Kysely<DB>({ dialect: new CachingSqliteDialect(raw) });
  sqliteHandles.set(db, raw);
  adapterHandles.set(db.getExecutor().adapter, raw);
  let closed = false;
  let checkpointer: Checkpointer | undefined;
  return {
    db,
    dialect: 'sqlite',
    location: path,
    transaction: (fn) => db.transaction().execute(fn),
    checkpointInBackground() {
      if (path === ':memory:' || checkpointer || closed) return;
      const own = raw.pragma('wal_autocheckpoint', { simple: true }) as number;
      raw.pragma(`wal_autocheckpoint = ${SAFETY_CHECKPOINT_PAGES}`);
      checkpointer = startCheckpointer(path, () => {
        if (!closed) raw.pragma(`wal_autocheckpoint = ${Number(own)}`);
      });
    },
    async ping() {
      try {
        raw.prepare('select 1').get();
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

const RETRYABLE_PG_CODES = new Set(['40001', '40P01']);
const TRANSACTION_ATTEMPTS = 8;

/**
 * Transactions PostgreSQL made this process retry, by SQLSTATE (40P01 deadlock, 40001 serialization
 * failure): the paths that lock reservations and articles take them in one order, and
 * `test/deadlocks.test.ts` holds them to none.
 */
export const transactionRetries = new Map<string, number>();

function openPostgres(url: string): Database {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const statements = new StatementNames();
  pool.on('connect', (client) => statements.install(client));
  pool.on('release', (_err, client) => statements.released(client));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  let closed = false;
  return {
    db,
    dialect: 'postgres',
    location: url.replace(/:[^:@/]*@/, ':***@'),
    async transaction(fn) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await db.transaction().execute(fn);
        } catch (err) {
          const code = (err as { code?: string }).code;
          const retryable = (code !== undefined && RETRYABLE_PG_CODES.has(code)) || isStalePlanError(err);
          if (attempt >= TRANSACTION_ATTEMPTS || !retryable) throw err;
          if (code !== undefined) transactionRetries.set(code, (transactionRetries.get(code) ?? 0) + 1);
          // Backing off longer each time, with jitter, so two losers do not meet again.
          await new Promise((r) => setTimeout(r, Math.min(200, 5 * 2 ** attempt) * (0.5 + Math.random())));
        }
      }
    },
    async ping() {
      try {
        await pool.query('select 1');
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}
