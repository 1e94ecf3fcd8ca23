import type BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';

/**
 * Kysely's own SQLite driver prepares every statement anew and opens transactions with a deferred
 * BEGIN. Ours differs in two ways that matter here:
 *  - prepared statements are cached by SQL text (a hot lookup costs about half as much);
 *  - transactions start with BEGIN IMMEDIATE, so a writer takes the lock up front and waits on the
 *    busy timeout instead of failing with SQLITE_BUSY when another process (the CLI next to the
 *    server) holds it: deferred transactions cannot wait when they upgrade from read to write.
 * Everything else (adapter, compiler, introspector) is Kysely's.
 */
export class CachingSqliteDialect implements Dialect {
  constructor(private readonly db: BetterSqlite3.Database) {}
  createAdapter() {
    return new SqliteAdapter();
  }
  createDriver(): Driver {
    return new CachingSqliteDriver(this.db);
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  createIntrospector(db: Parameters<Dialect['createIntrospector']>[0]) {
    return new SqliteIntrospector(db);
  }
}

const MAX_CACHED_STATEMENTS = 500;

/** A cached statement; `rows` set for a reader (see `rowReader`). */
interface Cached {
  stmt: BetterSqlite3.Statement;
  rows?: (params: unknown[]) => unknown[];
}

/**
 * Reads a statement's rows in better-sqlite3's raw mode (each row an array) and builds the row
 * objects here from one object literal per statement. In its default mode better-sqlite3 builds
 * every row in C++, a column at a time, and a row of more than about sixteen columns (an article
 * with its product, an order, a user) becomes a dictionary-mode object, slow to build and slow for
 * every mapper reading it: the 100 cart lines a checkout reads cost more to build than to query.
 * The objects are the same (keys in column order); a statement with two columns of one name (a
 * literal would keep the first key's position where better-sqlite3 keeps the last) or a column
 * named `__proto__` keeps the default mode.
 */
function rowReader(stmt: BetterSqlite3.Statement): ((params: unknown[]) => unknown[]) | undefined {
  const names = stmt.columns().map((c) => c.name);
  if (new Set(names).size !== names.length || names.includes('__proto__')) return undefined;
  stmt.raw(true);
  // The names are the statement's own columns (never input), quoted by JSON.stringify.
  const build = new Function(
    'v',
    `return {${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')}};`,
  ) as (values: unknown[]) => unknown;
  return (params) => {
    const rows = stmt.all(params) as unknown[][];
    const out = new Array<unknown>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = build(rows[i]!);
    return out;
  };
}

class CachingSqliteConnection implements DatabaseConnection {
  private readonly cache = new Map<string, Cached>();
  constructor(private readonly db: BetterSqlite3.Database) {}

  private statement(sql: string): Cached {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      const prepared = this.db.prepare(sql);
      stmt = { stmt: prepared, rows: prepared.reader ? rowReader(prepared) : undefined };
      if (this.cache.size >= MAX_CACHED_STATEMENTS) {
        const oldest = this.cache.keys().next().value as string;
        this.cache.delete(oldest);
      }
      this.cache.set(sql, stmt);
    }
    return stmt;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const { stmt, rows } = this.statement(compiled.sql);
    const params = compiled.parameters as unknown[];
    if (rows) return { rows: rows(params) as R[] };
    if (stmt.reader) return { rows: stmt.all(params) as R[] };
    const { changes, lastInsertRowid } = stmt.run(params);
    return {
      numAffectedRows: BigInt(changes),
      insertId: BigInt(lastInsertRowid),
      rows: [],
    };
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    // A streamed statement must not be shared: iterating one blocks its other uses.
    const stmt = this.db.prepare(compiled.sql);
    for (const row of stmt.iterate(compiled.parameters as unknown[])) {
      yield { rows: [row as R] };
    }
  }
}

class CachingSqliteDriver implements Driver {
  private connection: CachingSqliteConnection;
  private busy = false;
  /** Callers waiting for the one connection, served first come first served. */
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly db: BetterSqlite3.Database) {
    this.connection = new CachingSqliteConnection(db);
  }
  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    // One connection: a transaction must never interleave with another query. A FIFO of waiters
    // wakes exactly one caller per release (waking all of them costs O(n) per query under load).
    if (this.busy) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.busy = true;
    return this.connection;
  }
  async releaseConnection(): Promise<void> {
    const next = this.waiting.shift();
    if (next) next();
    else this.busy = false;
  }
  async beginTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('begin immediate'));
  }
  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    if (this.db.inTransaction) await conn.executeQuery(CompiledQuery.raw('rollback'));
  }
  async destroy(): Promise<void> {
    this.db.close();
  }
}
