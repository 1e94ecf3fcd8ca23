import {
  createPasswordReset,
  findAccountForReset,
  RESET_LINK_LIFETIME_MS,
  resetLinkPath,
} from '../auth/password-reset.js';
import { badRequest } from '../errors.js';
import type { LimitStore } from '../limits/store.js';
import type { Mailer } from '../mail.js';
import { translator, langOfDisplayLanguage } from '../web/i18n/index.js';
import type { DomainContext } from './context.js';

/**
 * "Forgot my login data" (`POST /account/logindata` and the website's "forgot your password"
 * form): mails a user a password reset link, or their username, in the account's own language.
 * The answer never says whether an account was found, so neither path tells anyone which
 * usernames or addresses exist; and one account gets at most three such emails an hour, so neither
 * can flood a mailbox. (The texts are the website's dictionaries: an upward import, as the mail is
 * the website's.)
 */
export type LoginDataKind = 'password' | 'username';

export interface LoginDataContext extends DomainContext {
  mailer: Mailer | undefined;
  limits: LimitStore;
}

export interface LoginDataResult {
  /** Whether this server sends email at all (SMTP_URL); the answer is the same for any account. */
  mailing: boolean;
}

/**
 * `login` names the account: a username or an email address for a password reset (as the form
 * takes either), an email address for the username. `siteBase` is the website's address, put
 * before the reset link.
 */
export async function sendLoginData(
  ctx: LoginDataContext,
  kind: LoginDataKind,
  login: string,
  siteBase: string,
): Promise<LoginDataResult> {
  const text = login.trim();
  if (text === '') {
    throw badRequest(kind === 'username' ? 'The email address is missing.' : 'The username is missing.', {
      field: kind === 'username' ? 'email' : 'username',
    });
  }
  if (kind === 'username' && !text.includes('@')) {
    throw badRequest('The username is sent to an email address: give the account’s email.', {
      field: 'email',
    });
  }
  const user = await findAccountForReset(ctx, text);
  if (!user || !ctx.mailer) return { mailing: ctx.mailer !== undefined };
  const allowed = await ctx.limits.attempt([{ key: `reset:${user.idUser}`, max: 3 }], RESET_LINK_LIFETIME_MS);
  if (!allowed.allowed) return { mailing: true };
  const t = translator(langOfDisplayLanguage(user.idDisplayLanguage));
  if (kind === 'password') {
    const { token } = await createPasswordReset(ctx, user.idUser);
    await ctx.mailer.send({
      to: user.email,
      subject: t('mail.resetSubject'),
      text: t('mail.resetBody', { username: user.username, link: `${siteBase}${resetLinkPath(token)}` }),
    });
  } else {
    await ctx.mailer.send({
      to: user.email,
      subject: t('mail.usernameSubject'),
      text: t('mail.usernameBody', { username: user.username, link: `${siteBase}/login` }),
    });
  }
  return { mailing: true };
}
