import { hashPassword } from '../auth/passwords.js';
import { checkPassword } from '../auth/sign-in.js';
import type { User } from '../store/schema.js';
import type { DomainContext } from './context.js';
import { SELLER_ACTIVATION } from './seller-activation.js';
import { COUNTRY_CODES, createUser, normalizeCountry, USERNAME_PATTERN, USERNAME_RULE } from './users.js';
import { FieldCheck } from './validation.js';

/**
 * Joining on the website: a private account under the same username rules as `user create`, with a
 * password, an email address and a country. Such an account may buy at once and must go through the
 * seller activation before it sells (`sellerActivation` 0).
 */
export interface RegistrationForm {
  username: string;
  email: string;
  password: string;
  country: string;
}

export const REGISTRATION_FIELDS = ['username', 'email', 'password', 'country'] as const;
export const MAX_EMAIL_LENGTH = 254;

export function checkEmail(check: FieldCheck, field: string, email: string): void {
  if (email.length > MAX_EMAIL_LENGTH || !/^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>".]+$/.test(email)) {
    check.add(field, 'invalid_email', 'Give an email address such as name@example.org.');
  }
}

export async function registerAccount(
  ctx: DomainContext,
  form: RegistrationForm,
  idDisplayLanguage: number,
): Promise<User> {
  const check = new FieldCheck();
  const username = form.username.trim();
  if (!USERNAME_PATTERN.test(username)) check.add('username', 'invalid_username', USERNAME_RULE);
  const email = form.email.trim();
  checkEmail(check, 'email', email);
  checkPassword(check, 'password', form.password);
  const country = form.country.trim().toUpperCase();
  if (!COUNTRY_CODES.has(country === 'DE' ? 'D' : country)) {
    check.add('country', 'invalid_country', 'Choose your country.');
  }
  check.throwIfAny();
  const passwordHash = await hashPassword(form.password);
  return createUser(ctx, {
    username,
    country: normalizeCountry(country),
    accountType: 'private',
    email,
    passwordHash,
    idDisplayLanguage,
    sellerActivation: SELLER_ACTIVATION.none,
  });
}
