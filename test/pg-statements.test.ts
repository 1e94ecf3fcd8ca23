import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../src/store/db.js';
import { STATEMENTS_PER_CONNECTION } from '../src/store/pg-statements.js';
import { describeUnless, NO_POSTGRES, postgresSchemaUrl } from './helpers.js';

/**
 * The PostgreSQL pool sends statements it sees again by name (src/store/pg-statements.ts): the
 * answers stay those of unnamed statements, each connection keeps a bounded number of names, and a
 * plan another process made stale (a column added under a prepared `select *`) costs no failure.
 */
describeUnless(NO_POSTGRES, 'named statements on PostgreSQL', () => {
  let database: Database;
  let drop: () => Promise<void>;

  before(async () => {
    const schema = await postgresSchemaUrl();
    drop = schema.drop;
    database = openDatabase(schema.url);
    await sql`create table t (id integer primary key, v text)`.execute(database.db);
    await sql`insert into t values (1, 'one'), (2, 'two')`.execute(database.db);
  });

  after(async () => {
    await database.close();
    await drop();
  });

  /**
   * The statements over table t prepared on the connection a transaction holds (the pool may hold
   * several; this query, run again, is named too).
   */
  const preparedNames = (tx: Parameters<Parameters<Database['transaction']>[0]>[0]) =>
    sql<{
      name: string;
    }>`select name from pg_prepared_statements where statement like '%from "t"%' and statement not like '%pg_prepared%'`
      .execute(tx)
      .then((r) => r.rows.map((row) => row.name));

  it('answers named statements as unnamed ones, from their second use', async () => {
    await database.transaction(async (tx) => {
      const read = (id: number) =>
        tx
          .selectFrom('t' as never)
          .selectAll()
          .where('id' as never, '=', id as never)
          .execute();
      assert.deepEqual(await read(1), [{ id: 1, v: 'one' }]);
      assert.deepEqual(await preparedNames(tx), []);
      for (let i = 0; i < 8; i++) assert.deepEqual(await read(2), [{ id: 2, v: 'two' }]);
      assert.equal((await preparedNames(tx)).length, 1);
      assert.deepEqual(await read(3), []);
    });
  });

  it('keeps at most a bounded number of names per connection', async () => {
    await database.transaction(async (tx) => {
      for (let n = 1; n <= STATEMENTS_PER_CONNECTION + 20; n++) {
        for (let k = 0; k < 2; k++) {
          const rows = await tx
            .selectFrom('t' as never)
            .select(sql<number>`${sql.lit(n)}`.as('n'))
            .where('id' as never, '=', 1 as never)
            .execute();
          assert.deepEqual(rows, [{ n }]);
        }
      }
      const names = await preparedNames(tx);
      assert.ok(names.length <= STATEMENTS_PER_CONNECTION, `${names.length} names`);
      assert.ok(names.length >= STATEMENTS_PER_CONNECTION - 3, `${names.length} names`);
    });
  });

  it('runs a prepared select * again after its table gained a column', async () => {
    const all = () =>
      database.db
        .selectFrom('t' as never)
        .selectAll()
        .where('id' as never, '=', 1 as never)
        .execute();
    for (let i = 0; i < 7; i++) assert.deepEqual(await all(), [{ id: 1, v: 'one' }]);
    await sql`alter table t add column w text default 'x'`.execute(database.db);
    // Outside a transaction the statement is retried at once; inside one, the transaction is.
    for (let i = 0; i < 12; i++) assert.deepEqual(await all(), [{ id: 1, v: 'one', w: 'x' }]);
    await sql`alter table t add column z integer default 0`.execute(database.db);
    const inTx = await database.transaction(async (tx) =>
      tx
        .selectFrom('t' as never)
        .selectAll()
        .where('id' as never, '=', 1 as never)
        .execute(),
    );
    assert.deepEqual(inTx, [{ id: 1, v: 'one', w: 'x', z: 0 }]);
  });

  it("holds a transaction's begin for its first statement and keeps it atomic", async () => {
    await sql`create table u (id integer primary key, n integer not null)`.execute(database.db);
    await sql`insert into u values (1, 0)`.execute(database.db);
    const bump = (tx: Parameters<Parameters<Database['transaction']>[0]>[0]) =>
      sql<{ n: number }>`update u set n = n + 1 where id = ${1} returning n`.execute(tx);
    const value = async () =>
      (await sql<{ n: number }>`select n from u where id = ${1}`.execute(database.db)).rows[0]?.n;
    // Named and parsed on the pool's connections, so the begin goes out with it.
    for (let i = 0; i < 12; i++) await database.transaction(async (tx) => bump(tx));
    assert.equal(await value(), 12);
    for (let i = 0; i < 6; i++) {
      await assert.rejects(
        database.transaction(async (tx) => {
          const { rows } = await bump(tx);
          assert.equal(rows[0]?.n, 13);
          throw new Error('undone');
        }),
        /undone/,
      );
      assert.equal(await value(), 12);
    }
    // A statement failing in the first write leaves no transaction open behind it.
    const duplicate = (tx: Parameters<Parameters<Database['transaction']>[0]>[0]) =>
      sql`insert into u values (${1}, ${0})`.execute(tx);
    for (let i = 0; i < 6; i++) {
      await assert.rejects(
        database.transaction(async (tx) => duplicate(tx)),
        { code: '23505' },
      );
      assert.equal(await value(), 12);
    }
    // A transaction that sends nothing, then statements outside any transaction.
    assert.equal(await database.transaction(async () => 'nothing'), 'nothing');
    await sql`update u set n = ${5} where id = ${1}`.execute(database.db);
    const status = await sql<{ open: boolean }>`select now() <> statement_timestamp() as open`.execute(
      database.db,
    );
    assert.deepEqual(status.rows, [{ open: false }]);
    assert.equal(await value(), 5);
  });
});
