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

/** Rows as arrays into row objects, for one statement's columns. */
interface Shape {
  build: (values: unknown[]) => Record<string, unknown>;
  columns: number;
}
const shapes = new WeakMap<BetterSqlite3.Statement, Shape>();

function shapeOf(stmt: BetterSqlite3.Statement): Shape {
  const names = stmt.columns().map((c) => c.name);
  // A computed key for `__proto__`: as a plain key it would set the object's prototype.
  const fields = names.map((name, i) =>
    name === '__proto__' ? `[${JSON.stringify(name)}]: v[${i}]` : `${JSON.stringify(name)}: v[${i}]`,
  );
  const shape: Shape = {
    build: new Function('v', `return { ${fields.join(', ')} };`) as Shape['build'],
    columns: names.length,
  };
  shapes.set(stmt, shape);
  return shape;
}

/**
 * A reading statement's rows as objects keyed by column name, the same objects better-sqlite3
 * gives (a repeated name keeps its first position and its last value, as there), built in
 * JavaScript from the statement's rows as arrays: better-sqlite3 sets each column of each row
 * object through V8's API, which costs twice what reading the values does (a page of 100 orders
 * spent about a millisecond per statement on it). One object literal per statement, compiled from
 * its column names, gives every row the same shape at once.
 */
export function rowsOf<R>(stmt: BetterSqlite3.Statement, params: unknown[]): R[] {
  let shape = shapes.get(stmt);
  if (shape === undefined) {
    stmt.raw(true);
    shape = shapeOf(stmt);
  }
  const values = stmt.all(params) as unknown[][];
  // A schema change (a migration, a snapshot loaded) makes SQLite prepare `select *` again with
  // other columns: the shape follows.
  if (values.length > 0 && values[0]!.length !== shape.columns) shape = shapeOf(stmt);
  const rows = new Array<R>(values.length);
  for (let i = 0; i < values.length; i++) rows[i] = shape.build(values[i]!) as R;
  return rows;
}

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
    if (stmt.reader) return { rows: rowsOf<R>(stmt, params) };
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
