import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { type Database, type Executor, openDatabase } from './db.js';
import { preparedBySize, preparedFirst } from './prepared.js';

const read = preparedBySize(
  (db: Executor, ids: number[]) =>
    db
      .selectFrom('t' as never)
      .select(['id' as never, 'v' as never])
      .where('id' as never, 'in', ids as never)
      .orderBy('id' as never)
      .compile(),
  (ids) => ids.length,
  (ids) => ids,
  { direct: true },
);

describe('preparedBySize reads on better-sqlite3 directly', () => {
  let database: Database;

  before(async () => {
    database = openDatabase(':memory:');
    await sql`create table t (id integer primary key, v text)`.execute(database.db);
    await sql`insert into t values (1, 'one'), (2, 'two')`.execute(database.db);
  });
  after(() => database.close());

  it('outside a transaction, without Kysely, the rows the query gives', async () => {
    const db = database.db;
    const spied = db as unknown as { executeQuery: (...args: unknown[]) => unknown };
    const executeQuery = spied.executeQuery;
    let queued = 0;
    spied.executeQuery = (...args: unknown[]) => {
      queued++;
      return executeQuery.apply(db, args);
    };
    try {
      assert.deepEqual((await read(db, [2, 1, 3])).rows, [
        { id: 1, v: 'one' },
        { id: 2, v: 'two' },
      ]);
      assert.equal(queued, 0);
    } finally {
      spied.executeQuery = executeQuery;
    }
  });

  it('waits for a transaction open on the connection, and never reads what it has not committed', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const inserted = new Promise<void>((resolve) => (written = resolve));
    const rolledBack = database
      .transaction(async (tx) => {
        await sql`insert into t values (3, 'three')`.execute(tx);
        written();
        await held;
        throw new Error('rolled back');
      })
      .catch((err: Error) => err.message);
    await inserted;
    let done = false;
    const during = read(database.db, [3]).then((r) => {
      done = true;
      return r.rows;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(done, false);
    release();
    assert.equal(await rolledBack, 'rolled back');
    assert.deepEqual(await during, []);
    // Inside the transaction, its own writes.
    await database.transaction(async (tx) => {
      await sql`insert into t values (4, 'four')`.execute(tx);
      assert.deepEqual((await read(tx, [4])).rows, [{ id: 4, v: 'four' }]);
    });
    assert.deepEqual((await read(database.db, [4])).rows, [{ id: 4, v: 'four' }]);
  });
});

const firstOf = preparedFirst<string, [from: number]>(
  (db, from) =>
    db
      .selectFrom('t' as never)
      .select([sql<string>`v || '!'`.as('shown'), 'id' as never])
      .where('id' as never, '>=', from as never)
      .orderBy('id' as never),
  [0],
  'shown',
);

describe('preparedFirst', () => {
  let database: Database;

  before(async () => {
    database = openDatabase(':memory:');
    await sql`create table t (id integer primary key, v text)`.execute(database.db);
    await sql`insert into t values (1, 'one'), (2, 'two')`.execute(database.db);
  });
  after(() => database.close());

  it('gives the first column of each row, on better-sqlite3 directly and inside a transaction alike', async () => {
    assert.deepEqual(await firstOf(database.db, 1), ['one!', 'two!']);
    assert.deepEqual(await firstOf(database.db, 2), ['two!']);
    assert.deepEqual(await database.transaction((tx) => firstOf(tx, 1)), ['one!', 'two!']);
  });
});
