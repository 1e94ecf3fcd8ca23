import type { Executor } from './db.js';
import { prepared } from './prepared.js';
import type { WebSessionsTable } from './schema.js';

export type WebSession = WebSessionsTable;

export async function insertSession(db: Executor, row: WebSession): Promise<void> {
  await db.insertInto('webSessions').values(row).execute();
}

/** The live session behind a cookie's id hash, with its user's name and display language. */
export async function findLiveSession(db: Executor, sessionHash: string, now: number) {
  return (await liveSession(db, sessionHash, now))[0];
}

// Every page a signed-in browser asks for starts here.
const liveSession = prepared(
  (db, sessionHash: string, now: number) =>
    db
      .selectFrom('webSessions')
      .innerJoin('users', 'users.idUser', 'webSessions.idUser')
      .select([
        'webSessions.sessionHash',
        'webSessions.idUser',
        'webSessions.expiresAt',
        'users.username',
        'users.idDisplayLanguage',
      ])
      .where('webSessions.sessionHash', '=', sessionHash)
      .where('webSessions.expiresAt', '>', now),
  ['', 0],
);

export async function deleteSession(db: Executor, sessionHash: string): Promise<void> {
  await db.deleteFrom('webSessions').where('sessionHash', '=', sessionHash).execute();
}

export async function deleteSessionsOfUser(db: Executor, idUser: number): Promise<number> {
  const r = await db.deleteFrom('webSessions').where('idUser', '=', idUser).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Expired rows, removed a few at a time when someone signs in, so the table never grows unbounded. */
export async function deleteExpiredSessions(db: Executor, now: number): Promise<void> {
  await db.deleteFrom('webSessions').where('expiresAt', '<=', now).execute();
}

export async function countSessionsOfUser(db: Executor, idUser: number, now: number): Promise<number> {
  const row = await db
    .selectFrom('webSessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('idUser', '=', idUser)
    .where('expiresAt', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
