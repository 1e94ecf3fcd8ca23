import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

/**
 * Copies every table of a prepared SQLite database (a scenario's cached `database()`) into the
 * PostgreSQL schema the harness migrated, so `--dialect postgres` runs on the same rows as SQLite
 * without building a large marketplace a second time. Rows go in as a few thousand per statement
 * through `unnest` of one array per column (a handful of parameters per statement, whatever the
 * number of rows), with triggers and foreign-key checks off for the session; identity sequences
 * are then moved past the copied ids. The harness settles the schema (`settlePostgres`) once the
 * scenario's `prepare` has written too.
 */
const ROWS_PER_STATEMENT = 5_000;

interface PgColumn {
  name: string;
  type: string;
  identity: boolean;
}

export async function copySqliteIntoPostgres(file: string, url: string): Promise<void> {
  const source = new BetterSqlite3(file, { readonly: true });
  const target = new pg.Client({ connectionString: url });
  await target.connect();
  try {
    await target.query('set session_replication_role = replica');
    const tables = (
      source
        .prepare(
          `select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%'`,
        )
        .all() as Array<{ name: string }>
    ).map((t) => t.name);
    for (const table of tables) {
      const columns = (
        await target.query<{
          column_name: string;
          udt_name: string;
          is_identity: string;
          def: string | null;
        }>(
          `select column_name, udt_name, is_identity, column_default as def from information_schema.columns
           where table_schema = current_schema() and table_name = $1 order by ordinal_position`,
          [table],
        )
      ).rows.map((c): PgColumn => ({
        name: c.column_name,
        type: c.udt_name,
        identity: c.is_identity === 'YES' || (c.def ?? '').startsWith('nextval('),
      }));
      if (columns.length === 0) continue;
      const sourceColumns = new Set(
        (source.prepare(`select name from pragma_table_info(?)`).all(table) as Array<{ name: string }>).map(
          (c) => c.name,
        ),
      );
      const shared = columns.filter((c) => sourceColumns.has(c.name));
      await target.query(`delete from "${table}"`);
      const names = shared.map((c) => `"${c.name}"`).join(', ');
      const insert = `insert into "${table}" (${names}) select * from unnest(${shared
        .map((c, i) => `$${i + 1}::${c.type}[]`)
        .join(', ')})`;
      const rows = source.prepare(`select ${names} from "${table}"`).raw(true);
      let chunk: unknown[][] = shared.map(() => []);
      let size = 0;
      const flush = async () => {
        if (size === 0) return;
        await target.query(insert, chunk);
        chunk = shared.map(() => []);
        size = 0;
      };
      for (const row of rows.iterate() as IterableIterator<unknown[]>) {
        for (let i = 0; i < row.length; i++) chunk[i]!.push(row[i]);
        if (++size === ROWS_PER_STATEMENT) await flush();
      }
      await flush();
      for (const c of shared.filter((x) => x.identity)) {
        await target.query(
          `select setval(pg_get_serial_sequence('"${table}"', '${c.name}'), coalesce(max("${c.name}"), 0) + 1, false) from "${table}"`,
        );
      }
    }
    await target.query('set session_replication_role = origin');
  } finally {
    source.close();
    await target.end();
  }
}

/**
 * Brings the scenario's schema where a running server's autovacuum would have it: statistics for
 * the planner (without them a table filled since its creation is planned as nearly empty) and the
 * visibility map that lets index-only scans skip the table. Table by table, so only this schema
 * is touched: a bare `analyze` would walk every schema of the shared database.
 */
export async function settlePostgres(url: string): Promise<void> {
  const target = new pg.Client({ connectionString: url });
  await target.connect();
  try {
    const tables = await target.query<{ name: string }>(
      `select tablename as name from pg_tables where schemaname = current_schema()`,
    );
    for (const t of tables.rows) await target.query(`vacuum (analyze) "${t.name.replace(/"/g, '""')}"`);
  } finally {
    await target.end();
  }
}

/** A fresh PostgreSQL schema for one scenario in the database of `baseUrl`, dropped after it. */
export async function postgresSchema(baseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const run = async (text: string) => {
    const c = new pg.Client({ connectionString: baseUrl });
    await c.connect();
    try {
      await c.query(text);
    } finally {
      await c.end();
    }
  };
  await run(`create schema "${schema}"`);
  const url = `${baseUrl}${baseUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return { url, drop: () => run(`drop schema "${schema}" cascade`) };
}
