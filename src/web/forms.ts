import type { FastifyReply, FastifyRequest } from 'fastify';
import { InvalidFields } from '../domain/validation.js';
import { ApiError, FieldErrors } from '../errors.js';
import { headerLocation } from '../http/location.js';
import type { Key, Params, Translator } from './i18n/index.js';

/**
 * Form handling for every page (post/redirect/get):
 *  - `fields(request, names)` reads the posted values, always strings ('' for a missing one);
 *  - `formErrors(t, err)` turns what the domain threw into messages by field (`_form` for the
 *    form as a whole), in the page's language;
 *  - a handler re-renders its form with status 400, what was typed and those messages, or, on
 *    success, `redirectWithFlash` to the next page with a one-time message.
 * Forms and their rules sit beside the domain rule they feed (`FieldCheck` in `domain/validation.ts`).
 */

export type Values = Record<string, string>;
export type Errors = Record<string, string>;

export const FLASH_COOKIE = 'cardbazaar_flash';

/** Posted values of the named fields: the first when repeated, '' when missing. */
export function fields<N extends string>(request: FastifyRequest, names: readonly N[]): Record<N, string> {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const out = {} as Record<N, string>;
  for (const name of names) {
    const v = body[name];
    const first = Array.isArray(v) ? v[0] : v;
    out[name] = typeof first === 'string' ? first : '';
  }
  return out;
}

/**
 * The text of an error the domain threw, in the page's language: its `reason` (or its API `code`)
 * looked up as `errors.<code>`, the domain's English message where the dictionaries have none.
 */
export function errorText(t: Translator, err: ApiError): string {
  return (
    (err.reason && t.maybe(`errors.${err.reason}`, err.params)) ||
    (err.code && t.maybe(`errors.${err.code}`, err.params)) ||
    err.message
  );
}

/** The text of one refused item of a bulk write (an article, a cart line, a wants list). */
export function failureText(
  t: Translator,
  f: { error: string; reason?: string; params?: Params; cause?: ApiError },
): string {
  if (f.cause) return errorText(t, f.cause);
  return (f.reason && t.maybe(`errors.${f.reason}`, f.params)) || f.error;
}

/**
 * Messages by field for an error the domain threw: each problem of an `InvalidFields` or a
 * `FieldErrors`, the field of an `ApiError` that names one, else the whole form's. Texts come from
 * the dictionary (`errors.<code>`), the domain's English message where it has none. Anything else
 * is rethrown (a fault, not bad input: the error page says so).
 */
export function formErrors(t: Translator, err: unknown, formFields: readonly string[] = []): Errors {
  const fieldOf = (field: string | undefined) =>
    field && (formFields.length === 0 || formFields.includes(field)) ? field : '_form';
  if (err instanceof InvalidFields) {
    const out: Errors = {};
    for (const [field, p] of Object.entries(err.problems)) {
      out[fieldOf(field)] ??= t.maybe(`errors.${p.code}`, p.params) ?? p.message;
    }
    return out;
  }
  if (err instanceof FieldErrors) {
    const out: Errors = {};
    for (const e of err.errors) out[fieldOf(e.field)] ??= errorText(t, e);
    return out;
  }
  if (err instanceof ApiError && err.status < 500) return { [fieldOf(err.field)]: errorText(t, err) };
  throw err;
}

interface Flash {
  key: Key;
  params?: Params;
}

/** 303 to `location` with a message the next page shows once (a signed cookie, read and cleared). */
export function redirectWithFlash(
  reply: FastifyReply,
  location: string,
  key: Key,
  params?: Params,
): FastifyReply {
  const flash: Flash = params ? { key, params } : { key };
  reply.setCookie(FLASH_COOKIE, JSON.stringify(flash), {
    ...reply.server.webCookieOptions,
    signed: true,
    maxAge: 60,
  });
  return reply.code(303).header('Location', headerLocation(location)).send();
}

/** The flash message of the previous action, if any, translated; cleared as it is read. */
export function takeFlash(request: FastifyRequest, reply: FastifyReply): string | undefined {
  const raw = request.cookies[FLASH_COOKIE];
  if (raw === undefined) return undefined;
  reply.clearCookie(FLASH_COOKIE, { path: '/' });
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || unsigned.value === null) return undefined;
  try {
    const flash = JSON.parse(unsigned.value) as Flash;
    return request.t.maybe(flash.key, flash.params);
  } catch {
    return undefined;
  }
}

/**
 * A path on this site to go to after signing in (`?next=`), or '/profile'. Only a local path is
 * taken (`/x`, not `//evil.example` or `/\evil.example`), so the sign-in page redirects nowhere else.
 */
export function localPath(next: unknown, fallback = '/profile'): string {
  if (typeof next !== 'string' || next.length > 2000) return fallback;
  if (!/^\/(?![/\\])/.test(next) || /[\p{Cc}\\]/u.test(next)) return fallback;
  return next;
}
