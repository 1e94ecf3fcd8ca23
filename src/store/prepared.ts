import type BetterSqlite3 from 'better-sqlite3';
import { type Compilable, CompiledQuery, type QueryResult, SqliteAdapter, sql } from 'kysely';
import { directSqlite, type Executor } from './db.js';
import { rowsOf } from './sqlite-dialect.js';

/**
 * Hot-path reads built and compiled once, then run with new parameters: Kysely otherwise builds and
 * compiles the query tree on every call. The SQL is compiled by the executor's own dialect, so this
 * stays one code path for SQLite and PostgreSQL.
 *
 * On SQLite, when no transaction holds the one connection, the statement runs synchronously on
 * better-sqlite3: a single statement is atomic there, and skipping Kysely's connection queue and its
 * layers of promises halves the cost of a lookup under load. While another transaction is open on
 * the connection the query takes the ordinary queued path, so it never reads another request's
 * uncommitted writes; inside its own transaction (which holds the connection) it runs directly too.
 * Only for queries whose parameters are exactly the values passed.
 */
export function prepared<Row, Args extends unknown[]>(
  build: (db: Executor, ...args: Args) => Compilable<Row>,
  placeholders: Args,
) {
  return preparedRows(build, placeholders, undefined);
}

function preparedRows<Row, Args extends unknown[]>(
  build: (db: Executor, ...args: Args) => Compilable<Row>,
  placeholders: Args,
  first: string | undefined,
) {
  // By the executor's adapter, which a database's transactions share with it: keyed by the
  // executor, a query inside a transaction (a new executor each time) was compiled on every call.
  const compiledFor = new WeakMap<object, CompiledQuery<Row>>();
  const statements = new WeakMap<BetterSqlite3.Database, BetterSqlite3.Statement>();

  const compile = (db: Executor): CompiledQuery<Row> => {
    const adapter = db.getExecutor().adapter;
    let compiled = compiledFor.get(adapter);
    if (!compiled) {
      compiled = build(db, ...placeholders).compile();
      if (compiled.parameters.length !== placeholders.length) {
        throw new Error(
          `prepared query expects ${compiled.parameters.length} parameters, got ${placeholders.length}`,
        );
      }
      compiledFor.set(adapter, compiled);
    }
    return compiled;
  };

  return async (db: Executor, ...args: Args): Promise<Row[]> => {
    const compiled = compile(db);
    const raw = directSqlite(db);
    if (raw) {
      let stmt = statements.get(raw);
      if (!stmt) {
        stmt = raw.prepare(compiled.sql);
        if (first !== undefined) {
          if (stmt.columns()[0]?.name !== first)
            throw new Error(`the first column is not ${first}: ${compiled.sql}`);
          stmt.pluck(true);
        }
        statements.set(raw, stmt);
      }
      if (first !== undefined) return stmt.all(args) as Row[];
      if (!stmt.reader) {
        stmt.run(args);
        return [];
      }
      return rowsOf<Row>(stmt, args);
    }
    const result = await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, args));
    return first === undefined
      ? result.rows
      : result.rows.map((r) => (r as Record<string, unknown>)[first] as Row);
  };
}

/**
 * A `prepared` read that gives each row's first column alone (`first` names it: a packed text, with
 * the columns after it there only for the statement's ORDER BY). better-sqlite3 then hands over one
 * value per row (`pluck`) without an array per row to fill through V8's API: a thread's page of
 * 40 messages read a third faster than as two columns.
 */
export function preparedFirst<Value, Args extends unknown[]>(
  build: (db: Executor, ...args: Args) => Compilable<unknown>,
  placeholders: Args,
  first: string,
): (db: Executor, ...args: Args) => Promise<Value[]> {
  return preparedRows<Value, Args>(
    build as (db: Executor, ...args: Args) => Compilable<Value>,
    placeholders,
    first,
  );
}

/**
 * Statements over lists (`in (…)` of n ids, a VALUES list of n rows): their text depends only on
 * the dialect and the list's length, so it is built and compiled once per (dialect, length) and
 * run with the new values, instead of building and compiling a tree of a few hundred nodes per
 * request (bulk stock writes run several such statements with 100 elements each). `parameters`
 * lists the values in the order the statement binds them; the first compilation checks it. `size`
 * may be a string, for statements whose text also depends on a few forms of their values.
 */
export function preparedBySize<Row, Args extends unknown[]>(
  build: (db: Executor, ...args: Args) => CompiledQuery<Row>,
  size: (...args: Args) => number | string,
  parameters: (...args: Args) => readonly unknown[],
  /**
   * A read that runs on better-sqlite3 directly outside a transaction, as `prepared` reads do,
   * without Kysely's queue and its promises (the offer counts of every page of found products).
   */
  options: { direct?: boolean } = {},
) {
  const texts = new Map<string, string>();
  const statements = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();
  return async (db: Executor, ...args: Args): Promise<QueryResult<Row>> => {
    const values = parameters(...args);
    const key = `${db.getExecutor().adapter instanceof SqliteAdapter ? 's' : 'p'}${size(...args)}`;
    let text = texts.get(key);
    if (text === undefined) {
      const compiled = build(db, ...args);
      const same =
        compiled.parameters.length === values.length && compiled.parameters.every((p, i) => p === values[i]);
      if (!same) throw new Error(`prepared statement binds other values than it lists: ${compiled.sql}`);
      text = compiled.sql;
      texts.set(key, text);
    }
    // Inside a transaction every statement may (the transaction holds the connection); outside one
    // only the reads that ask to.
    const raw = directSqlite(db);
    if (raw && (options.direct || db.isTransaction)) {
      let byText = statements.get(raw);
      if (!byText) {
        byText = new Map();
        statements.set(raw, byText);
      }
      let stmt = byText.get(text);
      if (!stmt) {
        stmt = raw.prepare(text);
        byText.set(text, stmt);
      }
      if (stmt.reader) return { rows: rowsOf<Row>(stmt, values as unknown[]) };
      if (db.isTransaction) {
        const { changes, lastInsertRowid } = stmt.run(values as unknown[]);
        return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
      }
    }
    return db.executeQuery<Row>(CompiledQuery.raw(text, values as unknown[]));
  };
}

/**
 * A LIMIT or OFFSET parameter behind a cast. SQLite (3.53) reads a bare parameter's value when it
 * plans a LIMIT, so each new binding makes it prepare the statement again (5 µs for a small query,
 * tens for a page's); a cast is an expression it does not look into. PostgreSQL reads both alike.
 */
export const pageBound = (value: number) => sql<number>`cast(${value} as integer)`;

/**
 * An integer parameter compared to an indexed column, behind a cast for the same reason as
 * `pageBound`: with the samples ANALYZE keeps (sqlite_stat4), SQLite's planner reads a bare
 * parameter's value to estimate the rows it selects, and every new binding of it then makes SQLite
 * prepare the whole statement again before it runs, every time (a page's lines, a hundred ids and
 * two bounds: some 650,000 instructions, a quarter of the statement; a page of orders 350,000).
 * The plan is then made from the per-index averages (sqlite_stat1), as for any expression.
 * PostgreSQL folds the cast of a bound value as it plans, so its planner still sees the value.
 */
export const unplanned = (value: number) => sql<number>`cast(${value} as integer)`;

/** `unplanned` for a text compared to an indexed column. */
export const unplannedText = <T extends string = string>(value: string) => sql<T>`cast(${value} as text)`;
