import type { FastifyRequest } from 'fastify';
import { parseInteger } from '../http/fields.js';

/**
 * Pages of lists on the website: `?page=N` (1-based), 100 items a page like the API's path form.
 * `pager` builds the links a list's foot shows, keeping every other query parameter (the filters).
 */
export const PAGE_SIZE = 100;

export interface Pager {
  page: number;
  pages: number;
  total: number;
  /** Set when the API's cap cut the total (offers: 1,000). */
  capped: boolean;
  prev: string | undefined;
  next: string | undefined;
  first: number;
  last: number;
}

/** The page asked for; an unreadable or out-of-range number is a 400 naming `page`. */
export function pageNumber(request: FastifyRequest): number {
  const raw = (request.query as Record<string, unknown>).page;
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (typeof v !== 'string' || v.trim() === '') return 1;
  return parseInteger(v, 'page', { min: 1, max: 100_000 });
}

export const windowOf = (page: number, size = PAGE_SIZE) => ({ offset: (page - 1) * size, limit: size });

export function pager(
  request: FastifyRequest,
  page: number,
  total: number,
  { capped = false, path, size = PAGE_SIZE }: { capped?: boolean; path?: string; size?: number } = {},
): Pager {
  const pages = Math.max(1, Math.ceil(total / size));
  const [own, search = ''] = request.url.split('?');
  path ??= own;
  const link = (n: number) => {
    const q = new URLSearchParams(search);
    if (n === 1) q.delete('page');
    else q.set('page', String(n));
    const s = q.toString();
    return s ? `${path}?${s}` : (path ?? '/');
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
