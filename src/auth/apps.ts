import type { DomainContext } from '../domain/context.js';
import { badRequest, notFound } from '../errors.js';
import {
  findAccessTokenById,
  findAppById,
  findAppByTokenHash,
  insertAccessToken,
  insertApp,
  listAccessTokens,
  listAppsOfUser,
  revokeAccessToken,
  revokeActiveTokens,
  revokeApp,
} from '../store/apps.js';
import type { Executor } from '../store/db.js';
import type { AccessToken, App, AppKind } from '../store/schema.js';
import { isSystemAccount } from '../store/system-accounts.js';
import { findUserById } from '../store/users.js';
import { type Credential, deriveCredential, hashToken, newSalt } from './credentials.js';

/**
 * Apps and their tokens (spec §5.5, reference §4.5):
 *  - dedicated: app token + secret and one access token + secret acting as the owner;
 *  - widget: app token + secret only; the access token in requests is the empty string;
 *  - third-party: app token + secret; every user it acts for has an access token of their own.
 */

/** `third-party`, `thirdparty`, `3rd` → `thirdParty`; the CLI and the API spell it differently. */
export function parseAppKind(text: string): AppKind {
  const k = text.toLowerCase().replace(/[-_ ]/g, '');
  if (k === 'dedicated') return 'dedicated';
  if (k === 'widget') return 'widget';
  if (k === 'thirdparty' || k === '3rd' || k === '3rdparty') return 'thirdParty';
  throw badRequest(`Unknown app kind "${text}": use dedicated, widget or third-party.`);
}

export interface IssuedApp {
  app: App;
  appToken: string;
  appSecret: string;
  /** Dedicated apps only. */
  accessToken?: Credential & { idAccessToken: number };
}

export interface AppServices extends DomainContext {
  serverKey: string;
}

export function appCredential(serverKey: string, app: App): Credential {
  return deriveCredential(serverKey, 'app', app.salt);
}

export function accessTokenCredential(serverKey: string, token: AccessToken): Credential {
  return deriveCredential(serverKey, 'access', token.salt);
}

export async function createApp(
  ctx: AppServices,
  input: { idUser: number; kind: AppKind; name?: string; callbackUrl?: string | null },
): Promise<IssuedApp> {
  return ctx.database.transaction(async (tx) => {
    const user = await findUserById(tx, input.idUser);
    if (!user) throw notFound(`User ${input.idUser} does not exist.`);
    await refuseSystemAccount(tx, input.idUser);
    const now = ctx.clock.now();
    const salt = newSalt();
    const cred = deriveCredential(ctx.serverKey, 'app', salt);
    const app = await insertApp(tx, {
      idUser: input.idUser,
      kind: input.kind,
      name: input.name ?? `${user.username}'s ${input.kind} app`,
      tokenHash: hashToken(cred.token),
      salt,
      callbackUrl: input.callbackUrl ?? null,
      createdAt: now,
    });
    const issued: IssuedApp = { app, appToken: cred.token, appSecret: cred.secret };
    if (input.kind === 'dedicated') {
      const tokenSalt = newSalt();
      const tokenCred = deriveCredential(ctx.serverKey, 'access', tokenSalt);
      const row = await insertAccessToken(tx, {
        idApp: app.idApp,
        idUser: input.idUser,
        tokenHash: hashToken(tokenCred.token),
        salt: tokenSalt,
        createdAt: now,
        expiresAt: null,
      });
      issued.accessToken = { ...tokenCred, idAccessToken: row.idAccessToken };
    }
    return issued;
  });
}

/**
 * A new access token for a user of a third-party app (what the browser authorization flow ends
 * with, and `cardbazaar token create`). Earlier tokens of that app for that user stay valid until
 * revoked or expired: a user may run the same tool on two machines.
 */
export async function createAccessToken(
  ctx: AppServices,
  input: { idApp: number; idUser: number; expiresAt?: number | null },
): Promise<Credential & { idAccessToken: number }> {
  return ctx.database.transaction((tx) => issueAccessToken(tx, ctx, input));
}

/** `createAccessToken` inside a caller's transaction (the request token exchange uses it). */
export async function issueAccessToken(
  tx: Executor,
  ctx: AppServices,
  input: { idApp: number; idUser: number; expiresAt?: number | null },
): Promise<Credential & { idAccessToken: number }> {
  const app = await findAppById(tx, input.idApp);
  if (!app || app.revokedAt !== null) throw notFound(`App ${input.idApp} does not exist or is revoked.`);
  if (app.kind === 'widget') throw badRequest('Widget apps have no access tokens.');
  if (app.kind === 'dedicated' && app.idUser !== input.idUser) {
    throw badRequest('A dedicated app acts only for its owner.');
  }
  if (!(await findUserById(tx, input.idUser))) throw notFound(`User ${input.idUser} does not exist.`);
  await refuseSystemAccount(tx, input.idUser);
  const now = ctx.clock.now();
  if (app.kind === 'dedicated') {
    await revokeActiveTokens(tx, app.idApp, input.idUser, now);
  }
  const salt = newSalt();
  const cred = deriveCredential(ctx.serverKey, 'access', salt);
  const row = await insertAccessToken(tx, {
    idApp: app.idApp,
    idUser: input.idUser,
    tokenHash: hashToken(cred.token),
    salt,
    createdAt: now,
    expiresAt: input.expiresAt ?? null,
  });
  return { ...cred, idAccessToken: row.idAccessToken };
}

/** The live app behind an app token, for the browser authorization flow. */
export async function findAppForAuthorization(
  ctx: DomainContext,
  appToken: string,
): Promise<App | undefined> {
  if (!appToken) return undefined;
  const app = await findAppByTokenHash(ctx.database.db, hashToken(appToken));
  return app && app.revokedAt === null ? app : undefined;
}

/** The marketplace's own sender (`domain/system-messages.ts`) must never be something one can act as. */
async function refuseSystemAccount(db: Executor, idUser: number): Promise<void> {
  if (await isSystemAccount(db, idUser)) {
    throw badRequest('This is the system account: it can have no apps or access tokens.');
  }
}

export async function revokeAppById(ctx: DomainContext, idApp: number): Promise<void> {
  await ctx.database.transaction(async (tx) => {
    if (!(await findAppById(tx, idApp))) throw notFound(`App ${idApp} does not exist.`);
    await revokeApp(tx, idApp, ctx.clock.now());
  });
}

export async function revokeAccessTokenById(ctx: DomainContext, idAccessToken: number): Promise<void> {
  await ctx.database.transaction(async (tx) => {
    const token = await findAccessTokenById(tx, idAccessToken);
    if (!token) throw notFound(`Access token ${idAccessToken} does not exist.`);
    await revokeAccessToken(tx, idAccessToken, ctx.clock.now());
  });
}

/** A user's apps with their credentials re-derived, for the operator (CLI) and the demo banner. */
export async function describeApps(ctx: AppServices, idUser: number) {
  const apps = await listAppsOfUser(ctx.database.db, idUser);
  const out = [];
  for (const app of apps) out.push(await describeApp(ctx, app, false));
  return out;
}

/**
 * One app by id, whoever owns it, with every token it holds, revoked ones included: the CLI's
 * `request --app` signs with a third-party app's token for the user, or with a revoked token so its
 * 401 can be seen.
 */
export async function describeAppById(ctx: AppServices, idApp: number) {
  const app = await findAppById(ctx.database.db, idApp);
  return app ? { ...(await describeApp(ctx, app, true)), idOwner: app.idUser } : undefined;
}

async function describeApp(ctx: AppServices, app: App, withRevokedTokens: boolean) {
  const cred = appCredential(ctx.serverKey, app);
  const tokens = (await listAccessTokens(ctx.database.db, app.idApp))
    .filter((t) => withRevokedTokens || t.revokedAt === null)
    .map((t) => ({
      idAccessToken: t.idAccessToken,
      idUser: t.idUser,
      revoked: t.revokedAt !== null,
      ...accessTokenCredential(ctx.serverKey, t),
    }));
  return {
    idApp: app.idApp,
    kind: app.kind,
    name: app.name,
    revoked: app.revokedAt !== null,
    appToken: cred.token,
    appSecret: cred.secret,
    accessTokens: tokens,
  };
}
