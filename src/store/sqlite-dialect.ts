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

class CachingSqliteConnection implements DatabaseConnection {
  private readonly cache = new Map<string, BetterSqlite3.Statement>();
  constructor(private readonly db: BetterSqlite3.Database) {}

  private statement(sql: string): BetterSqlite3.Statement {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      if (this.cache.size >= MAX_CACHED_STATEMENTS) {
        const oldest = this.cache.keys().next().value as string;
        this.cache.delete(oldest);
      }
      this.cache.set(sql, stmt);
    }
    return stmt;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const stmt = this.statement(compiled.sql);
    const params = compiled.parameters as unknown[];
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
