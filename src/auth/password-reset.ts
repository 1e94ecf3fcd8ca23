import { randomBytes } from 'node:crypto';
import type { DomainContext } from '../domain/context.js';
import { FieldCheck } from '../domain/validation.js';
import { ApiError } from '../errors.js';
import {
  claimPasswordReset,
  deleteExpiredPasswordResets,
  deletePasswordResetsOfUser,
  findPasswordReset,
  insertPasswordReset,
} from '../store/password-resets.js';
import type { User } from '../store/schema.js';
import { findUserByUsername, setPasswordHash } from '../store/users.js';
import { deleteSessionsOfUser } from '../store/web-sessions.js';
import { hashToken } from './credentials.js';
import { hashPassword } from './passwords.js';
import { checkPassword } from './sign-in.js';

/**
 * "Forgot your password": a one-time link, valid one hour on the marketplace clock. The link's
 * token is random (256 bits) and only its SHA-256 is stored. It is sent by email when the server
 * has a mail server (SMTP_URL), and printed by `cardbazaar user reset-link NAME` for the operator.
 */
export const RESET_LINK_LIFETIME_MS = 60 * 60 * 1000;

export async function createPasswordReset(
  ctx: DomainContext,
  idUser: number,
): Promise<{ token: string; expiresAt: number }> {
  const token = randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  const expiresAt = now + RESET_LINK_LIFETIME_MS;
  await ctx.database.transaction(async (tx) => {
    await deleteExpiredPasswordResets(tx, now);
    await insertPasswordReset(tx, {
      tokenHash: hashToken(token),
      idUser,
      createdAt: now,
      expiresAt,
      usedAt: null,
    });
  });
  return { token, expiresAt };
}

/** The path of a reset link on the website; the caller puts the site's address before it. */
export const resetLinkPath = (token: string) => `/password/reset/${token}`;

/** The account a "forgot password" form names, by username or email address (any case). */
export async function findAccountForReset(ctx: DomainContext, login: string): Promise<User | undefined> {
  const text = login.trim();
  if (text === '' || text.length > 254) return undefined;
  if (!text.includes('@')) return findUserByUsername(ctx.database.db, text);
  return ctx.database.db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', text.toLowerCase()))
    .orderBy('idUser')
    .executeTakeFirst();
}

function invalidLink(): ApiError {
  return new ApiError(
    400,
    'This password reset link is not valid: it was used already, has expired (links last an hour) or never existed. Ask for a new one.',
    {
      code: 'reset_link_invalid',
    },
  );
}

/** Whether a link can still be used (the page asks before showing the form). */
export async function checkPasswordReset(ctx: DomainContext, token: string): Promise<void> {
  const row = token.length <= 100 ? await findPasswordReset(ctx.database.db, hashToken(token)) : undefined;
  if (!row || row.usedAt !== null || row.expiresAt <= ctx.clock.now()) throw invalidLink();
}

/**
 * Uses the link once: sets the new password, ends every session of the user and every other link.
 * Answers the user, who may then sign in.
 */
export async function resetPassword(ctx: DomainContext, token: string, password: string): Promise<number> {
  const check = new FieldCheck();
  checkPassword(check, 'password', password);
  check.throwIfAny();
  await checkPasswordReset(ctx, token);
  const hash = await hashPassword(password);
  return ctx.database.transaction(async (tx) => {
    const tokenHash = hashToken(token);
    const row = await findPasswordReset(tx, tokenHash);
    if (!row || !(await claimPasswordReset(tx, tokenHash, ctx.clock.now()))) throw invalidLink();
    await setPasswordHash(tx, row.idUser, hash);
    await deleteSessionsOfUser(tx, row.idUser);
    await deletePasswordResetsOfUser(tx, row.idUser);
    return row.idUser;
  });
}
