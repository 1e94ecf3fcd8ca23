import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openDatabase } from '../src/store/db.js';
import { migrateToLatest } from '../src/store/migrate.js';
import { migrations } from '../src/store/migrations/index.js';
import { DIALECTS, postgresSchemaUrl } from './helpers.js';

/**
 * Several processes starting at once on a fresh database (two servers, a server and the CLI) each
 * migrate it: one applies every migration, the others wait and apply none. Without a lock held for
 * the whole run, two processes both ran 0001 on a fresh SQLite file ("table users already exists").
 */
const PROCESSES = 3;

function migrateInProcess(databaseUrl: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'migrate'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

/** The migrations each run says it applied (`cardbazaar migrate` names them). */
function appliedBy(out: string): string[] {
  const m = /^Applied: (.*)$/m.exec(out);
  return m ? m[1]!.split(', ') : [];
}

async function freshDatabase(dialect: string): Promise<{ url: string; cleanUp: () => Promise<void> }> {
  if (dialect === 'postgres') {
    const { url, drop } = await postgresSchemaUrl();
    return { url, cleanUp: drop };
  }
  const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-migrate-'));
  return { url: join(dir, 'db.sqlite'), cleanUp: async () => rmSync(dir, { recursive: true, force: true }) };
}

describe('migrations run by several processes at once', () => {
  for (const dialect of DIALECTS) {
    it(`apply each migration once, every process succeeding (${dialect})`, async () => {
      const { url, cleanUp } = await freshDatabase(dialect);
      try {
        const runs = await Promise.all(Array.from({ length: PROCESSES }, () => migrateInProcess(url)));
        for (const run of runs) assert.equal(run.code, 0, run.err || run.out);
        const applied = runs.flatMap((r) => appliedBy(r.out)).sort();
        assert.deepEqual(applied, Object.keys(migrations).sort());
        const database = openDatabase(url);
        try {
          assert.deepEqual(await migrateToLatest(database), []);
          const users = await database.db.selectFrom('users').select('idUser').execute();
          assert.deepEqual(users, []);
        } finally {
          await database.close();
        }
      } finally {
        await cleanUp();
      }
    });

    it(`apply each migration once from several connections of one process (${dialect})`, async () => {
      const { url, cleanUp } = await freshDatabase(dialect);
      const databases = Array.from({ length: PROCESSES }, () => openDatabase(url));
      try {
        const applied = await Promise.all(databases.map((d) => migrateToLatest(d)));
        assert.deepEqual(applied.flat().sort(), Object.keys(migrations).sort());
      } finally {
        await Promise.all(databases.map((d) => d.close()));
        await cleanUp();
      }
    });
  }
});
