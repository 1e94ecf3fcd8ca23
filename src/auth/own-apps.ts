import type { Mode } from '../config.js';
import { FieldCheck } from '../domain/validation.js';
import { badRequest, notFound } from '../errors.js';
import {
  findAccessTokenById,
  findAppById,
  listAccessTokens,
  listAppsOfUser,
  revokeAccessToken,
  revokeApp,
} from '../store/apps.js';
import { countLiveAppsOfUser, listLiveAuthorizations } from '../store/authorizations.js';
import type { AppKind } from '../store/schema.js';
import {
  accessTokenCredential,
  type AppServices,
  appCredential,
  createApp,
  createAccessToken,
  type IssuedApp,
} from './apps.js';

/**
 * A user's own apps and the apps they authorized, as the profile page manages them: the same
 * functions as the CLI's (`createApp`, `revokeApp`, …), with ownership checked here, so a user acts
 * only on their own apps and tokens (anyone else's id is a 404, like one that does not exist).
 * Every revocation goes through the store functions that bump the credentials version, so it counts
 * on every instance from the next request.
 */

/** The live service allowed one app per account; developers here test several kinds at once. */
export const MAX_LIVE_APPS = 20;
export const MAX_APP_NAME = 64;
export const MAX_CALLBACK_URL = 500;
/** Authorizations a profile page lists (newest first); more stay valid and are revocable by app. */
export const AUTHORIZATIONS_SHOWN = 200;

const KINDS: Record<string, AppKind> = { dedicated: 'dedicated', widget: 'widget', thirdParty: 'thirdParty' };

/**
 * A third-party app's callback: https, or plain http to this machine (localhost, 127.0.0.1, [::1])
 * in the sandbox, where developers run their app beside the server. No credentials in it, no
 * fragment, not even an empty one (the request token is appended to the query), no white space.
 * Characters outside ASCII are allowed (they are percent-encoded when the browser is sent there).
 */
export function checkCallbackUrl(check: FieldCheck, text: string, mode: Mode): string {
  const field = 'callbackUrl';
  if (text === '') {
    check.add(field, 'callback_required', 'A third-party app needs a callback URL.');
    return text;
  }
  let url: URL | undefined;
  try {
    url = text.length <= MAX_CALLBACK_URL ? new URL(text) : undefined;
  } catch {
    url = undefined;
  }
  const local = url && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    check.add(
      field,
      'callback_invalid',
      `A callback URL is an absolute https:// address of at most ${MAX_CALLBACK_URL} characters.`,
      { max: MAX_CALLBACK_URL },
    );
  } else if (url.protocol === 'http:' && !(local && mode === 'sandbox')) {
    check.add(
      field,
      mode === 'sandbox' ? 'callback_not_https_sandbox' : 'callback_not_https',
      mode === 'sandbox'
        ? 'A callback URL uses https, or http only to this machine (http://localhost or http://127.0.0.1).'
        : 'A callback URL uses https.',
    );
  } else if (url.username || url.password || text.includes('#') || /[\p{Cc}\s]/u.test(text)) {
    // Even an empty fragment (`…/cb#`): the request token appended to the query would land in it.
    check.add(
      field,
      'callback_invalid',
      'A callback URL has no user name, password, #fragment, space or control character in it.',
    );
  }
  return text;
}

/** What is wrong with a callback URL given outside the website (the CLI, fixtures), if anything. */
export function callbackUrlProblem(text: string, mode: Mode): string | undefined {
  const check = new FieldCheck();
  checkCallbackUrl(check, text, mode);
  return check.problems.callbackUrl?.message;
}

export interface NewAppForm {
  kind: string;
  name: string;
  callbackUrl: string;
}

/** The profile page's "new app": checks every field at once, then creates it as the CLI does. */
export async function createOwnApp(
  ctx: AppServices,
  idUser: number,
  form: NewAppForm,
  mode: Mode,
): Promise<IssuedApp> {
  const check = new FieldCheck();
  const kind = KINDS[form.kind];
  if (!kind)
    check.add('kind', 'app_kind_invalid', 'Choose the kind of app: dedicated, widget or third-party.');
  const name = form.name.trim();
  if (name === '') check.add('name', 'app_name_required', 'Give the app a name.');
  else if (name.length > MAX_APP_NAME || /\p{Cc}/u.test(name)) {
    check.add(
      'name',
      'app_name_invalid',
      `An app name has at most ${MAX_APP_NAME} characters and no control characters.`,
      { max: MAX_APP_NAME },
    );
  }
  const callbackUrl = form.callbackUrl.trim();
  if (kind === 'thirdParty') checkCallbackUrl(check, callbackUrl, mode);
  check.throwIfAny();
  if ((await countLiveAppsOfUser(ctx.database.db, idUser)) >= MAX_LIVE_APPS) {
    throw badRequest(`An account has at most ${MAX_LIVE_APPS} apps: revoke one first.`, {
      code: 'too_many_apps',
    });
  }
  return createApp(ctx, {
    idUser,
    kind: kind!,
    name,
    callbackUrl: kind === 'thirdParty' ? callbackUrl : null,
  });
}

export interface OwnApp {
  idApp: number;
  kind: AppKind;
  name: string;
  callbackUrl: string | null;
  createdAt: number;
  appToken: string;
  appSecret: string;
  /** A dedicated app's live access token (its owner's). */
  accessToken: { idAccessToken: number; token: string; secret: string } | null;
  /** A third-party app: how many live tokens users gave it. */
  authorizedUsers: number;
}

/** The user's live apps with their credentials, oldest first. */
export async function listOwnApps(ctx: AppServices, idUser: number): Promise<OwnApp[]> {
  const now = ctx.clock.now();
  const out: OwnApp[] = [];
  for (const app of await listAppsOfUser(ctx.database.db, idUser)) {
    if (app.revokedAt !== null) continue;
    const cred = appCredential(ctx.serverKey, app);
    const live = (await listAccessTokens(ctx.database.db, app.idApp)).filter(
      (t) => t.revokedAt === null && (t.expiresAt === null || t.expiresAt > now),
    );
    const own = app.kind === 'dedicated' ? live.find((t) => t.idUser === idUser) : undefined;
    out.push({
      idApp: app.idApp,
      kind: app.kind,
      name: app.name,
      callbackUrl: app.callbackUrl,
      createdAt: app.createdAt,
      appToken: cred.token,
      appSecret: cred.secret,
      accessToken: own
        ? { idAccessToken: own.idAccessToken, ...accessTokenCredential(ctx.serverKey, own) }
        : null,
      authorizedUsers: app.kind === 'thirdParty' ? new Set(live.map((t) => t.idUser)).size : 0,
    });
  }
  return out;
}

async function ownLiveApp(ctx: AppServices, idUser: number, idApp: number) {
  const app = Number.isSafeInteger(idApp) ? await findAppById(ctx.database.db, idApp) : undefined;
  if (!app || app.idUser !== idUser || app.revokedAt !== null) throw notFound(`You have no app ${idApp}.`);
  return app;
}

/** A dedicated app's new access token; the old one answers 401 from the next request on. */
export async function regenerateOwnAccessToken(ctx: AppServices, idUser: number, idApp: number) {
  const app = await ownLiveApp(ctx, idUser, idApp);
  if (app.kind !== 'dedicated') {
    throw badRequest('Only a dedicated app has an access token of its owner to regenerate.', {
      code: 'not_dedicated',
    });
  }
  return createAccessToken(ctx, { idApp, idUser });
}

/** Revokes one of the user's apps and every access token it holds. */
export async function revokeOwnApp(ctx: AppServices, idUser: number, idApp: number): Promise<string> {
  const app = await ownLiveApp(ctx, idUser, idApp);
  await ctx.database.transaction((tx) => revokeApp(tx, idApp, ctx.clock.now()));
  return app.name;
}

export function listAuthorizations(ctx: AppServices, idUser: number) {
  return listLiveAuthorizations(ctx.database.db, idUser, ctx.clock.now(), AUTHORIZATIONS_SHOWN);
}

/** Takes back one access token the user gave a third-party app. */
export async function revokeAuthorization(
  ctx: AppServices,
  idUser: number,
  idAccessToken: number,
): Promise<void> {
  await ctx.database.transaction(async (tx) => {
    const token = Number.isSafeInteger(idAccessToken)
      ? await findAccessTokenById(tx, idAccessToken)
      : undefined;
    const app = token ? await findAppById(tx, token.idApp) : undefined;
    if (!token || !app || token.idUser !== idUser || app.kind !== 'thirdParty' || token.revokedAt !== null) {
      throw notFound(`You have no authorization ${idAccessToken}.`);
    }
    await revokeAccessToken(tx, idAccessToken, ctx.clock.now());
  });
}
