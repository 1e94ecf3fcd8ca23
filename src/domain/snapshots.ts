import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { ApiError, badRequest } from '../errors.js';
import { formatTimestamp } from '../format.js';
import type { Database } from '../store/db.js';
import { deleteFaults } from '../store/faults.js';
import {
  announceRestore,
  backupTo,
  copyTablesFrom,
  knownMigrations,
  migrationsOf,
  prepareRestore,
  restoreInto,
  serializeDatabase,
  takeWrittenTables,
  trackWrites,
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
 *
 * An in-memory database (`DATABASE_URL=:memory:`) lives in one process: its snapshots are kept in
 * that process's memory and reached through its control API (`/_cardbazaar/snapshots`), with the
 * same care (the load announced, requests held, the data replaced in one transaction).
 *
 * The baseline is a snapshot the server takes when it starts on a database it seeded (or that has
 * none yet): `resetToBaseline` (`POST /_cardbazaar/reset`, `cardbazaar snapshot reset`) brings it back.
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
  /** The same time as `savedAt`, under the name the control API's contract gives it. */
  createdAt: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const SUFFIX = '.sqlite';
/** How long servers hold requests for a load before they give up waiting (a command that died). */
const ANNOUNCEMENT_MS = 15_000;

/** The baseline's name: not a name a snapshot can have, so no list shows it and no save replaces it. */
const BASELINE = '.baseline';

/** An in-memory database's snapshots, with the tables written since each was saved or loaded. */
interface MemorySnapshot {
  bytes: Buffer;
  savedAt: number;
  written: Set<string>;
}
const memorySnapshots = new WeakMap<Database, Map<string, MemorySnapshot>>();

/**
 * What a load always copies back, written or not: what `prepareRestore` changes in the copy (the
 * settings, the faults in force, nonces and limit counts, the catalog versions).
 */
const ALWAYS_COPIED = [
  'settings',
  'faults',
  'oauthNonces',
  'limitCounters',
  'limitPlaces',
  'catalogVersions',
];

const inMemory = (ctx: SnapshotContext) =>
  ctx.database.dialect === 'sqlite' && ctx.database.location === ':memory:';

function refuseUnlessSandbox(ctx: SnapshotContext): void {
  if (ctx.config.mode === 'production') {
    throw new ApiError(403, 'Snapshots are a sandbox tool: production refuses them.');
  }
  if (ctx.database.dialect === 'postgres') {
    throw new ApiError(
      400,
      'Snapshots work on SQLite only. On PostgreSQL, use its own tools: pg_dump and pg_restore, or CREATE DATABASE … TEMPLATE … while no server is connected.',
    );
  }
}

function memoryStore(ctx: SnapshotContext): Map<string, MemorySnapshot> {
  let store = memorySnapshots.get(ctx.database);
  if (!store) {
    store = new Map();
    memorySnapshots.set(ctx.database, store);
  }
  return store;
}

/** Adds the tables written since the last look to every snapshot's own list. */
function noteWrites(ctx: SnapshotContext): void {
  const written = takeWrittenTables(ctx.database);
  if (written.length === 0) return;
  for (const snapshot of memoryStore(ctx).values()) for (const t of written) snapshot.written.add(t);
}

function checkName(name: string): void {
  if (!NAME.test(name)) {
    throw badRequest(
      `"${name}" is not a snapshot name: up to 64 letters, digits, dots, dashes and underscores, starting with a letter or digit.`,
      { field: 'name' },
    );
  }
}

const memoryInfo = (name: string, s: MemorySnapshot): SnapshotInfo => ({
  name,
  bytes: s.bytes.length,
  savedAt: formatTimestamp(s.savedAt),
  createdAt: formatTimestamp(s.savedAt),
});

async function saveInMemory(ctx: SnapshotContext, name: string): Promise<SnapshotInfo> {
  // From the first snapshot on, the writes are noted, so that a load copies back only what changed.
  trackWrites(ctx.database);
  noteWrites(ctx);
  const snapshot = {
    bytes: await serializeDatabase(ctx.database),
    savedAt: ctx.wallClock.now(),
    written: new Set<string>(),
  };
  memoryStore(ctx).set(name, snapshot);
  return memoryInfo(name, snapshot);
}

async function loadInMemory(ctx: SnapshotContext, name: string, shown: string): Promise<SnapshotInfo> {
  const snapshot = memoryStore(ctx).get(name);
  if (!snapshot) throw new ApiError(404, `There is no snapshot "${shown}".`);
  noteWrites(ctx);
  // SQLite attaches a file, not bytes: the copy goes to a private scratch folder for the moment of the load.
  const dir = mkdtempSync(join(tmpdir(), 'cardbazaar-snapshot-'));
  const scratch = join(dir, 'load.sqlite');
  await announceRestore(ctx.database, ctx.wallClock.now() + ANNOUNCEMENT_MS);
  try {
    writeFileSync(scratch, snapshot.bytes, { mode: 0o600 });
    await prepareRestore(ctx.database, scratch);
    await copyTablesFrom(ctx.database, scratch, () => {
      noteWrites(ctx);
      return [...snapshot.written, ...ALWAYS_COPIED];
    });
  } catch (err) {
    await withdrawRestore(ctx.database).catch(() => {});
    throw err;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // What the load rewrote differs from the other snapshots now; from this one, nothing does.
  noteWrites(ctx);
  snapshot.written = new Set();
  return memoryInfo(name, snapshot);
}

function refuseUnlessSnapshottable(ctx: SnapshotContext): string {
  refuseUnlessSandbox(ctx);
  if (ctx.database.location === ':memory:') {
    throw new ApiError(
      400,
      'A database in memory (DATABASE_URL=:memory:) lives inside one process, where no other command can reach it: use the control API of the server holding it (POST /_cardbazaar/snapshots), or a database file.',
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
  const savedAt = formatTimestamp(st.mtimeMs);
  return { name, bytes: st.size, savedAt, createdAt: savedAt };
}

/** Saves the whole database under `name`, replacing a snapshot of that name. */
export async function saveSnapshot(ctx: SnapshotContext, name: string): Promise<SnapshotInfo> {
  refuseUnlessSandbox(ctx);
  checkName(name);
  if (inMemory(ctx)) return saveInMemory(ctx, name);
  return saveFile(ctx, snapshotPath(ctx, name), name);
}

async function saveFile(ctx: SnapshotContext, path: string, name: string): Promise<SnapshotInfo> {
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
  refuseUnlessSandbox(ctx);
  checkName(name);
  if (inMemory(ctx)) return loadInMemory(ctx, name, name);
  return loadFile(ctx, snapshotPath(ctx, name), name);
}

async function loadFile(ctx: SnapshotContext, path: string, name: string): Promise<SnapshotInfo> {
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
  refuseUnlessSandbox(ctx);
  if (inMemory(ctx)) {
    return [...memoryStore(ctx)]
      .filter(([name]) => NAME.test(name))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, s]) => memoryInfo(name, s));
  }
  const dir = snapshotDir(ctx);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(SUFFIX) && NAME.test(f.slice(0, -SUFFIX.length)))
    .sort()
    .map((f) => info(f.slice(0, -SUFFIX.length), join(dir, f)));
}

export function deleteSnapshot(ctx: SnapshotContext, name: string): void {
  refuseUnlessSandbox(ctx);
  checkName(name);
  if (inMemory(ctx)) {
    if (!memoryStore(ctx).delete(name)) throw new ApiError(404, `There is no snapshot "${name}".`);
    return;
  }
  const path = snapshotPath(ctx, name);
  if (!existsSync(path)) throw new ApiError(404, `There is no snapshot "${name}".`);
  rmSync(path);
}

/**
 * Saves the baseline `resetToBaseline` brings back: called by a sandbox server as it starts, after
 * loading the demo data. `replace`: the server has just seeded the database (a new world); else
 * a baseline already there stays (another server on the same file took it).
 */
export async function saveBaseline(ctx: SnapshotContext, replace: boolean): Promise<void> {
  if (ctx.config.mode !== 'sandbox' || ctx.database.dialect !== 'sqlite') return;
  if (inMemory(ctx)) {
    await saveInMemory(ctx, BASELINE);
    return;
  }
  const path = join(snapshotDir(ctx), BASELINE + SUFFIX);
  if (replace || !existsSync(path)) await saveFile(ctx, path, BASELINE);
}

/**
 * Back to the state the database had when a server first started on it (for a new database, the
 * demo data just loaded): the baseline snapshot, loaded as any snapshot is.
 */
export async function resetToBaseline(ctx: SnapshotContext): Promise<void> {
  refuseUnlessSandbox(ctx);
  const missing = () =>
    new ApiError(
      404,
      'There is no baseline to reset to: a sandbox server saves it when it starts on this database.',
    );
  if (inMemory(ctx)) {
    if (!memoryStore(ctx).has(BASELINE)) throw missing();
    await loadInMemory(ctx, BASELINE, 'baseline');
  } else {
    const path = join(snapshotDir(ctx), BASELINE + SUFFIX);
    if (!existsSync(path)) throw missing();
    await loadFile(ctx, path, 'baseline');
  }
  // A load keeps the faults in force (they belong to the moment, not to the world); a reset does not.
  await ctx.database.transaction((tx) => deleteFaults(tx));
}
