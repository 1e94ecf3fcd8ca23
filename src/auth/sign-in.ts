import type { DomainContext } from '../domain/context.js';
import { MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH, hashPassword, verifyPassword } from './passwords.js';
import { FieldCheck } from '../domain/validation.js';
import { ApiError, notFound } from '../errors.js';
import type { Config } from '../config.js';
import { signInAddressKey, signInPairKey, signInUserKey } from '../limits/attempts.js';
import type { LimitStore } from '../limits/store.js';
import type { User } from '../store/schema.js';
import { findUserById, findUserByUsername, setPasswordHash } from '../store/users.js';
import { deletePasswordResetsOfUser } from '../store/password-resets.js';
import { deleteSessionsOfUser } from '../store/web-sessions.js';

export interface SignInLimits {
  limits: LimitStore;
  /** Failures for one username from one address before that pair is refused (429). */
  perPair: number;
  /** Failures from one address, whatever the usernames, before it is refused. */
  perAddress: number;
  /** Failures for one username from every address before each attempt on it waits. */
  slowdownAfter: number;
  /** The longest such wait (0: no waiting). */
  maxDelayMs: number;
  windowMs: number;
  /** Waits (tests pass one that records the delays). */
  sleep?: (ms: number) => Promise<void>;
}

/** The sign-in limits as the settings give them (`SIGNIN_*`). */
export function signInLimitsOf(services: {
  limits: LimitStore;
  config: Pick<
    Config,
    | 'signInAttemptsPerPair'
    | 'signInAttemptsPerAddress'
    | 'signInSlowdownAfter'
    | 'signInMaxDelayMs'
    | 'signInWindowMs'
  >;
}): SignInLimits {
  return {
    limits: services.limits,
    perPair: services.config.signInAttemptsPerPair,
    perAddress: services.config.signInAttemptsPerAddress,
    slowdownAfter: services.config.signInSlowdownAfter,
    maxDelayMs: services.config.signInMaxDelayMs,
    windowMs: services.config.signInWindowMs,
  };
}

const FIRST_DELAY_MS = 1000;

/**
 * How long an attempt on a username waits once it has `failures` recent failures from all
 * addresses: nothing up to `slowdownAfter`, then one second, doubling with every further failure,
 * up to `maxDelayMs`.
 */
export function signInDelay(limits: Pick<SignInLimits, 'slowdownAfter' | 'maxDelayMs'>, failures: number) {
  if (failures < limits.slowdownAfter || limits.maxDelayMs <= 0) return 0;
  return Math.min(FIRST_DELAY_MS * 2 ** Math.min(failures - limits.slowdownAfter, 30), limits.maxDelayMs);
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function limited(retryAfterMs: number, text: string): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ApiError(429, `${text} Try again in ${seconds} seconds.`, {
    code: 'sign_in_limited',
    headers: { 'Retry-After': String(seconds) },
  });
}

/**
 * Checks a username and password (the website's sign-in form), following OWASP's authentication
 * guidance so that nobody can lock an owner out:
 *  - failures of one username from one address lock that pair only (429 with `Retry-After`, before
 *    the password is even checked); the same username from another address is not refused;
 *  - one address is refused after its failures for any usernames reach the per-address limit;
 *  - a username failing from many addresses is slowed down, never refused: past `slowdownAfter`
 *    failures each attempt on it waits a growing delay before its password is checked, the right
 *    password included, which then signs in.
 * The counters live in the shared limit store (so they hold across instances with Redis). Every
 * attempt counts against its pair and address first (parallel attempts cannot slip past), and a
 * successful one is taken back. A wrong password and an unknown username get the same 401, after
 * the same work.
 */
export async function signIn(
  ctx: DomainContext,
  limits: SignInLimits,
  input: { username: string; password: string; ip: string },
): Promise<User> {
  const username = input.username.trim();
  const pairKey = signInPairKey(username, input.ip);
  const addressKey = signInAddressKey(input.ip);
  const userKey = signInUserKey(username);
  const attempt = await limits.limits.attempt(
    [
      { key: pairKey, max: limits.perPair },
      { key: addressKey, max: limits.perAddress },
    ],
    limits.windowMs,
  );
  if (!attempt.allowed) throw limited(attempt.retryAfterMs, 'Too many failed sign-ins.');
  const delay = signInDelay(limits, await limits.limits.countAttempts(userKey));
  if (delay > 0) await (limits.sleep ?? realSleep)(delay);
  const user =
    username.length <= 40 && input.password.length <= MAX_PASSWORD_LENGTH
      ? await findUserByUsername(ctx.database.db, username)
      : undefined;
  const ok = await verifyPassword(input.password.slice(0, MAX_PASSWORD_LENGTH), user?.passwordHash);
  if (!user || !ok) {
    await limits.limits.attempt([{ key: userKey, max: Number.MAX_SAFE_INTEGER }], limits.windowMs);
    throw new ApiError(401, 'Wrong username or password.', { code: 'wrong_credentials', field: 'password' });
  }
  await limits.limits.forgetAttempt(pairKey, true);
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
  input: { currentPassword: string; newPassword: string; ip: string },
): Promise<void> {
  const user = await findUserById(ctx.database.db, idUser);
  if (!user) throw notFound(`User ${idUser} does not exist.`);
  // Guessing the current password from a borrowed session counts like guessing at the sign-in form,
  // against the same username-and-address pair.
  const pairKey = signInPairKey(user.username, input.ip);
  const attempt = await limits.limits.attempt([{ key: pairKey, max: limits.perPair }], limits.windowMs);
  if (!attempt.allowed) throw limited(attempt.retryAfterMs, 'Too many wrong passwords.');
  const ok =
    input.currentPassword.length <= MAX_PASSWORD_LENGTH &&
    (await verifyPassword(input.currentPassword, user.passwordHash));
  const check = new FieldCheck();
  if (!ok) check.add('currentPassword', 'current_password_wrong', 'This is not your current password.');
  checkPassword(check, 'newPassword', input.newPassword);
  if (ok) await limits.limits.forgetAttempt(pairKey, true);
  check.throwIfAny();
  await setPassword(ctx, idUser, input.newPassword);
}
