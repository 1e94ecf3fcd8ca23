import { randomBytes } from 'node:crypto';
import type { DomainContext } from '../domain/context.js';
import { ApiError, badRequest, forbidden, notFound, unauthorized } from '../errors.js';
import { findAppById } from '../store/apps.js';
import {
  claimRequestToken,
  deleteOldRequestTokens,
  findRequestToken,
  insertRequestToken,
} from '../store/request-tokens.js';
import { isSystemAccount } from '../store/system-accounts.js';
import { type AppServices, issueAccessToken } from './apps.js';
import { type Credential, hashToken } from './credentials.js';

/**
 * The third-party authorization flow (reference §1.8, §4.5). A user who approves an app on the
 * consent page gets the app a request token, random (256 bits), bound to that app and that user,
 * valid 24 hours on the marketplace clock and good for one exchange: `POST /access` trades it, signed
 * with the app's own token and secret, for an access token that acts for the user and lasts
 * THIRD_PARTY_TOKEN_DAYS. Only the token's SHA-256 is stored.
 */
export const REQUEST_TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The token of an approval (the consent page's "Authorize"). */
export async function issueRequestToken(
  ctx: DomainContext,
  input: { idApp: number; idUser: number },
): Promise<{ requestToken: string; expiresAt: number }> {
  const requestToken = randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  const expiresAt = now + REQUEST_TOKEN_LIFETIME_MS;
  await ctx.database.transaction(async (tx) => {
    const app = await findAppById(tx, input.idApp);
    if (!app || app.revokedAt !== null) throw notFound('There is no app with this app token.');
    if (app.kind !== 'thirdParty') {
      throw forbidden('Only third-party apps use the authorization flow.', { code: 'app_kind_not_allowed' });
    }
    if (await isSystemAccount(tx, input.idUser)) throw badRequest('The system account authorizes no apps.');
    // Tokens a day past their end explain nothing any more (a late exchange still learns "expired").
    await deleteOldRequestTokens(tx, now - DAY_MS);
    await insertRequestToken(tx, {
      tokenHash: hashToken(requestToken),
      idApp: input.idApp,
      idUser: input.idUser,
      createdAt: now,
      expiresAt,
      usedAt: null,
    });
  });
  return { requestToken, expiresAt };
}

function refused(description: string, code: string): ApiError {
  return unauthorized(description, { code, field: 'request_token' });
}

/**
 * `POST /access`: the request token becomes an access token for the user who approved, once.
 * Each way a token can be refused has its own `internal_error_code`: unknown, another app's, used,
 * expired. The token is claimed with a conditional update in the same transaction that issues the
 * access token, so two concurrent exchanges of one token give one access token.
 */
export async function exchangeRequestToken(
  ctx: AppServices,
  input: { idApp: number; requestToken: string; tokenDays: number },
): Promise<Credential & { idAccessToken: number; idUser: number; expiresAt: number }> {
  const tokenHash = hashToken(input.requestToken);
  return ctx.database.transaction(async (tx) => {
    const now = ctx.clock.now();
    const row = input.requestToken.length <= 100 ? await findRequestToken(tx, tokenHash) : undefined;
    if (!row) throw refused('Unknown request token.', 'unknown_request_token');
    if (row.idApp !== input.idApp) {
      throw refused('This request token was issued to another app.', 'request_token_other_app');
    }
    if (row.usedAt !== null) {
      throw refused(
        'This request token has been exchanged already: a request token is good for one exchange.',
        'request_token_used',
      );
    }
    if (row.expiresAt <= now) {
      throw refused(
        'This request token has expired (request tokens last 24 hours): send the user through /authenticate again.',
        'request_token_expired',
      );
    }
    if (!(await claimRequestToken(tx, tokenHash, now))) {
      throw refused(
        'This request token has been exchanged already: a request token is good for one exchange.',
        'request_token_used',
      );
    }
    const expiresAt = now + input.tokenDays * DAY_MS;
    const cred = await issueAccessToken(tx, ctx, { idApp: input.idApp, idUser: row.idUser, expiresAt });
    return { ...cred, idUser: row.idUser, expiresAt };
  });
}
