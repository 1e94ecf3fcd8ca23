import type { Executor } from './db.js';
import type { RequestTokensTable } from './schema.js';

export async function insertRequestToken(db: Executor, row: RequestTokensTable): Promise<void> {
  await db.insertInto('requestTokens').values(row).execute();
}

export async function findRequestToken(db: Executor, tokenHash: string) {
  return db.selectFrom('requestTokens').selectAll().where('tokenHash', '=', tokenHash).executeTakeFirst();
}

/** Uses a request token once: only the first of two concurrent exchanges gets it. */
export async function claimRequestToken(db: Executor, tokenHash: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('requestTokens')
    .set({ usedAt: now })
    .where('tokenHash', '=', tokenHash)
    .where('usedAt', 'is', null)
    .where('expiresAt', '>', now)
    .executeTakeFirst();
  return r.numUpdatedRows === 1n;
}

/** Tokens a day past their expiry are of no use even to explain a 401: they go. */
export async function deleteOldRequestTokens(db: Executor, before: number): Promise<void> {
  await db.deleteFrom('requestTokens').where('expiresAt', '<=', before).execute();
}
