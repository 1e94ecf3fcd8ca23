import { type Insertable, type Selectable, sql } from 'kysely';
import type { Executor } from './db.js';
import { preparedBySize } from './prepared.js';
import type { RequestLogTable } from './schema.js';

export type RequestLogRow = Selectable<RequestLogTable>;
export type NewRequestLogRow = Insertable<RequestLogTable>;

/** Rows per insert statement: 15 columns each stays far below both dialects' parameter limits. */
const INSERT_CHUNK = 200;

const COLUMNS = [
  'idUser',
  'idApp',
  'time',
  'method',
  'path',
  'query',
  'status',
  'durationMicros',
  'internalErrorCode',
  'origin',
  'authorization',
  'requestBody',
  'responseBody',
  'baseString',
  'signedOver',
] as const satisfies ReadonlyArray<keyof NewRequestLogRow>;

const rowValues = (r: NewRequestLogRow) => COLUMNS.map((c) => r[c] ?? null);

/**
 * Every request leaves a row, so the insert is built and compiled once per number of rows rather
 * than per batch (Kysely's parsing of 200 rows of 15 values cost more than the statement).
 */
const insertRows = preparedBySize(
  (db: Executor, rows: readonly NewRequestLogRow[]) =>
    sql`insert into "requestLog" (${sql.join(COLUMNS.map((c) => sql.ref(c)))})
      values ${sql.join(rows.map((r) => sql`(${sql.join(rowValues(r))})`))}`.compile(db),
  (rows) => rows.length,
  (rows) => rows.flatMap(rowValues),
);

export async function insertRequestLogRows(db: Executor, rows: readonly NewRequestLogRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) await insertRows(db, rows.slice(i, i + INSERT_CHUNK));
}

/**
 * Keeps a user's newest `keep` rows and deletes the rest, walking the user's part of the
 * `(idUser, idRequest)` index. `from` (the bound of this process's previous prune for the user)
 * narrows the delete to rows written since: the range below it holds only rows already deleted,
 * which PostgreSQL keeps in the index until a vacuum and a delete over them would visit again at
 * every prune. Returns the new bound (0 when the user has no more than `keep` rows).
 */
export async function pruneRequestLog(db: Executor, idUser: number, keep: number, from = 0): Promise<number> {
  const bound = await db
    .selectFrom('requestLog')
    .select('idRequest')
    .where('idUser', '=', idUser)
    .orderBy('idRequest', 'desc')
    .limit(1)
    .offset(keep - 1)
    .executeTakeFirst();
  if (!bound) return 0;
  let del = db.deleteFrom('requestLog').where('idUser', '=', idUser).where('idRequest', '<', bound.idRequest);
  if (from > 0) del = del.where('idRequest', '>=', from);
  await del.execute();
  return bound.idRequest;
}

export interface RequestLogFilter {
  /** Exact status (`401`), a class (`4xx`), `ok` (below 400) or `failed` (400 and above). */
  status?: { min: number; max: number };
  /** Part of the path, any case. */
  path?: string;
  idApp?: number;
}

/** Columns of the list: the bodies stay in the database until a row is opened. */
const LIST_COLUMNS = [
  'idRequest',
  'idUser',
  'idApp',
  'time',
  'method',
  'path',
  'query',
  'status',
  'durationMicros',
  'internalErrorCode',
  'signedOver',
] as const;

export type RequestLogListRow = Pick<RequestLogRow, (typeof LIST_COLUMNS)[number]>;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function filtered(db: Executor, idUser: number, filter: RequestLogFilter) {
  let q = db.selectFrom('requestLog').where('idUser', '=', idUser);
  if (filter.status) {
    q = q.where('status', '>=', filter.status.min).where('status', '<=', filter.status.max);
  }
  if (filter.path) {
    // lower() on both sides: SQLite's LIKE ignores ASCII case and PostgreSQL's does not.
    const pattern = `%${escapeLike(filter.path.toLowerCase())}%`;
    q = q.where(sql<boolean>`lower(${sql.ref('path')}) like ${pattern} escape '\\'`);
  }
  if (filter.idApp !== undefined) q = q.where('idApp', '=', filter.idApp);
  return q;
}

/** A page of a user's requests, newest first, and how many match in all. */
export async function listRequestLog(
  db: Executor,
  idUser: number,
  filter: RequestLogFilter,
  offset: number,
  limit: number,
): Promise<{ rows: RequestLogListRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    filtered(db, idUser, filter)
      .select(LIST_COLUMNS)
      .orderBy('idRequest', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    filtered(db, idUser, filter)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** One of the user's rows, or undefined (another user's row reads as missing). */
export async function findRequestLogRow(
  db: Executor,
  idUser: number,
  idRequest: number,
): Promise<RequestLogRow | undefined> {
  return db
    .selectFrom('requestLog')
    .selectAll()
    .where('idUser', '=', idUser)
    .where('idRequest', '=', idRequest)
    .executeTakeFirst();
}

/** The user's rows after `afterId`, oldest first (what `requests tail` prints next). */
export async function requestLogAfter(
  db: Executor,
  idUser: number,
  afterId: number,
  limit: number,
): Promise<RequestLogListRow[]> {
  return db
    .selectFrom('requestLog')
    .select(LIST_COLUMNS)
    .where('idUser', '=', idUser)
    .where('idRequest', '>', afterId)
    .orderBy('idRequest')
    .limit(limit)
    .execute();
}

/** The user's newest `limit` rows, oldest first. */
export async function latestRequestLog(
  db: Executor,
  idUser: number,
  limit: number,
): Promise<RequestLogListRow[]> {
  const rows = await db
    .selectFrom('requestLog')
    .select(LIST_COLUMNS)
    .where('idUser', '=', idUser)
    .orderBy('idRequest', 'desc')
    .limit(limit)
    .execute();
  return rows.reverse();
}

/** The apps that appear in a user's log, for the filter (the log holds at most a few thousand rows). */
export async function appsInRequestLog(
  db: Executor,
  idUser: number,
): Promise<Array<{ idApp: number; name: string | null }>> {
  const rows = await db
    .selectFrom('requestLog')
    .leftJoin('apps', 'apps.idApp', 'requestLog.idApp')
    .select(['requestLog.idApp', 'apps.name'])
    .distinct()
    .where('requestLog.idUser', '=', idUser)
    .where('requestLog.idApp', 'is not', null)
    .orderBy('requestLog.idApp')
    .execute();
  return rows.map((r) => ({ idApp: r.idApp!, name: r.name }));
}

/**
 * Every user's requests, newest first, or one user's (the sandbox control API's
 * `GET /_cardbazaar/requests`, where a test reads what its client sent).
 */
export async function listAllRequestLog(
  db: Executor,
  idUser: number | undefined,
  filter: RequestLogFilter,
  offset: number,
  limit: number,
): Promise<RequestLogListRow[]> {
  let q = db.selectFrom('requestLog');
  if (idUser !== undefined) q = q.where('idUser', '=', idUser);
  if (filter.status) {
    q = q.where('status', '>=', filter.status.min).where('status', '<=', filter.status.max);
  }
  if (filter.path) {
    const pattern = `%${escapeLike(filter.path.toLowerCase())}%`;
    q = q.where(sql<boolean>`lower(${sql.ref('path')}) like ${pattern} escape '\\'`);
  }
  return q.select(LIST_COLUMNS).orderBy('idRequest', 'desc').limit(limit).offset(offset).execute();
}
