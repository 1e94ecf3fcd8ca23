import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { forbidden, notFound } from '../errors.js';
import { formatCents, formatTimestamp } from '../format.js';
import type { AppKind } from '../store/schema.js';
import { findUserById } from '../store/users.js';
import type { DomainContext } from './context.js';

/**
 * The catalog and the price guide as files (`GET /productlist`, `GET /priceguide`): a CSV with the
 * real files' column headers, gzipped; the route sends it base64-encoded. Rows are read in pages of
 * the product id, so a large catalog is never one query result in memory.
 */
const gzipAsync = promisify(gzip);
const PAGE = 5000;

/** The columns of the product list CSV, as GET /productlist writes it and the importer reads it. */
export const PRODUCT_LIST_HEADER = [
  'idProduct',
  'Name',
  'Category ID',
  'Category',
  'Expansion ID',
  'Metacard ID',
  'Date Added',
];

const PRICE_GUIDE_HEADER = [
  'idProduct',
  'Avg. Sell Price',
  'Low Price',
  'Trend Price',
  'German Pro Low',
  'Suggested Price',
  'Foil Sell',
  'Foil Low',
  'Foil Trend',
  'Low Price Ex+',
  'AVG1',
  'AVG7',
  'AVG30',
  'Foil AVG1',
  'Foil AVG7',
  'Foil AVG30',
];

/** Every field quoted, quotes doubled, as the real files write them. */
function csvLine(fields: readonly (string | number | null)[]): string {
  return `${fields.map((f) => `"${f === null ? '' : String(f).replace(/"/g, '""')}"`).join(',')}\n`;
}

/** `2007-01-01 00:00:00`, in the marketplace's time zone. */
function csvDate(ms: number | null): string | null {
  if (ms === null) return null;
  return formatTimestamp(ms).slice(0, 19).replace('T', ' ');
}

const price = (cents: number | null) => (cents === null ? null : formatCents(cents));

export async function productListFile(ctx: DomainContext, idGame: number | undefined): Promise<Buffer> {
  const db = ctx.database.db;
  if (idGame !== undefined) await requireGame(ctx, idGame);
  const parts: string[] = [csvLine(PRODUCT_LIST_HEADER)];
  let after = 0;
  for (;;) {
    let q = db
      .selectFrom('products')
      .select([
        'idProduct',
        'enName',
        'idCategory',
        'categoryName',
        'idExpansion',
        'idMetaproduct',
        'dateAdded',
      ])
      .where('idProduct', '>', after)
      .orderBy('idProduct')
      .limit(PAGE);
    if (idGame !== undefined) q = q.where('idGame', '=', idGame);
    const rows = await q.execute();
    for (const p of rows) {
      parts.push(
        csvLine([
          p.idProduct,
          p.enName,
          p.idCategory,
          p.categoryName,
          p.idExpansion,
          p.idMetaproduct,
          csvDate(p.dateAdded),
        ]),
      );
    }
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]!.idProduct;
  }
  return gzipAsync(parts.join(''));
}

/**
 * The price guide file is for widget and third-party apps and for dedicated apps of professional
 * sellers and powersellers (reference §1.3); a private seller's dedicated app is refused.
 */
export async function assertMayReadPriceGuide(
  ctx: DomainContext,
  kind: AppKind,
  idOwner: number,
): Promise<void> {
  if (kind !== 'dedicated') return;
  const owner = await findUserById(ctx.database.db, idOwner);
  if (!owner || owner.isCommercial < 1) {
    throw forbidden(
      'The price guide file is available to widget and third-party apps and to dedicated apps of professional sellers and powersellers.',
      { code: 'price_guide_not_allowed' },
    );
  }
}

export async function priceGuideFile(ctx: DomainContext, idGame: number): Promise<Buffer> {
  const db = ctx.database.db;
  await requireGame(ctx, idGame);
  const parts: string[] = [csvLine(PRICE_GUIDE_HEADER)];
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('products as p')
      .innerJoin('priceGuides as g', 'g.idProduct', 'p.idProduct')
      .selectAll('g')
      .where('p.idGame', '=', idGame)
      .where('p.idProduct', '>', after)
      .orderBy('p.idProduct')
      .limit(PAGE)
      .execute();
    for (const g of rows) {
      parts.push(
        csvLine([
          g.idProduct,
          price(g.sell),
          price(g.low),
          price(g.trend),
          price(g.lowGerman),
          price(g.suggested),
          price(g.sellFoil),
          price(g.lowFoil),
          price(g.trendFoil),
          price(g.lowEx),
          price(g.avg1),
          price(g.avg7),
          price(g.avg30),
          price(g.foilAvg1),
          price(g.foilAvg7),
          price(g.foilAvg30),
        ]),
      );
    }
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]!.idProduct;
  }
  return gzipAsync(parts.join(''));
}

async function requireGame(ctx: DomainContext, idGame: number): Promise<void> {
  const game = await ctx.database.db
    .selectFrom('games')
    .select('idGame')
    .where('idGame', '=', idGame)
    .executeTakeFirst();
  if (!game) throw notFound(`There is no game ${idGame}.`);
}
