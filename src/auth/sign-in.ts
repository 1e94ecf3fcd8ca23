import type { DomainContext } from '../domain/context.js';
import { MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH, hashPassword, verifyPassword } from './passwords.js';
import { FieldCheck } from '../domain/validation.js';
import { ApiError, notFound } from '../errors.js';
import { signInAddressKey, signInUserKey } from '../limits/attempts.js';
import type { LimitStore } from '../limits/store.js';
import type { User } from '../store/schema.js';
import { findUserById, findUserByUsername, setPasswordHash } from '../store/users.js';
import { deletePasswordResetsOfUser } from '../store/password-resets.js';
import { deleteSessionsOfUser } from '../store/web-sessions.js';

export interface SignInLimits {
  limits: LimitStore;
  perUsername: number;
  perAddress: number;
  windowMs: number;
}

/** The sign-in limits as the settings give them (`SIGNIN_ATTEMPTS_PER_*`, `SIGNIN_WINDOW`). */
export function signInLimitsOf(services: {
  limits: LimitStore;
  config: { signInAttemptsPerUsername: number; signInAttemptsPerAddress: number; signInWindowMs: number };
}): SignInLimits {
  return {
    limits: services.limits,
    perUsername: services.config.signInAttemptsPerUsername,
    perAddress: services.config.signInAttemptsPerAddress,
    windowMs: services.config.signInWindowMs,
  };
}

/**
 * Checks a username and password (the website's sign-in form). Every attempt counts against the
 * username and the client address in the shared limit store (so the limits hold across instances
 * with Redis); a successful one is taken back from both, so only failures use up the allowance.
 * Beyond the limit the answer is 429 with `Retry-After`, before the password is even checked.
 * A wrong password and an unknown username get the same 401, after the same work.
 */
export async function signIn(
  ctx: DomainContext,
  limits: SignInLimits,
  input: { username: string; password: string; ip: string },
): Promise<User> {
  const username = input.username.trim();
  const userKey = signInUserKey(username);
  const addressKey = signInAddressKey(input.ip);
  const attempt = await limits.limits.attempt(
    [
      { key: userKey, max: limits.perUsername },
      { key: addressKey, max: limits.perAddress },
    ],
    limits.windowMs,
  );
  if (!attempt.allowed) {
    const seconds = Math.max(1, Math.ceil(attempt.retryAfterMs / 1000));
    throw new ApiError(429, `Too many failed sign-ins. Try again in ${seconds} seconds.`, {
      code: 'sign_in_limited',
      headers: { 'Retry-After': String(seconds) },
    });
  }
  const user =
    username.length <= 40 && input.password.length <= MAX_PASSWORD_LENGTH
      ? await findUserByUsername(ctx.database.db, username)
      : undefined;
  const ok = await verifyPassword(input.password.slice(0, MAX_PASSWORD_LENGTH), user?.passwordHash);
  if (!user || !ok) {
    throw new ApiError(401, 'Wrong username or password.', { code: 'wrong_credentials', field: 'password' });
  }
  await limits.limits.forgetAttempt(userKey, true);
  await limits.limits.forgetAttempt(addressKey);
  return user;
}

/** The rule a new password follows (registration, reset, `cardbazaar user password`). */
export function checkPassword(check: FieldCheck, field: string, password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    check.add(field, 'password_too_short', `A password has at least ${MIN_PASSWORD_LENGTH} characters.`, {
      min: MIN_PASSWORD_LENGTH,
    });
  } else if (password.length > MAX_PASSWORD_LENGTH) {
    check.add(field, 'password_too_long', `A password has at most ${MAX_PASSWORD_LENGTH} characters.`, {
      max: MAX_PASSWORD_LENGTH,
    });
  }
}

/**
 * Gives a user a new password and signs them out everywhere (a password is changed because the old
 * one may be known to someone else); unused reset links stop working too.
 */
export async function setPassword(ctx: DomainContext, idUser: number, password: string): Promise<void> {
  const check = new FieldCheck();
  checkPassword(check, 'password', password);
  check.throwIfAny();
  const hash = await hashPassword(password);
  await ctx.database.transaction(async (tx) => {
    if (!(await findUserById(tx, idUser))) throw notFound(`User ${idUser} does not exist.`);
    await setPasswordHash(tx, idUser, hash);
    await deleteSessionsOfUser(tx, idUser);
    await deletePasswordResetsOfUser(tx, idUser);
  });
}

/**
 * A signed-in user changes their own password (the profile page): the current one proves it is
 * them and not someone at an unattended browser. Then as `setPassword`: every session ends.
 */
export async function changePassword(
  ctx: DomainContext,
  limits: SignInLimits,
  idUser: number,
  input: { currentPassword: string; newPassword: string },
): Promise<void> {
  const user = await findUserById(ctx.database.db, idUser);
  if (!user) throw notFound(`User ${idUser} does not exist.`);
  // Guessing the current password from a borrowed session counts like guessing at the sign-in form.
  const userKey = signInUserKey(user.username);
  const attempt = await limits.limits.attempt([{ key: userKey, max: limits.perUsername }], limits.windowMs);
  if (!attempt.allowed) {
    const seconds = Math.max(1, Math.ceil(attempt.retryAfterMs / 1000));
    throw new ApiError(429, `Too many wrong passwords. Try again in ${seconds} seconds.`, {
      code: 'sign_in_limited',
      headers: { 'Retry-After': String(seconds) },
    });
  }
  const ok =
    input.currentPassword.length <= MAX_PASSWORD_LENGTH &&
    (await verifyPassword(input.currentPassword, user.passwordHash));
  const check = new FieldCheck();
  if (!ok) check.add('currentPassword', 'current_password_wrong', 'This is not your current password.');
  checkPassword(check, 'newPassword', input.newPassword);
  if (ok) await limits.limits.forgetAttempt(userKey, true);
  check.throwIfAny();
  await setPassword(ctx, idUser, input.newPassword);
}
