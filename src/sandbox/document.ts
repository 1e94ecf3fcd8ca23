import { type AppServices, describeApps } from '../auth/apps.js';
import { DEMO_PASSWORD, DEMO_USERS } from '../seed/demo-users.js';
import { findUserById, findUserByUsername } from '../store/users.js';
import type { SandboxCredentials, SandboxDocument, SandboxUser } from './types.js';

/**
 * Every live credential set that acts as each of these users, one per app kind: the users' own
 * dedicated and widget apps, and any of their third-party apps holding an access token for one of
 * them (listed under the user the token acts for, since that is whom a request signed with it reaches).
 */
export async function credentialsOf(ctx: AppServices, idUsers: number[]): Promise<SandboxUser[]> {
  const users: SandboxUser[] = [];
  const byId = new Map<number, SandboxUser>();
  for (const idUser of idUsers) {
    const user = await findUserById(ctx.database.db, idUser);
    if (!user) continue;
    const entry: SandboxUser = { idUser, username: user.username, apps: {} };
    users.push(entry);
    byId.set(idUser, entry);
  }
  // The first live app of a kind wins, so a user's set stays stable as more apps are created.
  const give = (user: SandboxUser | undefined, cred: SandboxCredentials) => {
    if (user && !user.apps[cred.kind]) user.apps[cred.kind] = cred;
  };
  for (const owner of users) {
    for (const app of await describeApps(ctx, owner.idUser)) {
      if (app.revoked) continue;
      const base = { idApp: app.idApp, kind: app.kind, name: app.name, idOwner: owner.idUser };
      const keys = { appToken: app.appToken, appSecret: app.appSecret };
      if (app.kind === 'widget') {
        give(owner, { ...base, ...keys, accessToken: '', accessTokenSecret: '' });
        continue;
      }
      for (const t of app.accessTokens) {
        if (app.kind === 'dedicated' && t.idUser !== owner.idUser) continue;
        give(byId.get(t.idUser), { ...base, ...keys, accessToken: t.token, accessTokenSecret: t.secret });
      }
    }
  }
  return users;
}

/** The document `serve --print-credentials json` prints, for the demo users that exist. */
export async function sandboxDocument(
  ctx: AppServices,
  url: string,
  location: string,
  controlToken: string,
  httpsUrl?: string,
): Promise<SandboxDocument> {
  const ids: number[] = [];
  for (const { username } of DEMO_USERS) {
    const user = await findUserByUsername(ctx.database.db, username);
    if (user) ids.push(user.idUser);
  }
  return {
    baseUrl: `${url}/ws/v2.0`,
    jsonBaseUrl: `${url}/ws/v2.0/output.json`,
    ...(httpsUrl === undefined ? {} : { httpsBaseUrl: `${httpsUrl}/ws/v2.0` }),
    websiteUrl: `${url}/`,
    database: location,
    demoPassword: DEMO_PASSWORD,
    controlToken,
    users: await credentialsOf(ctx, ids),
  };
}
