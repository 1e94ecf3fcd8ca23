import type { Executor } from './db.js';
import { prepared } from './prepared.js';
import type { AccessToken, App, AppKind } from './schema.js';

export interface NewAppRow {
  idUser: number;
  kind: AppKind;
  name: string;
  tokenHash: string;
  salt: string;
  callbackUrl: string | null;
  createdAt: number;
}

export async function insertApp(db: Executor, app: NewAppRow): Promise<App> {
  return db.insertInto('apps').values(app).returningAll().executeTakeFirstOrThrow();
}

const appByTokenHash = prepared(
  (db, tokenHash: string) => db.selectFrom('apps').selectAll().where('tokenHash', '=', tokenHash),
  [''],
);

export async function findAppByTokenHash(db: Executor, tokenHash: string): Promise<App | undefined> {
  return (await appByTokenHash(db, tokenHash))[0];
}

export async function findAppById(db: Executor, idApp: number): Promise<App | undefined> {
  return db.selectFrom('apps').selectAll().where('idApp', '=', idApp).executeTakeFirst();
}

export async function listAppsOfUser(db: Executor, idUser: number): Promise<App[]> {
  return db.selectFrom('apps').selectAll().where('idUser', '=', idUser).orderBy('idApp').execute();
}

export async function revokeApp(db: Executor, idApp: number, at: number): Promise<void> {
  await db
    .updateTable('apps')
    .set({ revokedAt: at })
    .where('idApp', '=', idApp)
    .where('revokedAt', 'is', null)
    .execute();
  await db
    .updateTable('accessTokens')
    .set({ revokedAt: at })
    .where('idApp', '=', idApp)
    .where('revokedAt', 'is', null)
    .execute();
}

export interface NewAccessTokenRow {
  idApp: number;
  idUser: number;
  tokenHash: string;
  salt: string;
  createdAt: number;
  expiresAt: number | null;
}

export async function insertAccessToken(db: Executor, row: NewAccessTokenRow): Promise<AccessToken> {
  return db.insertInto('accessTokens').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findAccessToken(
  db: Executor,
  idApp: number,
  tokenHash: string,
): Promise<AccessToken | undefined> {
  return db
    .selectFrom('accessTokens')
    .selectAll()
    .where('tokenHash', '=', tokenHash)
    .where('idApp', '=', idApp)
    .executeTakeFirst();
}

export async function findAccessTokenById(
  db: Executor,
  idAccessToken: number,
): Promise<AccessToken | undefined> {
  return db
    .selectFrom('accessTokens')
    .selectAll()
    .where('idAccessToken', '=', idAccessToken)
    .executeTakeFirst();
}

export async function listAccessTokens(db: Executor, idApp: number): Promise<AccessToken[]> {
  return db
    .selectFrom('accessTokens')
    .selectAll()
    .where('idApp', '=', idApp)
    .orderBy('idAccessToken')
    .execute();
}

export async function revokeAccessToken(db: Executor, idAccessToken: number, at: number): Promise<boolean> {
  const r = await db
    .updateTable('accessTokens')
    .set({ revokedAt: at })
    .where('idAccessToken', '=', idAccessToken)
    .where('revokedAt', 'is', null)
    .executeTakeFirst();
  return r.numUpdatedRows === 1n;
}

export async function revokeActiveTokens(
  db: Executor,
  idApp: number,
  idUser: number,
  at: number,
): Promise<void> {
  await db
    .updateTable('accessTokens')
    .set({ revokedAt: at })
    .where('idApp', '=', idApp)
    .where('idUser', '=', idUser)
    .where('revokedAt', 'is', null)
    .execute();
}
