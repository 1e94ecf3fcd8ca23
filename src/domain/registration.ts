import { hashPassword } from '../auth/passwords.js';
import { ApiError } from '../errors.js';
import { REGISTRATION_GLOBAL_KEY, registrationAddressKey } from '../limits/attempts.js';
import type { LimitStore } from '../limits/store.js';
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

/** How many accounts may be created, per client address and on the whole site, in a window. */
export interface RegistrationLimits {
  limits: LimitStore;
  perAddress: number;
  global: number;
  windowMs: number;
}

/** The registration limits as the settings give them; none when LIMITS_ENABLED is false. */
export function registrationLimitsOf(services: {
  limits: LimitStore;
  config: {
    limitsEnabled: boolean;
    registrationsPerAddress: number;
    registrationsGlobal: number;
    registrationWindowMs: number;
  };
}): RegistrationLimits | undefined {
  const { config } = services;
  if (!config.limitsEnabled) return undefined;
  return {
    limits: services.limits,
    perAddress: config.registrationsPerAddress,
    global: config.registrationsGlobal,
    windowMs: config.registrationWindowMs,
  };
}

/**
 * Joins. A well-formed form counts against the client address's and the site's registration
 * limits (the shared limit store, so they hold across instances) before the password is hashed:
 * beyond either, 429 with `Retry-After` and nothing is hashed or written.
 */
export async function registerAccount(
  ctx: DomainContext,
  form: RegistrationForm,
  idDisplayLanguage: number,
  limit?: { limits: RegistrationLimits; ip: string },
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
  if (limit) {
    const { limits } = limit;
    const attempt = await limits.limits.attempt(
      [
        { key: registrationAddressKey(limit.ip), max: limits.perAddress },
        { key: REGISTRATION_GLOBAL_KEY, max: limits.global },
      ],
      limits.windowMs,
    );
    if (!attempt.allowed) {
      const seconds = Math.max(1, Math.ceil(attempt.retryAfterMs / 1000));
      const minutes = Math.ceil(seconds / 60);
      throw new ApiError(429, `Too many new accounts recently. Try again in ${minutes} minutes.`, {
        code: 'registration_limited',
        params: { minutes },
        headers: { 'Retry-After': String(seconds) },
      });
    }
  }
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
