import { badRequest, notFound } from '../errors.js';
import { loadArticleViews } from '../store/articles.js';
import { findProduct } from '../store/catalog.js';
import { countReservedStock, reservedCounts, reservedStockPage } from '../store/reservations.js';
import { countStock, findStockArticle, type StockFilter, stockPage } from '../store/stock.js';
import type { DomainContext } from './context.js';
import type { StockArticle } from './stock.js';
import { notInStock } from './stock-rules.js';

/** Reading a seller's own stock: listings (paginated), one article, search, carts. */

export interface StockSlice {
  /** Articles matching, on every page. */
  total: number;
  articles: StockArticle[];
}

async function withReserved(ctx: DomainContext, views: Awaited<ReturnType<typeof stockPage>>) {
  const reserved = await reservedCounts(
    ctx.database.db,
    views.map((v) => v.idArticle),
  );
  return views.map((view) => ({ view, reserved: reserved.get(view.idArticle) ?? 0 }));
}

export async function listStock(
  ctx: DomainContext,
  idUser: number,
  filter: StockFilter,
  offset: number,
  limit: number,
): Promise<StockSlice> {
  const db = ctx.database.db;
  const total = await countStock(db, idUser, filter);
  if (total === 0 || offset >= total) return { total, articles: [] };
  return { total, articles: await withReserved(ctx, await stockPage(db, idUser, filter, offset, limit)) };
}

/** One of the caller's articles; anyone else's id is "invalid" (400), as on the real API. */
export async function getStockArticle(ctx: DomainContext, idUser: number, idArticle: number) {
  const view = await findStockArticle(ctx.database.db, idUser, idArticle);
  if (!view) throw notInStock(idArticle);
  const [article] = await withReserved(ctx, [view]);
  return article!;
}

export async function listStockOfProduct(
  ctx: DomainContext,
  idUser: number,
  idProduct: number,
  offset: number,
  limit: number,
): Promise<StockSlice> {
  if (!(await findProduct(ctx.database.db, idProduct))) {
    throw notFound(`Product ${idProduct} does not exist.`);
  }
  return listStock(ctx, idUser, { idProduct }, offset, limit);
}

export async function searchStock(
  ctx: DomainContext,
  idUser: number,
  name: string,
  idGame: number,
  offset: number,
  limit: number,
): Promise<StockSlice> {
  const search = name.trim();
  if (search === '')
    throw badRequest('Give a name (or part of one) to search for.', { field: 'name', reason: 'required' });
  return listStock(ctx, idUser, { name: search, idGame }, offset, limit);
}

/** The caller's articles with copies in other users' carts, with how many copies are reserved. */
export async function listReservedStock(
  ctx: DomainContext,
  idUser: number,
  offset: number,
  limit: number,
): Promise<StockSlice> {
  const db = ctx.database.db;
  const total = await countReservedStock(db, idUser);
  if (total === 0 || offset >= total) return { total, articles: [] };
  const page = await reservedStockPage(db, idUser, offset, limit);
  const views = new Map(
    (
      await loadArticleViews(
        db,
        page.map((p) => p.idArticle),
      )
    ).map((v) => [v.idArticle, v]),
  );
  return {
    total,
    articles: page.flatMap((p) => {
      const view = views.get(p.idArticle);
      return view ? [{ view, reserved: p.reserved }] : [];
    }),
  };
}
