import { createHmac, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { ApiError, notFound } from '../errors.js';
import { mapArticle } from '../mappers/article.js';
import type { Executor, Tx } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import {
  claimExportBuild,
  deleteExpiredExports,
  deleteExportChunks,
  exportChunkPage,
  findExport,
  finishExport,
  insertExport,
  insertExportChunk,
  liveExports,
  releaseStaleBuilds,
} from '../store/exports.js';
import type { Export, ExportType, User } from '../store/schema.js';
import { articlesInCartOf, reservedCounts } from '../store/reservations.js';
import { stockPage } from '../store/stock.js';
import { findUserById } from '../store/users.js';
import type { DomainContext } from './context.js';
import { type AfterCommit, EVENTS } from './events.js';

/**
 * Asynchronous exports (reference §1.3, §1.6): of one's own stock, or of another user's public
 * offers. A request is a row (`pending`) and an outbox event in one transaction; the event's handler
 * claims it and starts the build of the file (a JSON document `{"article": [Article…]}`, gzipped,
 * stored in pieces), which marks the request `finished`. Requests are listed, and their files
 * served, for 24 hours.
 */

export const EXPORT_LIFETIME_MS = 24 * 3600 * 1000;
/** Requests one user may have listed at a time (the "limitations" the real API mentions). */
export const MAX_LIVE_EXPORTS = 20;
const CHUNK_BYTES = 256 * 1024;
const PAGE = 1000;

export interface ExportRequest {
  type: ExportType;
  /** Whose articles: the requester's own for `stock`, another user's for `userOffers`. */
  resourceId: number;
  idGame?: number;
}

/**
 * Records a request, or hands back the same request still pending (asking twice does not build
 * twice). `created` tells which.
 */
export async function requestExport(
  ctx: DomainContext,
  idUser: number,
  request: ExportRequest,
): Promise<{ export: Export; created: boolean }> {
  return ctx.database.transaction(async (tx) => {
    const now = ctx.clock.now();
    await deleteExpiredExports(tx, now);
    const live = await liveExports(tx, idUser, now);
    const same = live.find(
      (e) =>
        e.status === 'pending' &&
        e.type === request.type &&
        e.resourceId === request.resourceId &&
        e.idGame === (request.idGame ?? null),
    );
    if (same) return { export: same, created: false };
    if (live.length >= MAX_LIVE_EXPORTS) {
      throw new ApiError(
        429,
        `You have ${live.length} export requests from the last 24 hours; at most ${MAX_LIVE_EXPORTS} are kept. Use one of them or wait until the oldest expires.`,
      );
    }
    const row = await insertExport(tx, {
      idUser,
      type: request.type,
      resourceId: request.resourceId,
      idGame: request.idGame ?? null,
      salt: randomBytes(18).toString('base64url'),
      startedAt: now,
      expiresAt: now + EXPORT_LIFETIME_MS,
    });
    await appendEvent(tx, EVENTS.exportRequested, { idRequest: row.idRequest }, now);
    return { export: row, created: true };
  });
}

/** The caller's requests of one type from the last 24 hours. */
export async function listExports(ctx: DomainContext, idUser: number, type: ExportType): Promise<Export[]> {
  const list = await liveExports(ctx.database.db, idUser, ctx.clock.now(), { type });
  await reviveStale(ctx, list);
  return list;
}

/** One of the caller's stock export requests; anyone else's, or an expired one, is not found. */
export async function getExport(
  ctx: DomainContext,
  idUser: number,
  type: ExportType,
  idRequest: number,
): Promise<Export> {
  const e = await findExport(ctx.database.db, idRequest);
  if (!e || e.idUser !== idUser || e.type !== type || e.expiresAt <= ctx.clock.now()) {
    throw notFound(`You have no ${type} export request ${idRequest} from the last 24 hours.`);
  }
  await reviveStale(ctx, [e]);
  return e;
}

/** The caller's latest request of another user's offers. */
export async function latestUserOffersExport(
  ctx: DomainContext,
  idUser: number,
  target: User,
): Promise<Export> {
  const live = await liveExports(ctx.database.db, idUser, ctx.clock.now(), {
    type: 'userOffers',
    resourceId: target.idUser,
  });
  const latest = live[live.length - 1];
  if (!latest) {
    throw notFound(`You requested no export of ${target.username}'s offers in the last 24 hours.`);
  }
  await reviveStale(ctx, [latest]);
  return latest;
}

/** A build not finished this long after its claim is presumed dead (its process stopped). */
export const STALE_BUILD_MS = 10 * 60 * 1000;

/** Builds under way in this process, so tests and a clean shutdown can wait for them. */
const running = new Set<Promise<void>>();
export async function exportBuildsSettled(): Promise<void> {
  while (running.size > 0) await Promise.allSettled([...running]);
}

/**
 * The outbox handler: claims the request, and once that has committed starts its build. The build
 * runs outside the delivering transaction, a page of articles per query, so exporting a stock of
 * 100,000 articles never holds the database (on SQLite, the one connection) for the seconds it
 * takes.
 */
export async function startExportBuild(
  ctx: DomainContext,
  tx: Tx,
  idRequest: number,
): Promise<AfterCommit | undefined> {
  const now = ctx.clock.now();
  if (!(await claimExportBuild(tx, idRequest, now, now - STALE_BUILD_MS))) return undefined;
  return () => {
    const build = buildExportFile(ctx, idRequest, now).catch(() => {
      // Left pending with its claim; once the claim is stale the request is built again.
    });
    running.add(build);
    void build.finally(() => running.delete(build));
  };
}

async function buildExportFile(ctx: DomainContext, idRequest: number, claim: number): Promise<void> {
  const db = ctx.database.db;
  const e = await findExport(db, idRequest);
  if (e?.status !== 'pending' || e.buildingSince !== claim || e.expiresAt <= ctx.clock.now()) return;
  await deleteExportChunks(db, idRequest); // what an abandoned build left
  let articleCount = 0;
  let size = 0;
  let seq = 0;
  const source = exportDocument(db, e, () => {
    articleCount++;
  });
  await pipeline(Readable.from(source), createGzip(), async (gzipped: AsyncIterable<Buffer>) => {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      const data = Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      size += data.length;
      await insertExportChunk(db, idRequest, seq++, data);
    };
    for await (const chunk of gzipped) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= CHUNK_BYTES) await flush();
    }
    if (pendingBytes > 0) await flush();
  });
  // The event in the same transaction as the status: `export.ready` exactly when it is finished.
  await ctx.database.transaction(async (tx) => {
    const now = ctx.clock.now();
    if (await finishExport(tx, idRequest, claim, now, articleCount, size)) {
      await appendEvent(tx, EVENTS.exportFinished, { idRequest }, now);
    }
  });
}

/** Requests whose build died with its process are queued again when someone looks at them. */
async function reviveStale(ctx: DomainContext, exports: Export[]): Promise<void> {
  const now = ctx.clock.now();
  const stale = exports.filter(
    (e) => e.status === 'pending' && e.buildingSince !== null && e.buildingSince < now - STALE_BUILD_MS,
  );
  if (stale.length === 0) return;
  await ctx.database.transaction(async (tx) => {
    const released = await releaseStaleBuilds(
      tx,
      stale.map((e) => e.idRequest),
      now - STALE_BUILD_MS,
    );
    for (const idRequest of released) await appendEvent(tx, EVENTS.exportRequested, { idRequest }, now);
  });
}

/**
 * The file's JSON, a page of articles at a time: own stock as GET /stock shows it; another user's
 * offers (copies available now, none while they are on vacation) as the marketplace shows them.
 */
async function* exportDocument(db: Executor, e: Export, counted: () => void): AsyncGenerator<string> {
  yield '{"article":[';
  const owner = await findUserById(db, e.resourceId);
  const offers = e.type === 'userOffers';
  if (owner && !(offers && owner.onVacation)) {
    const filter = { idGame: e.idGame ?? undefined, available: offers || undefined };
    let afterId = 0;
    let first = true;
    for (;;) {
      const page = await stockPage(db, e.resourceId, { ...filter, afterId }, 0, PAGE);
      if (page.length === 0) break;
      const ids = page.map((a) => a.idArticle);
      const reserved = offers ? new Map<number, number>() : await reservedCounts(db, ids);
      const mine = offers ? await articlesInCartOf(db, e.idUser, ids) : new Set<number>();
      const parts = page.map((view) => {
        counted();
        const article = offers
          ? mapArticle(view, {
              context: 'marketplace',
              seller: owner,
              inShoppingCart: mine.has(view.idArticle),
            })
          : mapArticle(view, { context: 'stock', inShoppingCart: (reserved.get(view.idArticle) ?? 0) > 0 });
        return JSON.stringify(article);
      });
      yield (first ? '' : ',') + parts.join(',');
      first = false;
      if (page.length < PAGE) break;
      afterId = page[page.length - 1]!.idArticle;
    }
  }
  yield ']}';
}

/** A finished request's file, gzipped, in its stored pieces, read a few at a time. */
export async function* exportFileChunks(ctx: DomainContext, idRequest: number): AsyncGenerator<Buffer> {
  let seq = 0;
  for (;;) {
    const page = await exportChunkPage(ctx.database.db, idRequest, seq, 8);
    for (const c of page) yield c.data;
    if (page.length < 8) return;
    seq = page[page.length - 1]!.seq + 1;
  }
}

/** The request behind a download link, if the link can still be used. */
export async function downloadableExport(ctx: DomainContext, idRequest: number): Promise<Export | undefined> {
  return findExport(ctx.database.db, idRequest);
}

/**
 * The download link's secret: derived from the request's random salt and the server key, so it is
 * never stored (a database dump hands out no link) and cannot be guessed from the request's id.
 */
export function exportToken(serverKey: string, e: Export): string {
  return createHmac('sha256', serverKey).update(`export:${e.idRequest}:${e.salt}`).digest('base64url');
}

/**
 * The download link outside a request (in an `export.ready` event): on the public base address
 * when one is configured, else on the address the server listens on.
 */
export function exportUrl(
  config: { publicBaseUrl: string | undefined; host: string; port: number },
  serverKey: string,
  e: Export,
): string | null {
  if (e.status !== 'finished') return null;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const base = config.publicBaseUrl ?? `http://${host}:${config.port}`;
  return `${base}/ws/v2.0/exports/files/${e.idRequest}/${exportToken(serverKey, e)}`;
}
