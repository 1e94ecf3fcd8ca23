import type { FastifyRequest } from 'fastify';
import { badRequest } from '../errors.js';
import { parseInteger } from '../http/fields.js';

/**
 * Pages of lists on the website: `?page=N` (1-based) of a page size the list chooses, and the
 * pager at the list's foot (`views/_pager.eta`), whose links keep every other query value (the
 * filters), so "next" is the same list further on.
 */

/** The catalog, offers and balance lists: pages of 100, like the API's own pages. */
export const CATALOG_PAGE_SIZE = 100;
/** Orders, stock, messages and wants lists: 25 rows, short enough to act on each. */
export const LIST_PAGE_SIZE = 25;

export interface PageWindow {
  page: number;
  offset: number;
  limit: number;
}

/**
 * The page asked for, one rule for every list: none (or empty) is page 1; anything but a number
 * from 1 to 100,000 is a 400 naming `page` in the reader's language, shown beside the filters of
 * a list that has them, else as the error page (the pager only ever links to real pages, so such
 * a `?page=` was typed or cut, and saying so beats showing page 1 as if it were what was asked).
 * A page past the end shows no rows and links back to the last.
 */
export function pageOf(request: FastifyRequest, size: number): PageWindow {
  const raw = (request.query as Record<string, unknown> | undefined)?.page;
  const v = Array.isArray(raw) ? raw[0] : raw;
  let page = 1;
  if (typeof v === 'string' && v.trim() !== '') {
    try {
      page = parseInteger(v, 'page', { min: 1, max: MAX_PAGE });
    } catch {
      throw badRequest(`"page" must be a page number from 1 to ${MAX_PAGE} (got "${v}").`, {
        field: 'page',
        reason: 'page_invalid',
        params: { value: v, max: MAX_PAGE },
      });
    }
  }
  return firstPage(size, page);
}

const MAX_PAGE = 100_000;

/** A window of the list (page 1 unless said), for a list whose `?page=` was refused. */
export function firstPage(size: number, page = 1): PageWindow {
  return { page, offset: (page - 1) * size, limit: size };
}

export interface Pager {
  page: number;
  pages: number;
  total: number;
  /** Set when the API's cap cut the total (offers: 1,000). */
  capped: boolean;
  prev: string | undefined;
  next: string | undefined;
  /** The rows shown, counted from 1 (0 and 0 for none). */
  first: number;
  last: number;
}

/**
 * The links of a list's foot. `path` is the list's own address when the request is another one
 * (a form that re-renders the list after an error).
 */
export function pager(
  request: FastifyRequest,
  window: PageWindow,
  total: number,
  { capped = false, path }: { capped?: boolean; path?: string } = {},
): Pager {
  const { page, limit: size } = window;
  const pages = Math.max(1, Math.ceil(total / size));
  const [own, search = ''] = request.url.split('?');
  const base = path ?? own ?? '/';
  // An empty filter means "any": it is left out of the links.
  const kept = new URLSearchParams();
  for (const [k, v] of new URLSearchParams(search)) if (k !== 'page' && v !== '') kept.append(k, v);
  const link = (n: number) => {
    const q = new URLSearchParams(kept);
    if (n > 1) q.set('page', String(n));
    const s = q.toString();
    return s ? `${base}?${s}` : base;
  };
  return {
    page,
    pages,
    total,
    capped,
    prev: page > 1 ? link(Math.min(page - 1, pages)) : undefined,
    next: page < pages ? link(page + 1) : undefined,
    first: total === 0 ? 0 : Math.min((page - 1) * size + 1, total),
    last: Math.min(page * size, total),
  };
}

/** The query string of this request (for a form that must come back to the same filtered list). */
export function queryOf(request: FastifyRequest): string {
  const i = request.url.indexOf('?');
  return i === -1 ? '' : request.url.slice(i);
}

/** A path parameter that is an id; anything else is a page that does not exist. */
export function pathId(params: unknown, name: string): number | undefined {
  const v = (params as Record<string, string>)[name] ?? '';
  return /^\d{1,9}$/.test(v) && Number(v) > 0 ? Number(v) : undefined;
}
