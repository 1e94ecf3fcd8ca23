import type { FastifyRequest } from 'fastify';

/**
 * Pages of a list on the website: `?page=N` (1-based) of PAGE_SIZE rows. A page number that is
 * not one is page 1; past the end, the page is empty and links back. The pager keeps the rest of
 * the query (filters), so "next" is the same list further on.
 */
export const PAGE_SIZE = 25;

export interface WebPage {
  page: number;
  offset: number;
  limit: number;
}

export function webPage(request: FastifyRequest, size = PAGE_SIZE): WebPage {
  const raw = (request.query as Record<string, unknown> | undefined)?.page;
  const n = typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : 1;
  const page = Math.max(1, n);
  return { page, offset: (page - 1) * size, limit: size };
}

export interface Pager {
  page: number;
  pages: number;
  total: number;
  prev: string | null;
  next: string | null;
}

/** Links to the neighbouring pages of `path`, with the request's other query values kept. */
export function pager(request: FastifyRequest, p: WebPage, total: number): Pager {
  const path = request.url.split('?')[0] ?? '/';
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries((request.query as Record<string, unknown>) ?? {})) {
    if (k !== 'page' && typeof v === 'string' && v !== '') query.set(k, v);
  }
  const link = (n: number) => {
    const q = new URLSearchParams(query);
    q.set('page', String(n));
    return `${path}?${q}`;
  };
  const pages = Math.max(1, Math.ceil(total / p.limit));
  return {
    page: p.page,
    pages,
    total,
    prev: p.page > 1 ? link(Math.min(p.page - 1, pages)) : null,
    next: p.page < pages ? link(p.page + 1) : null,
  };
}

/** A path parameter that is an id; anything else is a page that does not exist. */
export function pathId(params: unknown, name: string): number | undefined {
  const v = (params as Record<string, string>)[name] ?? '';
  return /^\d{1,9}$/.test(v) && Number(v) > 0 ? Number(v) : undefined;
}
