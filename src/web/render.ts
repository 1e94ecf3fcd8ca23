import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formatDate, formatDateTime, formatMoney } from '../format.js';
import type { SessionUser } from '../auth/sessions.js';
import { isoCountryCode } from '../domain/countries.js';
import { utf8Bytes } from '../http/utf8.js';
import type { Key, Lang, Params, Translator } from './i18n/index.js';
import { takeFlash } from './forms.js';
import { imagePath, outsideImage } from './images.js';

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

/**
 * Eta's own escaping, with its pattern made once rather than at every output: a page of 100 offers
 * escapes a few thousand values, nearly all of them with nothing to escape.
 */
const SPECIAL = /[&<>"']/;
const SPECIALS = /[&<>"']/g;
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const entity = (c: string) => ENTITIES[c]!;

function escapeHtml(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return SPECIAL.test(text) ? text.replace(SPECIALS, entity) : text;
}

const eta = new Eta({ views: VIEWS_DIR, cache: true, autoTrim: [false, 'nl'], escapeFunction: escapeHtml });

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
  /** The path of this page on this site (the language links and `next` use it). */
  path: string;
  money(cents: number, currency?: string): string;
  dateTime(ms: number): string;
  date(ms: number): string;
  /** A country of the API (`D`, `FR`) by its name in the page's language ("Allemagne"). */
  country(code: string | null | undefined): string;
  /**
   * A product's picture as an `<img>` (HTML, its alt text escaped): a thumbnail in lists, `large`
   * on the product page (docs/using-the-website.md, "Card pictures").
   */
  picture(product: PictureOf, alt: string, size?: 'thumb' | 'large'): string;
  /**
   * Keeps a repeated part of the page (an offer's row, `capture`d) out of the template's text and
   * returns a placeholder for it; `render` puts the part back as bytes. A page's text is otherwise
   * one string of 100 KB (the product page's 100 offers), which V8 allocates whole when it is
   * encoded: as a large object, fresh memory every time, whose page faults alone cost more than
   * rendering the page's offers (docs/performance.md, "the page's one big string").
   */
  aside(html: string): string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** `IMAGE_HOSTS`: outside hosts the pages show card pictures from (absent outside the website). */
    imageHosts?: readonly string[];
  }
}

/** What a picture needs of a product (a catalog `Product` or an article's `ProductFacts`). */
export interface PictureOf {
  idProduct: number;
  idGame: number;
  image: string;
  expansionAbbreviation?: string | null;
}

/** Card proportions (63 × 88 mm): a 40 px thumbnail, a 220 px picture on the product page. */
const PICTURE_SIZES = { thumb: [40, 56], large: [220, 307] } as const;

export function picture(
  product: PictureOf,
  alt: string,
  size: 'thumb' | 'large' = 'thumb',
  imageHosts: readonly string[] = [],
): string {
  const [width, height] = PICTURE_SIZES[size];
  const src = escapeHtml(
    outsideImage(product.image, imageHosts) ?? imagePath(product, product.expansionAbbreviation ?? undefined),
  );
  const lazy = size === 'thumb' ? ' loading="lazy"' : '';
  return `<img class="${size}" src="${src}" alt="${escapeHtml(alt)}" width="${width}" height="${height}"${lazy}>`;
}

/**
 * Each language's country names as Intl gave them, by the API's code: a page of 100 offers names a
 * seller's country on each, a few microseconds of ICU a time, nearly always the same few countries.
 * Bounded (codes come from stored data): cleared when full.
 */
const regionNames = new Map<Lang, { names: Intl.DisplayNames; known: Map<string, string> }>();
const MAX_COUNTRY_NAMES = 1_000;

/** The name of one of the API's country codes in `lang`; the code itself where none is known. */
export function countryName(code: string, lang: Lang): string {
  let region = regionNames.get(lang);
  if (!region) {
    region = { names: new Intl.DisplayNames([lang], { type: 'region', fallback: 'code' }), known: new Map() };
    regionNames.set(lang, region);
  }
  let name = region.known.get(code);
  if (name === undefined) {
    try {
      name = region.names.of(isoCountryCode(code)) ?? code;
    } catch {
      name = code;
    }
    if (region.known.size >= MAX_COUNTRY_NAMES) region.known.clear();
    region.known.set(code, name);
  }
  return name;
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
  const asides: string[] = [];
  const page: PageContext = {
    lang,
    t: request.t,
    user: request.user,
    unreadMessages: request.unreadMessages ?? 0,
    // The plain 404 page answers outside the website's plugin, where neither cookies nor CSRF exist;
    // an error page for a request refused before the plugin read its cookies (a moved or old host,
    // an Expect header) has no CSRF secret to make a token from either.
    csrf: typeof reply.generateCsrf === 'function' && request.cookies ? reply.generateCsrf() : '',
    flash: request.cookies ? takeFlash(request, reply) : undefined,
    // One leading slash whatever the request had: `//evil.example/x` (or `/\\evil.example`) as a link
    // would be protocol-relative, off this site.
    path: (request.url.split('?')[0] ?? '/').replace(/^[/\\]*/, '/'),
    money: (cents, currency) => formatMoney(cents, lang, currency),
    dateTime: (ms) => formatDateTime(ms, lang),
    date: (ms) => formatDate(ms, lang),
    country: (code) => (code ? countryName(code, lang) : ''),
    picture: (product, alt, size) => picture(product, alt, size, request.server.imageHosts),
    aside: (html) => `${ASIDE}${asides.push(html) - 1}\u0000`,
  };
  const html = eta.render(`./${view}`, { ...model, page });
  // Bytes, not the text: Fastify would measure a text's UTF-8 length, then encode it again.
  const body = asides.length === 0 ? utf8Bytes(html) : withAsides(html, asides);
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

/**
 * The placeholder of an aside: NUL, which no page's text has (escaped values could in principle, so
 * a token of this process follows, which no page ever shows), then the aside's number and NUL.
 */
const ASIDE_TOKEN = randomBytes(9).toString('base64url');
const ASIDE = `\u0000${ASIDE_TOKEN}:`;
const ASIDES = new RegExp(`\u0000${ASIDE_TOKEN}:(\\d+)\u0000`);
/** Characters encoded at a time: a two-byte string of them stays well below V8's large objects. */
const PIECE = 16_384;

/** The page's bytes: its text with each placeholder replaced by its aside, encoded a piece at a time. */
export function withAsides(html: string, asides: readonly string[]): Buffer {
  // Text, number, text, number, …, text: the text between the placeholders, and their numbers.
  const parts = html.split(ASIDES);
  const buffers: Buffer[] = [];
  let total = 0;
  let pending = '';
  const flush = () => {
    const bytes = utf8Bytes(pending);
    buffers.push(bytes);
    total += bytes.length;
    pending = '';
  };
  for (let k = 0; k < parts.length; k++) {
    let part = parts[k]!;
    if (k % 2 === 1) {
      // Each aside once and in order: a template that lost or repeated one is a bug, not a page.
      if (Number(part) !== (k - 1) / 2) throw new Error(`aside ${part} out of place`);
      part = asides[Number(part)]!;
    }
    if (pending.length > 0 && pending.length + part.length > PIECE) flush();
    pending += part;
  }
  if ((parts.length - 1) / 2 !== asides.length) throw new Error('an aside was not placed on the page');
  flush();
  return Buffer.concat(buffers, total);
}
