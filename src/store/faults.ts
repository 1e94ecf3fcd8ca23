import { randomUUID } from 'node:crypto';
import type { Executor } from './db.js';
import { CREDENTIALS_VERSION } from './apps.js';
import { prepared } from './prepared.js';
import type { Fault, FaultsTable } from './schema.js';
import { putSetting } from './settings.js';
import type { Insertable } from 'kysely';

/**
 * The faults table, and the `settings` rows servers watch (src/http/control.ts): one changes, in
 * the same transaction, with every change to the faults; the others announce a snapshot being
 * loaded into the database and that one was (src/domain/snapshots.ts).
 */
export const FAULTS_VERSION = 'faultsVersion';
export const DATA_GENERATION = 'dataGeneration';
export const RESTORE_PENDING = 'restorePending';

export async function insertFault(db: Executor, fault: Insertable<FaultsTable>): Promise<Fault> {
  const { idFault } = await db
    .insertInto('faults')
    .values(fault)
    .returning('idFault')
    .executeTakeFirstOrThrow();
  await bumpFaultsVersion(db);
  return await db.selectFrom('faults').selectAll().where('idFault', '=', idFault).executeTakeFirstOrThrow();
}

export async function listFaults(db: Executor): Promise<Fault[]> {
  return db.selectFrom('faults').selectAll().orderBy('idFault').execute();
}

/** Deletes one fault, or every fault when `idFault` is undefined; how many went. */
export async function deleteFaults(db: Executor, idFault?: number): Promise<number> {
  let query = db.deleteFrom('faults');
  if (idFault !== undefined) query = query.where('idFault', '=', idFault);
  const result = await query.executeTakeFirst();
  const n = Number(result.numDeletedRows);
  if (n > 0) await bumpFaultsVersion(db);
  return n;
}

async function bumpFaultsVersion(db: Executor): Promise<void> {
  await putSetting(db, FAULTS_VERSION, randomUUID());
}

/** The sandbox clock's offset from real time (ms), moved by `clock advance` (src/services.ts). */
export const CLOCK_OFFSET = 'clockOffsetMs';

const controlQuery = prepared(
  (db, a: string, b: string, c: string, d: string, e: string) =>
    db.selectFrom('settings').select(['key', 'value']).where('key', 'in', [a, b, c, d, e]),
  ['', '', '', '', ''],
);

export interface ControlRows {
  faultsVersion: string;
  dataGeneration: string;
  /** Epoch ms (real time) until which a snapshot load announced itself; 0 when none is under way. */
  restorePendingUntil: number;
  /** The sandbox clock's offset: every worker follows a `clock advance` from its next request. */
  clockOffsetMs: number;
  /**
   * The credentials version (`readCredentialsVersion`), read in the same statement: the requests
   * this read let through take it instead of reading it again (`authenticate.ts`).
   */
  credentialsVersion: string;
}

/** The five rows a sandbox server reads (for all the requests of one event-loop turn). */
export async function readControlRows(db: Executor): Promise<ControlRows> {
  const rows = await controlQuery(
    db,
    FAULTS_VERSION,
    DATA_GENERATION,
    RESTORE_PENDING,
    CLOCK_OFFSET,
    CREDENTIALS_VERSION,
  );
  const out: ControlRows = {
    faultsVersion: '',
    dataGeneration: '',
    restorePendingUntil: 0,
    clockOffsetMs: 0,
    credentialsVersion: '',
  };
  for (const row of rows) {
    if (row.key === FAULTS_VERSION) out.faultsVersion = row.value;
    else if (row.key === DATA_GENERATION) out.dataGeneration = row.value;
    else if (row.key === RESTORE_PENDING) out.restorePendingUntil = Number(row.value) || 0;
    else if (row.key === CLOCK_OFFSET) out.clockOffsetMs = Number(row.value) || 0;
    else if (row.key === CREDENTIALS_VERSION) out.credentialsVersion = row.value;
  }
  return out;
}

/**
 * Takes one of a counted fault's remaining hits: a conditional update, so that however many
 * processes and concurrent requests race for them, exactly `times` requests get one. Changes no
 * version row: a spent fault stays listed (remaining 0) and servers learn it from their next take.
 */
export async function takeFaultRemaining(db: Executor, idFault: number): Promise<boolean> {
  const result = await db
    .updateTable('faults')
    .set((eb) => ({ remaining: eb('remaining', '-', 1) }))
    .where('idFault', '=', idFault)
    .where('remaining', '>', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
