import { badRequest, notFound } from '../errors.js';
import { formatTimestamp } from '../format.js';
import { findUserByUsername } from '../store/users.js';
import type { Database } from '../store/db.js';
import {
  listAllRequestLog,
  appsInRequestLog,
  findRequestLogRow,
  insertRequestLogRows,
  listRequestLog,
  type NewRequestLogRow,
  pruneRequestLog,
  type RequestLogFilter,
  type RequestLogListRow,
  type RequestLogRow,
} from '../store/request-log.js';
import type { DomainContext } from './context.js';

/** How much of a failed request's and answer's body is kept. */
export const BODY_HEAD_BYTES = 4096;

/** How often the buffered rows are written, at the latest. */
const FLUSH_INTERVAL_MS = 1000;
/** A buffer this long is written at once instead of waiting for the timer. */
const FLUSH_AT = 2000;
/**
 * Rows held while the database does not answer; beyond, new rows are dropped (and counted in the
 * log): the request log is a debugging aid and must never take the server's memory with it.
 */
const MAX_BUFFERED = 20_000;
/** Users whose prune bound is remembered; beyond, the memory starts again (a full prune each). */
const MAX_PRUNE_BOUNDS = 10_000;

/**
 * Writes request log rows off the request path: an answer only appends its row to a buffer, and the
 * buffer is written in one transaction per second (or sooner when it is long), followed by one prune
 * per user it touched so each keeps at most `rowsPerUser` rows. Rows a batch would prune at once are
 * never written: a user sending thousands of requests a second costs `rowsPerUser` inserts a second,
 * not thousands. Writing is best effort: a batch the database refuses is logged and dropped.
 */
export class RequestLogRecorder {
  private buffer: NewRequestLogRow[] = [];
  private writing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private scheduled = false;
  /** Per user, where this process's last prune stopped (see `pruneRequestLog`), and how many. */
  private readonly prunes = new Map<number, { below: number; count: number }>();
  private dropped = 0;

  constructor(
    private readonly database: Database,
    readonly rowsPerUser: number,
    private readonly onError: (err: unknown, dropped: number) => void = () => {},
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  add(row: NewRequestLogRow): void {
    if (this.buffer.length >= MAX_BUFFERED) {
      this.dropped++;
      return;
    }
    this.buffer.push(row);
    if (this.buffer.length >= FLUSH_AT && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  /** Writes what is buffered (and waits for any write under way). Tests call it to see their rows. */
  flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.buffer;
    if (batch.length === 0) return this.writing;
    this.buffer = [];
    // One write at a time, in order, so ids grow with the time requests were answered.
    this.writing = this.writing.then(() => this.write(batch));
    return this.writing;
  }

  private async write(batch: NewRequestLogRow[]): Promise<void> {
    const keep = this.rowsPerUser;
    const perUser = new Map<number, number>();
    const kept: NewRequestLogRow[] = [];
    // Newest first, so the rows beyond the bound are the oldest of the batch.
    for (let i = batch.length - 1; i >= 0; i--) {
      const row = batch[i]!;
      const n = perUser.get(row.idUser) ?? 0;
      if (n >= keep) continue;
      perUser.set(row.idUser, n + 1);
      kept.push(row);
    }
    kept.reverse();
    try {
      await this.database.transaction(async (tx) => {
        await insertRequestLogRows(tx, kept);
        for (const idUser of perUser.keys()) {
          // Every 64th prune of a user walks the whole range, for rows an out-of-order commit or
          // another instance left below the bound.
          const count = (this.prunes.get(idUser)?.count ?? 0) + 1;
          const from = count % 64 === 0 ? 0 : (this.prunes.get(idUser)?.below ?? 0);
          const below = await pruneRequestLog(tx, idUser, keep, from);
          if (this.prunes.size >= MAX_PRUNE_BOUNDS && !this.prunes.has(idUser)) this.prunes.clear();
          this.prunes.set(idUser, { below: Math.max(below, from), count });
        }
      });
    } catch (err) {
      this.onError(err, batch.length);
    }
    if (this.dropped > 0) {
      this.onError(new Error('the request log buffer was full'), this.dropped);
      this.dropped = 0;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

/** `401`, `4xx`, `ok` (below 400), `failed` (400 and above), or nothing. */
export function parseStatusFilter(text: string | undefined): RequestLogFilter['status'] {
  const s = (text ?? '').trim().toLowerCase();
  if (s === '' || s === 'all') return undefined;
  if (s === 'ok') return { min: 0, max: 399 };
  if (s === 'failed') return { min: 400, max: 999 };
  if (/^[1-5]xx$/.test(s)) {
    const c = Number(s[0]) * 100;
    return { min: c, max: c + 99 };
  }
  if (/^[1-5]\d\d$/.test(s)) return { min: Number(s), max: Number(s) };
  throw badRequest('status must be a status code (401), a class (4xx), ok or failed.', {
    field: 'status',
    code: 'invalid_status_filter',
  });
}

export interface RequestLogQuery {
  status?: string;
  path?: string;
  idApp?: string;
  page?: number;
}

export const REQUESTS_PER_PAGE = 50;

export interface RequestLogPage {
  rows: RequestLogListRow[];
  total: number;
  page: number;
  pages: number;
  apps: Array<{ idApp: number; name: string | null }>;
}

/** The apps that appear in the user's request log, for the app filter and the App column. */
export async function requestLogApps(ctx: DomainContext, idUser: number): Promise<RequestLogPage['apps']> {
  return appsInRequestLog(ctx.database.db, idUser);
}

/** A page of the user's own requests, newest first, filtered by status, path and app. */
export async function listRequests(
  ctx: DomainContext,
  idUser: number,
  query: RequestLogQuery,
): Promise<RequestLogPage> {
  const filter: RequestLogFilter = { status: parseStatusFilter(query.status) };
  const path = (query.path ?? '').trim();
  if (path.length > 200)
    throw badRequest('path is at most 200 characters.', { field: 'path', code: 'too_long' });
  // A request path holds no control characters (and PostgreSQL takes no NUL in a parameter).
  // eslint-disable-next-line no-control-regex -- these are exactly the characters to refuse
  if (/[\u0000-\u001f\u007f]/.test(path)) {
    throw badRequest('path holds a control character.', { field: 'path', code: 'invalid_path_filter' });
  }
  if (path) filter.path = path;
  if (query.idApp !== undefined && query.idApp !== '') {
    if (!/^\d{1,9}$/.test(query.idApp)) {
      throw badRequest('app must be an app id.', { field: 'idApp', code: 'invalid_app_filter' });
    }
    filter.idApp = Number(query.idApp);
  }
  const page = Math.max(1, Math.min(1_000_000, Math.floor(query.page ?? 1) || 1));
  const db = ctx.database.db;
  const [{ rows, total }, apps] = await Promise.all([
    listRequestLog(db, idUser, filter, (page - 1) * REQUESTS_PER_PAGE, REQUESTS_PER_PAGE),
    appsInRequestLog(db, idUser),
  ]);
  return { rows, total, page, pages: Math.max(1, Math.ceil(total / REQUESTS_PER_PAGE)), apps };
}

/** One of the user's own requests in full; anyone else's is 404, like one that does not exist. */
export async function getRequest(
  ctx: DomainContext,
  idUser: number,
  idRequest: number,
): Promise<RequestLogRow> {
  const row =
    Number.isSafeInteger(idRequest) && idRequest > 0
      ? await findRequestLogRow(ctx.database.db, idUser, idRequest)
      : undefined;
  if (!row)
    throw notFound(`There is no request ${idRequest} in your request log.`, {
      reason: 'unknown_request',
      params: { id: idRequest },
    });
  return row;
}

/** A row of the request log as the control API answers it: the list's columns, the time in ISO 8601. */
export type RequestLogView = Omit<RequestLogListRow, 'time'> & { time: string };

export interface AllRequestsQuery {
  /** A username: only this user's requests. */
  user?: string;
  status?: string;
  path?: string;
  limit?: string | number;
  start?: string | number;
}

function bounded(
  raw: string | number | undefined,
  field: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw badRequest(`${field} is a whole number from ${min} to ${max}.`, { field });
  }
  return n;
}

/**
 * Sandbox: the request log of every user (or one), newest first, written up to the last answer
 * (the rows this process still buffers are written first), for `GET /_cardbazaar/requests`.
 */
export async function readRequestLog(
  ctx: DomainContext & { requestLog?: RequestLogRecorder },
  query: AllRequestsQuery,
): Promise<RequestLogView[]> {
  const limit = bounded(query.limit, 'limit', REQUESTS_PER_PAGE, 1, 1000);
  const start = bounded(query.start, 'start', 0, 0, 1_000_000_000);
  const filter: RequestLogFilter = { status: parseStatusFilter(query.status) };
  const path = (query.path ?? '').trim();
  if (path.length > 200) throw badRequest('path is at most 200 characters.', { field: 'path' });
  // eslint-disable-next-line no-control-regex -- these are exactly the characters to refuse
  if (/[\u0000-\u001f\u007f]/.test(path))
    throw badRequest('path holds a control character.', { field: 'path' });
  if (path) filter.path = path;
  let idUser: number | undefined;
  if (query.user !== undefined && query.user !== '') {
    const user = await findUserByUsername(ctx.database.db, query.user);
    if (!user) throw badRequest(`There is no user "${query.user}".`, { field: 'user' });
    idUser = user.idUser;
  }
  await ctx.requestLog?.flush();
  const rows = await listAllRequestLog(ctx.database.db, idUser, filter, start, limit);
  return rows.map((r) => ({ ...r, time: formatTimestamp(r.time) }));
}
