import type BetterSqlite3 from 'better-sqlite3';
import { type Compilable, CompiledQuery, type Kysely, type QueryResult, SqliteAdapter } from 'kysely';
import { type Executor, sqliteHandles } from './db.js';
import type { DB } from './schema.js';

/**
 * Hot-path reads built and compiled once, then run with new parameters: Kysely otherwise builds and
 * compiles the query tree on every call. The SQL is compiled by the executor's own dialect, so this
 * stays one code path for SQLite and PostgreSQL.
 *
 * On SQLite, when no transaction holds the one connection, the statement runs synchronously on
 * better-sqlite3: a single statement is atomic there, and skipping Kysely's connection queue and its
 * layers of promises halves the cost of a lookup under load. Inside a transaction (or while one is
 * open on the connection) the query takes the ordinary queued path, so it never reads another
 * request's uncommitted writes. Only for queries whose parameters are exactly the values passed.
 */
export function prepared<Row, Args extends unknown[]>(
  build: (db: Executor, ...args: Args) => Compilable<Row>,
  placeholders: Args,
) {
  const compiledFor = new WeakMap<Executor, CompiledQuery<Row>>();
  const statements = new WeakMap<BetterSqlite3.Database, RowStatement<Row>>();

  const compile = (db: Executor): CompiledQuery<Row> => {
    let compiled = compiledFor.get(db);
    if (!compiled) {
      compiled = build(db, ...placeholders).compile();
      if (compiled.parameters.length !== placeholders.length) {
        throw new Error(
          `prepared query expects ${compiled.parameters.length} parameters, got ${placeholders.length}`,
        );
      }
      compiledFor.set(db, compiled);
    }
    return compiled;
  };

  return async (db: Executor, ...args: Args): Promise<Row[]> => {
    const compiled = compile(db);
    const raw = sqliteHandles.get(db as Kysely<DB>);
    if (raw && !raw.inTransaction) {
      let stmt = statements.get(raw);
      if (!stmt) {
        stmt = rowStatement<Row>(raw.prepare(compiled.sql));
        statements.set(raw, stmt);
      }
      return stmt(args);
    }
    const result = await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, args));
    return result.rows;
  };
}

type RowStatement<Row> = (args: unknown[]) => Row[];

/**
 * Runs a statement in better-sqlite3's raw mode (each row an array) and builds the row objects
 * here, all of one shape. In its default mode better-sqlite3 builds every row in C++ with
 * `v8::Object::New(names, values)`, which interns each column name again for every row and makes a
 * dictionary-mode object, slow to read and to copy for every mapper after it: on a 40-message
 * thread the rows cost more than the query. The objects are the same (keys in column order, the
 * last of two equal names winning).
 */
function rowStatement<Row>(stmt: BetterSqlite3.Statement): RowStatement<Row> {
  if (!stmt.reader) return (args) => stmt.all(args) as Row[];
  const names = stmt.columns().map((c) => c.name);
  // Two columns of one name (a literal would keep the first key's position where better-sqlite3
  // keeps the last), or `__proto__` (a literal would set the prototype): leave those as they were.
  if (new Set(names).size !== names.length || names.includes('__proto__')) {
    return (args) => stmt.all(args) as Row[];
  }
  stmt.raw(true);
  // An object literal per statement, so every row is created with all its fields in place (adding
  // them one by one by name turns an object of more than a dozen fields into a dictionary again).
  // The names come from the statement's own columns (never from input), quoted by JSON.stringify.
  const build = new Function(
    'v',
    `return {${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')}};`,
  ) as (values: unknown[]) => Row;
  return (args) => {
    const rows = stmt.all(args) as unknown[][];
    const out: Row[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = build(rows[i]!);
    return out;
  };
}

/**
 * Statements over lists (`in (…)` of n ids, a VALUES list of n rows): their text depends only on
 * the dialect and the list's length, so it is built and compiled once per (dialect, length) and
 * run with the new values, instead of building and compiling a tree of a few hundred nodes per
 * request (bulk stock writes run several such statements with 100 elements each). `parameters`
 * lists the values in the order the statement binds them; the first compilation checks it.
 */
export function preparedBySize<Row, Args extends unknown[]>(
  build: (db: Executor, ...args: Args) => CompiledQuery<Row>,
  size: (...args: Args) => number,
  parameters: (...args: Args) => readonly unknown[],
) {
  const texts = new Map<string, string>();
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
    return db.executeQuery<Row>(CompiledQuery.raw(text, values as unknown[]));
  };
}
