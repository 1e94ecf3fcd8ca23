import type { Config } from '../config.js';
import { badRequest } from '../errors.js';
import { MAX_START, parseInteger } from './fields.js';
import { publicOrigin, rawPathAndQuery } from './origin.js';
import type { ApiRequest, ApiResponse } from './routing.js';
import type { Tree } from './xml.js';

/**
 * Pagination as every collection of the API does it (reference §1.10):
 *  - query form `?start=0&maxResults=100`: `start` is 0-based;
 *  - path form `/orders/seller/paid/101`, `/stock/101`: 1-based, a fixed page;
 *  - 200 for a whole collection, 206 + `Content-Range: first-last/total` (0-based, inclusive, like
 *    byte ranges) for a page of a larger one, 204 with no body for an empty one;
 *  - 307 to the paginated URL when an unpaginated request would return more than the page limit:
 *    the `Location` is absolute, and the client must sign it anew.
 */
export interface PageRequest {
  /** 0-based index of the first entity. */
  offset: number;
  /** Page size: entities to return at most. */
  limit: number;
  /** Whether the client asked for a page (if not, more than `limit` results means 307). */
  paginated: boolean;
  /** Which form to redirect to when an unpaginated request is too large. */
  form: 'query' | 'path';
}

export function pageFromQuery(
  query: ApiRequest['query'],
  { maxLimit = 100, defaultLimit = maxLimit }: { maxLimit?: number; defaultLimit?: number } = {},
): PageRequest {
  const start = single(query.start, 'start');
  const max = single(query.maxResults, 'maxResults');
  if (start === undefined && max === undefined) {
    return { offset: 0, limit: maxLimit, paginated: false, form: 'query' };
  }
  const offset = start === undefined ? 0 : parseInteger(start, 'start', { min: 0, max: MAX_START });
  const limit = max === undefined ? defaultLimit : parseInteger(max, 'maxResults', { min: 1 });
  if (limit > maxLimit) {
    throw badRequest(`maxResults must be at most ${maxLimit} for this resource.`, { field: 'maxResults' });
  }
  return { offset, limit, paginated: true, form: 'query' };
}

/** `/:start` (1-based); an absent start is the unpaginated request. */
export function pageFromPath(start: string | undefined, pageSize = 100): PageRequest {
  if (start === undefined || start === '')
    return { offset: 0, limit: pageSize, paginated: false, form: 'path' };
  const n = parseInteger(start, 'start', { min: 1, max: MAX_START });
  return { offset: n - 1, limit: pageSize, paginated: true, form: 'path' };
}

/**
 * Collections with both forms (`/stock`, `/orders/:actor/:state`): the path's `/:start`, else the
 * query's `start`/`maxResults`, else unpaginated in the path form. When the path gives the start,
 * `start` and `maxResults` in the query are ignored: a widely used Python client sends
 * `/stock/1?start=1&maxResults=100` on every read, and the live API serves it the path's page.
 */
export function pageFromPathOrQuery(start: string | undefined, query: ApiRequest['query']): PageRequest {
  if (start !== undefined && start !== '') return pageFromPath(start);
  const queried = query.start !== undefined || query.maxResults !== undefined;
  return queried ? pageFromQuery(query) : pageFromPath(start);
}

function single(v: string | string[] | undefined, name: string): string | undefined {
  if (Array.isArray(v)) throw badRequest(`"${name}" may appear only once.`, { field: name });
  return v === '' ? undefined : v;
}

export interface PagedOptions {
  /** The total as written in Content-Range when a cap cut it (`1000+`). */
  totalLabel?: string;
}

/**
 * The response for one page of a collection: `count` entities were loaded at `page.offset`, out of
 * `total`. `body` renders them (called only when there is something to render).
 */
export function pagedResponse(
  req: ApiRequest,
  config: Config,
  page: PageRequest,
  total: number,
  count: number,
  body: () => Tree,
  options: PagedOptions = {},
): ApiResponse {
  if (!page.paginated && total > page.limit) {
    return { status: 307, body: null, headers: { Location: paginatedLocation(req, config, page) } };
  }
  if (total === 0 || count === 0) return { status: 204, body: null };
  const first = page.offset;
  const last = page.offset + count - 1;
  const whole = first === 0 && last + 1 >= total && options.totalLabel === undefined;
  const headers = { 'Content-Range': `${first}-${last}/${options.totalLabel ?? total}` };
  return { status: whole ? 200 : 206, body: body(), headers };
}

/** The URL the client should have asked for: the first page, in the resource's own form. */
export function paginatedLocation(req: ApiRequest, config: Config, page: PageRequest): string {
  const { origin, basePath } = publicOrigin(req.raw, config);
  const { path, query } = rawPathAndQuery(req.raw);
  if (page.form === 'path') {
    return `${origin}${basePath}${path.replace(/\/+$/, '')}/1${query ? `?${query}` : ''}`;
  }
  const kept = query.split('&').filter((p) => p !== '' && !/^(start|maxResults)(=|$)/.test(p));
  kept.push('start=0', `maxResults=${page.limit}`);
  return `${origin}${basePath}${path}?${kept.join('&')}`;
}
