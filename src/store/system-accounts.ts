import type { Executor } from './db.js';

/** Users the marketplace itself acts as, by role (see `domain/system-messages.ts`). */

export async function findSystemAccount(db: Executor, role: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('systemAccounts')
    .select('idUser')
    .where('role', '=', role)
    .executeTakeFirst();
  return row?.idUser;
}

export async function insertSystemAccount(db: Executor, role: string, idUser: number): Promise<void> {
  await db.insertInto('systemAccounts').values({ role, idUser }).execute();
}

export async function isSystemAccount(db: Executor, idUser: number): Promise<boolean> {
  const row = await db
    .selectFrom('systemAccounts')
    .select('role')
    .where('idUser', '=', idUser)
    .executeTakeFirst();
  return row !== undefined;
}
