import { randomUUID } from 'node:crypto';
import type { Executor } from './db.js';
import { prepared } from './prepared.js';
import { putSetting } from './settings.js';
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

export interface CredentialState {
  appRevokedAt: number | null;
  /** Undefined when the request carries no access token (widget apps) or the token row is gone. */
  idAccessToken: number | null;
  tokenRevokedAt: number | null;
}

// Parameters in the order the SQL holds them: the join's token id, then the app id.
const credentialStateQuery = prepared(
  (db, idAccessToken: number, idApp: number) =>
    db
      .selectFrom('apps')
      .leftJoin('accessTokens', (join) =>
        join
          .on('accessTokens.idAccessToken', '=', idAccessToken)
          .onRef('accessTokens.idApp', '=', 'apps.idApp'),
      )
      .select([
        'apps.revokedAt as appRevokedAt',
        'accessTokens.idAccessToken as idAccessToken',
        'accessTokens.revokedAt as tokenRevokedAt',
      ])
      .where('apps.idApp', '=', idApp),
  [0, 0],
);

/**
 * Whether an app and one of its access tokens are still live (one primary-key lookup), for cached
 * credentials once the credentials version has moved. `idAccessToken` 0 reads the app alone.
 */
export async function credentialState(
  db: Executor,
  idApp: number,
  idAccessToken: number,
): Promise<CredentialState | undefined> {
  return (await credentialStateQuery(db, idAccessToken, idApp))[0];
}

/**
 * A value that changes, in the same transaction, with every revocation of an app or access token
 * (a `settings` row): processes that cache credentials read it to learn that something was revoked
 * anywhere, by any process. Random rather than counted, so no dialect needs arithmetic on text.
 */
export const CREDENTIALS_VERSION = 'credentialsVersion';

const credentialsVersionQuery = prepared(
  (db, key: string) => db.selectFrom('settings').select('value').where('key', '=', key),
  [''],
);

export async function readCredentialsVersion(db: Executor): Promise<string> {
  return (await credentialsVersionQuery(db, CREDENTIALS_VERSION))[0]?.value ?? '';
}

async function bumpCredentialsVersion(db: Executor): Promise<void> {
  await putSetting(db, CREDENTIALS_VERSION, randomUUID());
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
  await bumpCredentialsVersion(db);
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
  return (await accessTokenByHash(db, tokenHash, idApp))[0];
}

// Every request signed with a token not yet cached asks it (each checkout of a new buyer, say):
// built and compiled by Kysely on each call it cost about 0.1 ms, a fifth of the authentication.
const accessTokenByHash = prepared(
  (db, tokenHash: string, idApp: number) =>
    db.selectFrom('accessTokens').selectAll().where('tokenHash', '=', tokenHash).where('idApp', '=', idApp),
  ['', 0],
);

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
  await bumpCredentialsVersion(db);
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
  await bumpCredentialsVersion(db);
}
