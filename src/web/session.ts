import { createHmac } from 'node:crypto';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { endSession, findSession, type SessionUser, startSession } from '../auth/sessions.js';
import type { Config } from '../config.js';
import { headerLocation } from '../http/location.js';
import { unreadMessageCount } from '../domain/messages.js';
import type { Services } from '../services.js';
import {
  isLang,
  type Lang,
  langFromAcceptLanguage,
  langOfDisplayLanguage,
  type Translator,
  translator,
} from './i18n/index.js';

/**
 * The website's session: the cookie holds a random id, signed (so a forged or altered cookie is
 * refused before the database is asked), HttpOnly (no script reads it), SameSite=Lax (other sites'
 * forms do not send it) and Secure whenever the public base URL is https. The row behind it is in
 * the database (`auth/sessions.ts`), so every instance shares it. These hooks run only on the
 * website's routes (`web/index.ts` is an encapsulated plugin): the API's paths parse no cookie.
 */
export const SESSION_COOKIE = 'cardbazaar_session';
/** The cookie holding the CSRF secret (`@fastify/csrf-protection`), signed like the session's. */
export const CSRF_COOKIE = 'cardbazaar_csrf';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user, when the session cookie names a live session. */
    user: SessionUser | undefined;
    /** The signed-in user's unread messages (the header shows them on every page). */
    unreadMessages: number;
    sessionId: string | undefined;
    /** The page's language: `?lang=`, else the user's display language, else Accept-Language. */
    lang: Lang;
    t: Translator;
  }
  interface FastifyInstance {
    webCookieOptions: CookieSerializeOptions;
  }
}

/** The key the website signs its cookies with, derived from the server key (benchmarks sign one too). */
export function websiteCookieSecret(serverKey: string): string {
  return createHmac('sha256', serverKey).update('cardbazaar website cookies').digest('base64url');
}

export function cookieOptions(config: Config): CookieSerializeOptions {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: config.publicBaseUrl?.startsWith('https://') ?? false,
  };
}

/** Every page: who is signed in, and in which language the page speaks. */
export function sessionHook(services: Services): onRequestAsyncHookHandler {
  return async (request) => {
    const raw = request.cookies[SESSION_COOKIE];
    if (raw !== undefined) {
      const unsigned = request.unsignCookie(raw);
      if (unsigned.valid && unsigned.value) {
        request.user = await findSession(services, unsigned.value);
        if (request.user) {
          request.sessionId = unsigned.value;
          request.unreadMessages = await unreadMessageCount(services, request.user.idUser);
        }
      }
    }
    const asked = (request.query as Record<string, unknown> | undefined)?.lang;
    request.lang = isLang(asked)
      ? asked
      : request.user
        ? langOfDisplayLanguage(request.user.idDisplayLanguage)
        : langFromAcceptLanguage(request.headers['accept-language']);
    request.t = translator(request.lang);
  };
}

/**
 * The route hook of every page with private data: no session, and the browser goes to the sign-in
 * page, which brings it back here afterwards (`next`).
 */
export const requireUser: onRequestAsyncHookHandler = async (request, reply) => {
  if (request.user) return;
  const next = request.method === 'GET' ? request.url : '/profile';
  const lang = (request.query as Record<string, unknown> | undefined)?.lang;
  const query = new URLSearchParams({ next });
  if (isLang(lang)) query.set('lang', lang);
  await reply
    .code(303)
    .header('Location', headerLocation(`/login?${query}`))
    .send();
};

/** Signs the browser in with a brand-new session id (any earlier one of this browser ends). */
export async function signInBrowser(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  idUser: number,
) {
  if (request.sessionId) await endSession(services, request.sessionId);
  const session = await startSession(services, idUser, services.config.sessionLifetimeMs);
  reply.setCookie(SESSION_COOKIE, session.id, {
    ...reply.server.webCookieOptions,
    signed: true,
    expires: new Date(Date.now() + services.config.sessionLifetimeMs),
  });
  renewCsrfSecret(request, reply);
}

export async function signOutBrowser(services: Services, request: FastifyRequest, reply: FastifyReply) {
  if (request.sessionId) await endSession(services, request.sessionId);
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
  renewCsrfSecret(request, reply);
}

/**
 * A new CSRF secret for the browser, whenever who is signed in changes (sign-in, sign-out, a
 * password change): a token read from a page before (by someone who had the browser then, or a
 * script on a page of that time) does not work for the next person or session.
 */
export function renewCsrfSecret(request: FastifyRequest, reply: FastifyReply): void {
  delete request.cookies[CSRF_COOKIE];
  // Finds no secret now, so makes a new one and sets its cookie.
  reply.generateCsrf();
}
