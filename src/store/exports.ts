import type { Executor } from './db.js';
import type { Export, ExportType } from './schema.js';

/** Export requests and their files (`exports`, `exportChunks`). */

export async function insertExport(
  db: Executor,
  row: Omit<Export, 'idRequest' | 'buildingSince' | 'finishedAt' | 'articleCount' | 'size' | 'status'>,
): Promise<Export> {
  return db
    .insertInto('exports')
    .values({
      ...row,
      status: 'pending',
      buildingSince: null,
      finishedAt: null,
      articleCount: null,
      size: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findExport(db: Executor, idRequest: number): Promise<Export | undefined> {
  return db.selectFrom('exports').selectAll().where('idRequest', '=', idRequest).executeTakeFirst();
}

/** A user's requests still listed (not expired), oldest first; of one type, or of one resource. */
export async function liveExports(
  db: Executor,
  idUser: number,
  now: number,
  filter: { type?: ExportType; resourceId?: number } = {},
): Promise<Export[]> {
  let q = db
    .selectFrom('exports')
    .selectAll()
    .where('idUser', '=', idUser)
    .where('expiresAt', '>', now)
    .orderBy('idRequest');
  if (filter.type !== undefined) q = q.where('type', '=', filter.type);
  if (filter.resourceId !== undefined) q = q.where('resourceId', '=', filter.resourceId);
  return q.execute();
}

/** Expired requests go with their files (the chunks follow by the foreign key's cascade). */
export async function deleteExpiredExports(db: Executor, now: number): Promise<void> {
  await db
    .deleteFrom('exportChunks')
    .where('idRequest', 'in', (eb) =>
      eb.selectFrom('exports').select('idRequest').where('expiresAt', '<=', now),
    )
    .execute();
  await db.deleteFrom('exports').where('expiresAt', '<=', now).execute();
}

export async function insertExportChunk(db: Executor, idRequest: number, seq: number, data: Buffer) {
  await db.insertInto('exportChunks').values({ idRequest, seq, data }).execute();
}

export async function exportChunkPage(
  db: Executor,
  idRequest: number,
  fromSeq: number,
  limit: number,
): Promise<Array<{ seq: number; data: Buffer }>> {
  const rows = await db
    .selectFrom('exportChunks')
    .select(['seq', 'data'])
    .where('idRequest', '=', idRequest)
    .where('seq', '>=', fromSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ seq: r.seq, data: Buffer.from(r.data) }));
}

/**
 * Claims a pending request's build: when none was claimed, or the last claim (before `staleBefore`)
 * evidently died with its process. Returns whether this caller holds the claim `at`.
 */
export async function claimExportBuild(
  db: Executor,
  idRequest: number,
  at: number,
  staleBefore: number,
): Promise<boolean> {
  const r = await db
    .updateTable('exports')
    .set({ buildingSince: at })
    .where('idRequest', '=', idRequest)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('buildingSince', 'is', null), eb('buildingSince', '<', staleBefore)]))
    .executeTakeFirst();
  return r.numUpdatedRows === 1n;
}

/** Gives up stale claims so their requests are built again; returns the requests released. */
export async function releaseStaleBuilds(db: Executor, idRequests: number[], staleBefore: number) {
  if (idRequests.length === 0) return [];
  const rows = await db
    .updateTable('exports')
    .set({ buildingSince: null })
    .where('idRequest', 'in', idRequests)
    .where('status', '=', 'pending')
    .where('buildingSince', '<', staleBefore)
    .returning('idRequest')
    .execute();
  return rows.map((r) => r.idRequest);
}

export async function deleteExportChunks(db: Executor, idRequest: number): Promise<void> {
  await db.deleteFrom('exportChunks').where('idRequest', '=', idRequest).execute();
}

/** Marks a request finished, if the build that made the file still holds the claim. */
export async function finishExport(
  db: Executor,
  idRequest: number,
  claim: number,
  finishedAt: number,
  articleCount: number,
  size: number,
): Promise<boolean> {
  const r = await db
    .updateTable('exports')
    .set({ status: 'finished', finishedAt, articleCount, size })
    .where('idRequest', '=', idRequest)
    .where('status', '=', 'pending')
    .where('buildingSince', '=', claim)
    .executeTakeFirst();
  return r.numUpdatedRows === 1n;
}
