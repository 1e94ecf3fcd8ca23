import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { ApiError, badRequest } from '../errors.js';
import { formatTimestamp } from '../format.js';
import type { Database } from '../store/db.js';
import {
  announceRestore,
  backupTo,
  knownMigrations,
  migrationsOf,
  prepareRestore,
  restoreInto,
  withdrawRestore,
} from '../store/snapshots.js';

/**
 * Snapshots (sandbox, SQLite): the whole marketplace — every table, the marketplace clock (a row of
 * `settings`) — saved under a name and brought back while servers run, so a client's test suite
 * restores a known world before each test instead of rebuilding it.
 *
 * A load reaches every server on the database through the database itself (src/http/control.ts):
 * it announces itself (servers hold new requests), replaces the data in one write transaction, and
 * the restored data carries a new generation, at which each server resets what it keeps in memory
 * (limit counts, cached credentials, the clock offset) before it answers again. No server address
 * is needed, and a load with no server running works the same.
 */

export interface SnapshotContext {
  config: Config;
  database: Database;
  /** Real time: the announcement's deadline is compared with the servers' real clocks. */
  wallClock: Clock;
}

export interface SnapshotInfo {
  name: string;
  bytes: number;
  savedAt: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const SUFFIX = '.sqlite';
/** How long servers hold requests for a load before they give up waiting (a command that died). */
const ANNOUNCEMENT_MS = 15_000;

function refuseUnlessSnapshottable(ctx: SnapshotContext): string {
  if (ctx.config.mode === 'production') {
    throw new ApiError(403, 'Snapshots are a sandbox tool: production refuses them.');
  }
  if (ctx.database.dialect === 'postgres') {
    throw new ApiError(
      400,
      'Snapshots work on SQLite only. On PostgreSQL, use its own tools: pg_dump and pg_restore, or CREATE DATABASE … TEMPLATE … while no server is connected.',
    );
  }
  if (ctx.database.location === ':memory:') {
    throw new ApiError(
      400,
      'A database in memory (DATABASE_URL=:memory:) lives inside one process, where no command can reach it: use a database file for snapshots.',
    );
  }
  return ctx.database.location;
}

export function snapshotDir(ctx: SnapshotContext): string {
  const live = refuseUnlessSnapshottable(ctx);
  return ctx.config.snapshotDir ?? join(dirname(live), 'snapshots');
}

function snapshotPath(ctx: SnapshotContext, name: string): string {
  if (!NAME.test(name)) {
    throw badRequest(
      `"${name}" is not a snapshot name: up to 64 letters, digits, dots, dashes and underscores, starting with a letter or digit.`,
      { field: 'name' },
    );
  }
  return join(snapshotDir(ctx), name + SUFFIX);
}

function info(name: string, path: string): SnapshotInfo {
  const st = statSync(path);
  return { name, bytes: st.size, savedAt: formatTimestamp(st.mtimeMs) };
}

/** Saves the whole database under `name`, replacing a snapshot of that name. */
export async function saveSnapshot(ctx: SnapshotContext, name: string): Promise<SnapshotInfo> {
  const path = snapshotPath(ctx, name);
  mkdirSync(dirname(path), { recursive: true });
  // Written beside its final name, then renamed: a snapshot is whole or absent, even when the
  // command is killed, and one of the same name is replaced in one step.
  const scratch = `${path}.${randomBytes(4).toString('hex')}.partial`;
  try {
    await backupTo(ctx.database, scratch);
    renameSync(scratch, path);
  } finally {
    rmSync(scratch, { force: true });
  }
  return info(name, path);
}

/** Replaces the whole database with the snapshot `name`; servers on it answer from it at once. */
export async function loadSnapshot(ctx: SnapshotContext, name: string): Promise<SnapshotInfo> {
  const path = snapshotPath(ctx, name);
  if (!existsSync(path))
    throw new ApiError(404, `There is no snapshot "${name}" (snapshot list shows them).`);
  const saved = migrationsOf(path);
  if (!saved) throw badRequest(`The snapshot "${name}" is not a cardbazaar database.`);
  const known = knownMigrations();
  const unknown = saved.filter((m) => !known.has(m));
  if (unknown.length > 0) {
    throw badRequest(
      `The snapshot "${name}" was saved by a newer cardbazaar (migrations ${unknown.join(', ')}); it cannot be loaded by this one.`,
    );
  }
  const live = ctx.database.location;
  const scratch = `${live}.${randomBytes(4).toString('hex')}.restore`;
  await announceRestore(ctx.database, ctx.wallClock.now() + ANNOUNCEMENT_MS);
  try {
    copyFileSync(path, scratch);
    await prepareRestore(ctx.database, scratch);
    await restoreInto(scratch, live);
  } catch (err) {
    await withdrawRestore(ctx.database).catch(() => {});
    throw err;
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(scratch + suffix, { force: true });
  }
  return info(name, path);
}

export function listSnapshots(ctx: SnapshotContext): SnapshotInfo[] {
  const dir = snapshotDir(ctx);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(SUFFIX) && NAME.test(f.slice(0, -SUFFIX.length)))
    .sort()
    .map((f) => info(f.slice(0, -SUFFIX.length), join(dir, f)));
}

export function deleteSnapshot(ctx: SnapshotContext, name: string): void {
  const path = snapshotPath(ctx, name);
  if (!existsSync(path)) throw new ApiError(404, `There is no snapshot "${name}".`);
  rmSync(path);
}
