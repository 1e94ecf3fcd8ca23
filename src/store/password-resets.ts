import type { Executor } from './db.js';
import type { PasswordResetsTable } from './schema.js';

export async function insertPasswordReset(db: Executor, row: PasswordResetsTable): Promise<void> {
  await db.insertInto('passwordResets').values(row).execute();
}

export async function findPasswordReset(db: Executor, tokenHash: string) {
  return db.selectFrom('passwordResets').selectAll().where('tokenHash', '=', tokenHash).executeTakeFirst();
}

/** Marks a link used, only if it still is unused and unexpired: two tabs cannot both use it. */
export async function claimPasswordReset(db: Executor, tokenHash: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('passwordResets')
    .set({ usedAt: now })
    .where('tokenHash', '=', tokenHash)
    .where('usedAt', 'is', null)
    .where('expiresAt', '>', now)
    .executeTakeFirst();
  return r.numUpdatedRows === 1n;
}

/** A new password makes every other link of the user useless; old rows go too. */
export async function deletePasswordResetsOfUser(db: Executor, idUser: number): Promise<void> {
  await db.deleteFrom('passwordResets').where('idUser', '=', idUser).execute();
}

export async function deleteExpiredPasswordResets(db: Executor, now: number): Promise<void> {
  await db.deleteFrom('passwordResets').where('expiresAt', '<=', now).execute();
}
