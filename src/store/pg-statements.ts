import type pg from 'pg';

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
}

type Query = (text: unknown, values?: unknown, ...rest: unknown[]) => Promise<pg.QueryResult>;

export class StatementNames {
  private readonly seenOnce = new Set<string>();

  /** Makes `client` send the statements it sees again by name (once per new pool connection). */
  install(client: pg.PoolClient): void {
    const send = client.query.bind(client) as Query;
    const internals = client as unknown as Internals;
    const names = new Map<string, string>();
    let counter = 0;

    const forget = (text: string, name: string) => {
      names.delete(text);
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

    client.query = ((text: unknown, values?: unknown, ...rest: unknown[]) => {
      // Anything else passes through as it came, a callback included (pg's own `pool.query`, the
      // health check, calls `client.query(text, undefined, callback)`: dropped, it never answered).
      if (
        rest.length > 0 ||
        typeof values === 'function' ||
        typeof text !== 'string' ||
        !Array.isArray(values) ||
        !NAMEABLE.test(text)
      ) {
        return send(text, values, ...rest);
      }
      const name = nameFor(text);
      if (name === undefined) return send(text, values);
      const outside = internals.getTransactionStatus?.() === 'I';
      return send({ name, text, values }).catch((err: unknown) => {
        if (!isStalePlanError(err)) throw err;
        if (names.get(text) === name) forget(text, name);
        if (!outside) throw err;
        return send(text, values);
      });
    }) as typeof client.query;
  }
}
