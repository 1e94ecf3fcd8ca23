import type { Executor } from './db.js';
import type { SellerActivationRow } from './schema.js';

export async function findSellerActivation(
  db: Executor,
  idUser: number,
): Promise<SellerActivationRow | undefined> {
  return db.selectFrom('sellerActivations').selectAll().where('idUser', '=', idUser).executeTakeFirst();
}

/** Records a new request, replacing an earlier one (new transfers, attempts from zero). */
export async function putSellerActivation(db: Executor, row: SellerActivationRow): Promise<void> {
  await db
    .insertInto('sellerActivations')
    .values(row)
    .onConflict((oc) =>
      oc.column('idUser').doUpdateSet({
        requestedAt: row.requestedAt,
        transfersAt: row.transfersAt,
        transfer1: row.transfer1,
        transfer2: row.transfer2,
        failedAttempts: row.failedAttempts,
      }),
    )
    .execute();
}

/** Counts a wrong answer and returns how many there have been. */
export async function addFailedAttempt(db: Executor, idUser: number): Promise<number> {
  const row = await db
    .updateTable('sellerActivations')
    .set((eb) => ({ failedAttempts: eb('failedAttempts', '+', 1) }))
    .where('idUser', '=', idUser)
    .returning('failedAttempts')
    .executeTakeFirstOrThrow();
  return Number(row.failedAttempts);
}

export async function deleteSellerActivation(db: Executor, idUser: number): Promise<void> {
  await db.deleteFrom('sellerActivations').where('idUser', '=', idUser).execute();
}
