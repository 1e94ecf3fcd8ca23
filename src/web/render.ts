import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formatDate, formatDateTime, formatMoney } from '../format.js';
import type { SessionUser } from '../auth/sessions.js';
import { isoCountryCode } from '../domain/countries.js';
import type { Key, Lang, Params, Translator } from './i18n/index.js';
import { takeFlash } from './forms.js';

/**
 * Pages are Eta templates (`src/web/views/*.eta`): Eta escapes every `<%= %>` output, so a username
 * or an app name with `<script>` in it is text; the few `<%~ %>` (raw) outputs are the layout's
 * body and texts the templates themselves built. A view renders only what its handler hands it
 * (`it`), plus what every page has (`it.page`: language, translator, formatters, the signed-in
 * user, the CSRF token, the one-time flash message). The folder is found from here whether this
 * runs from `src/` or `dist/` (both sit one level under the project).
 */
export const VIEWS_DIR = fileURLToPath(new URL('../../src/web/views/', import.meta.url));
export const ASSETS_DIR = fileURLToPath(new URL('../../src/web/assets/', import.meta.url));

const eta = new Eta({ views: VIEWS_DIR, cache: true, autoTrim: [false, 'nl'] });

/** What every page's template can use, as `it.page`. */
export interface PageContext {
  lang: Lang;
  t: Translator;
  user: SessionUser | undefined;
  /** The signed-in user's unread messages, for the header. */
  unreadMessages: number;
  /** The CSRF token every POST form carries as `_csrf`. */
  csrf: string;
  /** A one-time message from the previous action (post/redirect/get). */
  flash: string | undefined;
  /** The path of this page (the language links and `next` use it). */
  path: string;
  money(cents: number, currency?: string): string;
  dateTime(ms: number): string;
  date(ms: number): string;
  /** A country of the API (`D`, `FR`) by its name in the page's language ("Allemagne"). */
  country(code: string | null | undefined): string;
}

const regionNames = new Map<Lang, Intl.DisplayNames>();

/** The name of one of the API's country codes in `lang`; the code itself where none is known. */
export function countryName(code: string, lang: Lang): string {
  let names = regionNames.get(lang);
  if (!names)
    regionNames.set(lang, (names = new Intl.DisplayNames([lang], { type: 'region', fallback: 'code' })));
  try {
    return names.of(isoCountryCode(code)) ?? code;
  } catch {
    return code;
  }
}

export interface Page {
  /** The dictionary key of the page's title. */
  title: Key;
  titleParams?: Params;
}

/** Renders `views/<view>.eta` with the handler's model and the page context, and sends it. */
export function render(
  request: FastifyRequest,
  reply: FastifyReply,
  view: string,
  model: Page & Record<string, unknown>,
  status = 200,
): FastifyReply {
  const lang = request.lang;
  const page: PageContext = {
    lang,
    t: request.t,
    user: request.user,
    unreadMessages: request.unreadMessages ?? 0,
    // The plain 404 page answers outside the website's plugin, where neither cookies nor CSRF exist.
    csrf: typeof reply.generateCsrf === 'function' ? reply.generateCsrf() : '',
    flash: request.cookies ? takeFlash(request, reply) : undefined,
    path: request.url.split('?')[0] ?? '/',
    money: (cents, currency) => formatMoney(cents, lang, currency),
    dateTime: (ms) => formatDateTime(ms, lang),
    date: (ms) => formatDate(ms, lang),
    country: (code) => (code ? countryName(code, lang) : ''),
  };
  const html = eta.render(`./${view}`, { ...model, page });
  return reply.code(status).type('text/html; charset=utf-8').send(html);
}
