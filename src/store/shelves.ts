import { sql } from 'kysely';
import type { Executor } from './db.js';
import { offers } from './offers.js';

/**
 * The home page's shelves (issue 35): what is moving on the marketplace. Each is one bounded
 * statement over an index the table has anyway (articles and orders by id, price guides whole but
 * small next to the articles), and answers product ids with the price to show.
 */
export interface ShelfItem {
  idProduct: number;
  /** Cents: the offer's price, the sold copy's price, or the trend. */
  price: number;
  /** The 30-day average, for a trend change. */
  before?: number;
}

/** The newest offers, one per product, newest first. */
export async function newestListings(db: Executor, limit: number): Promise<ShelfItem[]> {
  const rows = await offers(db)
    .select(['a.idProduct', 'a.price'])
    .orderBy('a.idArticle', 'desc')
    .limit(limit * 4)
    .execute();
  return onePerProduct(rows, limit);
}

/** Copies sold most recently (orders paid or further on), one per product, newest first. */
export async function recentlySold(db: Executor, limit: number): Promise<ShelfItem[]> {
  const rows = await db
    .selectFrom('orderArticles as l')
    .innerJoin('orders as o', 'o.idOrder', 'l.idOrder')
    .where('o.state', 'in', ['paid', 'sent', 'received'])
    .select(['l.idProduct', 'l.price'])
    .orderBy('l.idOrder', 'desc')
    .limit(limit * 4)
    .execute();
  return onePerProduct(rows, limit);
}

/**
 * The price guide's biggest moves: the trend against the 30-day average, largest relative change
 * first (in either direction), cards whose average is at least 0.10 (a few cents moving is noise).
 */
export async function trendMovers(db: Executor, limit: number): Promise<ShelfItem[]> {
  const rows = await db
    .selectFrom('priceGuides')
    .select(['idProduct', 'trend', 'avg30'])
    .where('trend', 'is not', null)
    .where('avg30', '>=', 10)
    .orderBy(sql`abs(${sql.ref('trend')} - ${sql.ref('avg30')}) * 1000 / ${sql.ref('avg30')}`, 'desc')
    .orderBy('idProduct')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ idProduct: r.idProduct, price: Number(r.trend), before: Number(r.avg30) }));
}

function onePerProduct(rows: { idProduct: number; price: number }[], limit: number): ShelfItem[] {
  const seen = new Set<number>();
  const out: ShelfItem[] = [];
  for (const r of rows) {
    if (seen.has(r.idProduct)) continue;
    seen.add(r.idProduct);
    out.push({ idProduct: r.idProduct, price: Number(r.price) });
    if (out.length === limit) break;
  }
  return out;
}
