import type { Executor } from './db.js';

/**
 * The access tokens third-party apps hold for a user (what the user authorized), live ones only,
 * newest first, with the app and its owner's name.
 */
export async function listLiveAuthorizations(db: Executor, idUser: number, now: number, limit: number) {
  return db
    .selectFrom('accessTokens')
    .innerJoin('apps', 'apps.idApp', 'accessTokens.idApp')
    .innerJoin('users as owners', 'owners.idUser', 'apps.idUser')
    .select([
      'accessTokens.idAccessToken',
      'accessTokens.createdAt',
      'accessTokens.expiresAt',
      'apps.idApp',
      'apps.name as appName',
      'apps.callbackUrl',
      'owners.username as ownerName',
    ])
    .where('accessTokens.idUser', '=', idUser)
    .where('apps.kind', '=', 'thirdParty')
    .where('apps.revokedAt', 'is', null)
    .where('accessTokens.revokedAt', 'is', null)
    .where((eb) => eb.or([eb('accessTokens.expiresAt', 'is', null), eb('accessTokens.expiresAt', '>', now)]))
    .orderBy('accessTokens.idAccessToken', 'desc')
    .limit(limit)
    .execute();
}

export async function countLiveAppsOfUser(db: Executor, idUser: number): Promise<number> {
  const row = await db
    .selectFrom('apps')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('idUser', '=', idUser)
    .where('revokedAt', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
