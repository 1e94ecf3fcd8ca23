import { createRequire } from 'node:module';
import type pg from 'pg';

// pg's own conversion of a parameter to its text (dates, arrays, buffers, JSON), so a statement
// sent by name binds exactly what pg would have bound.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue: (value: unknown) => unknown;
};

/**
 * PostgreSQL parses and plans every statement sent without a name again, and for our statements
 * that costs the database more than running them (the account read: 0.4–0.7 ms of planning for
 * 0.07 ms of execution). A statement sent with a name is parsed once per connection, and after
 * five runs PostgreSQL keeps a generic plan whenever that costs no more than the custom ones
 * (`plan_cache_mode = auto`), so planning goes too.
 *
 * So every statement text a pool connection sees again is sent by name, whoever built it (the
 * compiled reads of `prepared.ts` as well as the queries Kysely compiles per request, which give
 * the same text for the same shape). A text is named from its second use, so one-off texts (a list
 * of a length seen once, a migration) never take a place; each connection keeps at most
 * `STATEMENTS_PER_CONNECTION` names and deallocates the least recently used to make room. Names
 * are never reused, so a name always means one text. Statements without parameters that only
 * steer the session (begin, commit, savepoints) keep the one-message simple protocol.
 */
export const STATEMENTS_PER_CONNECTION = 128;
/** How many texts seen once are remembered before the list starts again (a bound on memory). */
const SEEN_ONCE_LIMIT = 2000;

const NAMEABLE = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * After a statement's tables changed shape (another instance migrated them), a prepared `select *`
 * cannot run again: PostgreSQL refuses it with this error. The name is then dropped, the statement
 * retried once outside a transaction, and `isStalePlanError` lets a transaction be retried whole.
 */
const STALE_PLAN = 'cached plan must not change result type';

export function isStalePlanError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e.code === '0A000' && typeof e.message === 'string' && e.message.includes(STALE_PLAN);
}

interface Internals {
  /** pg's record of the statements it parsed on the connection (it sends Parse for any other). */
  connection?: { parsedStatements?: Record<string, string> };
  getTransactionStatus?: () => string | null;
  getTypeParser?: (oid: number, format: string) => (text: string) => unknown;
}

/** The parts of pg's connection (`client.connection`) a statement sent by name writes to. */
interface Connection {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  stream: { cork?: () => void; uncork?: () => void };
  parse(message: { text: string; name: string }): void;
  bind(message: { statement: string; values: unknown[]; valueMapper: (value: unknown) => unknown }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal: string }): void;
  close(message: { type: 'S'; name: string }): void;
  sync(): void;
}

interface Field {
  name: string;
  dataTypeID: number;
  format: string;
}

/**
 * What a named statement answers with, learned from its first run on a connection: its columns,
 * their parsers and one object literal compiled from their names. A name always means one text,
 * and PostgreSQL refuses to run a prepared statement whose result would change shape (the
 * stale-plan error above), so the columns stay those of the first run for as long as the name
 * lives.
 */
interface Shape {
  fields: Field[];
  parsers: ((text: string) => unknown)[];
  build: (raw: (string | null)[], parsers: ((text: string) => unknown)[]) => Record<string, unknown>;
}

const IDENTIFIER_SAFE = (name: string) => name !== '__proto__';

function shapeOf(
  fields: Field[],
  parserFor: (oid: number, format: string) => (text: string) => unknown,
): Shape {
  const parsers = fields.map((f) => parserFor(f.dataTypeID, f.format || 'text'));
  let build: Shape['build'];
  if (fields.every((f) => f.format !== 'binary' && IDENTIFIER_SAFE(f.name))) {
    // pg's rows, as one literal: each column in order, null as null (a repeated name keeps its
    // first place and its last value, as pg's assignments do).
    const body = fields
      .map((f, i) => `${JSON.stringify(f.name)}: r[${i}] === null ? null : p[${i}](r[${i}])`)
      .join(',\n');
    build = new Function('r', 'p', `return {\n${body}\n};`) as Shape['build'];
  } else {
    build = (raw, p) => {
      const row: Record<string, unknown> = {};
      for (const f of fields) row[f.name] = null;
      raw.forEach((v, i) => {
        const field = fields[i] as Field;
        row[field.name] =
          v === null
            ? null
            : (p[i] as (t: unknown) => unknown)(field.format === 'binary' ? Buffer.from(v) : v);
      });
      return row;
    };
  }
  return { fields, parsers, build };
}

/**
 * One run of a named statement, handed to pg's client as its own query object (pg calls these
 * `handle…` methods as the answer's messages arrive). pg's `Query` sends Describe on every run and
 * rebuilds the field list and its parsers from the RowDescription each time (a tenth of the
 * process's time on `GET /account` in a profile); this sends Parse and Describe on the statement's
 * first run on a connection only and afterwards just Bind, Execute and Sync, in one socket write,
 * building rows with the shape it learned.
 */
class NamedRun {
  callback: ((err: Error | null, result?: pg.QueryResult) => void) | undefined;
  private readonly rows: Record<string, unknown>[] = [];
  private fields: Field[] = [];
  private command: string | null = null;
  private rowCount: number | null = null;
  private oid: number | null = null;
  private failure: Error | undefined;

  constructor(
    readonly name: string,
    readonly text: string,
    private readonly values: unknown[],
    private shape: Shape | undefined,
    /** A held-back `begin` goes first, in the same write, answered before the statement. */
    private begin: boolean,
    private readonly learn: (fields: Field[]) => Shape,
  ) {
    if (shape) this.fields = shape.fields;
  }

  submit(connection: Connection): Error | null {
    const described = this.shape !== undefined && connection.parsedStatements[this.name] === this.text;
    if (!described) this.shape = undefined;
    connection.stream.cork?.();
    try {
      if (this.begin) {
        connection.parse({ text: 'begin', name: '' });
        connection.bind({ statement: '', values: [], valueMapper: prepareValue });
        connection.execute({ portal: '' });
      }
      if (
        connection.parsedStatements[this.name] === undefined &&
        connection.submittedNamedStatements[this.name] === undefined
      ) {
        connection.parse({ text: this.text, name: this.name });
        connection.submittedNamedStatements[this.name] = this.text;
      }
      try {
        connection.bind({ statement: this.name, values: this.values, valueMapper: prepareValue });
      } catch (err) {
        // As pg does: a value that cannot be bound fails this run only.
        connection.close({ type: 'S', name: this.name });
        connection.sync();
        this.handleError(err as Error);
        return null;
      }
      if (!described) connection.describe({ type: 'P', name: '' });
      connection.execute({ portal: '' });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(message: { fields: Field[] }): void {
    this.shape = this.learn(message.fields);
    this.fields = this.shape.fields;
  }

  handleDataRow(message: { fields: (string | null)[] }): void {
    if (this.failure) return;
    try {
      const shape = this.shape as Shape;
      this.rows.push(shape.build(message.fields, shape.parsers));
    } catch (err) {
      this.failure = err as Error;
    }
  }

  handleCommandComplete(message: { text: string }): void {
    if (this.begin) {
      this.begin = false;
      return;
    }
    const match = /^([A-Za-z]+)(?: (\d+))?(?: (\d+))?/.exec(message.text);
    if (!match) return;
    this.command = match[1] as string;
    if (match[3] !== undefined) {
      this.oid = Number.parseInt(match[2] as string, 10);
      this.rowCount = Number.parseInt(match[3], 10);
    } else if (match[2] !== undefined) {
      this.rowCount = Number.parseInt(match[2], 10);
    }
  }

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleError(err: Error): void {
    this.callback?.(this.failure ?? err);
  }

  handleReadyForQuery(): void {
    if (this.failure) return this.handleError(this.failure);
    // A statement that returns no rows sent NoData, not a RowDescription: its shape is no columns.
    if (this.shape === undefined) this.shape = this.learn([]);
    this.callback?.(null, {
      command: this.command as string,
      rowCount: this.rowCount,
      oid: this.oid,
      fields: this.fields,
      rows: this.rows,
    } as unknown as pg.QueryResult);
  }
}

type Query = (text: unknown, values?: unknown, ...rest: unknown[]) => Promise<pg.QueryResult>;

export class StatementNames {
  private readonly seenOnce = new Set<string>();
  private readonly dropHeldBegin = new WeakMap<pg.PoolClient, () => void>();

  /**
   * A connection back in the pool holds no `begin` (Kysely always ends its transactions with a
   * commit or rollback; should one not, the next borrower must not run inside it).
   */
  released(client: pg.PoolClient): void {
    this.dropHeldBegin.get(client)?.();
  }

  /** Makes `client` send the statements it sees again by name (once per new pool connection). */
  install(client: pg.PoolClient): void {
    const send = client.query.bind(client) as Query;
    const internals = client as unknown as Internals;
    const names = new Map<string, string>();
    const shapes = new Map<string, Shape>();
    let counter = 0;
    const parserFor = (oid: number, format: string) =>
      (internals.getTypeParser as NonNullable<Internals['getTypeParser']>).call(client, oid, format);

    const forget = (text: string, name: string) => {
      names.delete(text);
      shapes.delete(name);
      delete internals.connection?.parsedStatements?.[name];
      // Queued before any later statement of this connection; a failure (the name was never
      // parsed, or the connection broke) leaves nothing to undo.
      send(`deallocate "${name}"`).catch(() => {});
    };

    const nameFor = (text: string): string | undefined => {
      let name = names.get(text);
      if (name !== undefined) {
        // Most recently used last, so the first entry is the one to evict.
        names.delete(text);
        names.set(text, name);
        return name;
      }
      if (!this.seenOnce.has(text)) {
        if (this.seenOnce.size >= SEEN_ONCE_LIMIT) this.seenOnce.clear();
        this.seenOnce.add(text);
        return undefined;
      }
      if (names.size >= STATEMENTS_PER_CONNECTION) {
        // In a failed transaction the deallocation would fail too: send this one unnamed.
        if (internals.getTransactionStatus?.() === 'E') return undefined;
        const [oldText, oldName] = names.entries().next().value as [string, string];
        forget(oldText, oldName);
      }
      name = `cb${++counter}`;
      names.set(text, name);
      return name;
    };

    // Kysely opens a transaction with a `begin` of its own round trip. It is held back instead and
    // sent in the same write as the transaction's first statement when that one goes by name and
    // is parsed already (one Sync for both: PostgreSQL answers the pair in one reply), else just
    // before it; a transaction that sends nothing before its `commit` or `rollback` sends nothing.
    // What is acknowledged is unchanged: every statement's and the commit's answer is still
    // awaited, and the commit is still its own round trip.
    let beginHeld = false;
    this.dropHeldBegin.set(client, () => {
      beginHeld = false;
    });
    const heldBegin = (command: string) =>
      Promise.resolve({
        command,
        rowCount: null,
        oid: null,
        fields: [],
        rows: [],
      } as unknown as pg.QueryResult);

    client.query = ((text: unknown, values?: unknown, ...rest: unknown[]) => {
      if (beginHeld) {
        if (isBare(text, values, rest) && (text === 'commit' || text === 'rollback')) {
          beginHeld = false;
          return heldBegin(text.toUpperCase());
        }
      } else if (
        isBare(text, values, rest) &&
        text === 'begin' &&
        internals.getTransactionStatus?.() === 'I'
      ) {
        beginHeld = true;
        return heldBegin('BEGIN');
      }
      // Anything else passes through as it came, a callback included (pg's own `pool.query`, the
      // health check, calls `client.query(text, undefined, callback)`: dropped, it never answered).
      const name =
        rest.length > 0 ||
        typeof values === 'function' ||
        typeof text !== 'string' ||
        !Array.isArray(values) ||
        !NAMEABLE.test(text)
          ? undefined
          : nameFor(text);
      const held = beginHeld;
      const withBegin =
        held &&
        name !== undefined &&
        internals.connection?.parsedStatements?.[name] === text &&
        shapes.has(name);
      beginHeld = false;
      const run = (): Promise<pg.QueryResult> => {
        if (name === undefined) return send(text, values, ...rest);
        const outside = !withBegin && internals.getTransactionStatus?.() === 'I';
        const named = new Promise<pg.QueryResult>((resolve, reject) => {
          const query = new NamedRun(
            name,
            text as string,
            values as unknown[],
            shapes.get(name),
            withBegin,
            (fields) => {
              const shape = shapeOf(fields, parserFor);
              shapes.set(name, shape);
              return shape;
            },
          );
          query.callback = (err, result) => (err ? reject(err) : resolve(result as pg.QueryResult));
          send(query);
        });
        return named.catch((err: unknown) => {
          if (!isStalePlanError(err)) throw err;
          if (names.get(text as string) === name) forget(text as string, name);
          if (!outside) throw err;
          return send(text, values);
        });
      };
      return held && !withBegin ? send('begin', []).then(run) : run();
    }) as typeof client.query;
  }
}

/** A statement without parameters, sent as Kysely sends `begin`, `commit` and `rollback`. */
function isBare(text: unknown, values: unknown, rest: unknown[]): text is string {
  return typeof text === 'string' && rest.length === 0 && Array.isArray(values) && values.length === 0;
}
