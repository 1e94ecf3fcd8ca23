import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { startCheckpointer } from './checkpointer.js';
import { openDatabase, sqliteHandles } from './db.js';

const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-checkpoint-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('background checkpoints (SQLite)', () => {
  it('copy the log into the database file from the worker, and the server connection never checkpoints itself', async () => {
    const path = join(dir, 'a.sqlite');
    const database = openDatabase(path);
    try {
      const handle = sqliteHandles.get(database.db)!;
      database.checkpointInBackground!();
      assert.ok(Number(handle.pragma('wal_autocheckpoint', { simple: true })) > 1000);
      await sql`create table t (id integer primary key, v text)`.execute(database.db);
      // More than SQLite's own threshold (1,000 pages) in one commit: the worker copies it.
      await database.transaction(async (tx) => {
        for (let i = 0; i < 60; i++) {
          await sql`insert into t (v) values (${'x'.repeat(100_000)})`.execute(tx);
        }
      });
      // The database file holds the 6 MB only once a checkpoint copied them; the server's own
      // connection would not before 16,384 pages.
      const deadline = Date.now() + 5000;
      while (statSync(path).size < 6_000_000) {
        if (Date.now() > deadline) assert.fail(`the worker did not checkpoint: ${statSync(path).size} bytes`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const rows = await sql<{ n: number }>`select count(*) as n from t`.execute(database.db);
      assert.equal(Number(rows.rows[0]!.n), 60);
    } finally {
      await database.close();
    }
  });

  it('tells its owner when the worker ends on its own, so that the connection checkpoints itself again', async () => {
    let failed = false;
    const checkpointer = startCheckpointer(join(dir, 'missing', 'c.sqlite'), () => {
      failed = true;
    });
    const deadline = Date.now() + 5000;
    while (!failed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(failed);
    await checkpointer.stop();
  });

  it('is nothing in memory, and closing stops the worker', async () => {
    const memory = openDatabase(':memory:');
    memory.checkpointInBackground!();
    await memory.close();
    const file = openDatabase(join(dir, 'b.sqlite'));
    file.checkpointInBackground!();
    await file.close();
  });
});
