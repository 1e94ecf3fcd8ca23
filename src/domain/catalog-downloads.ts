import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { notFound } from '../errors.js';
import { dateTimeText, formatTimestamp } from '../mappers/values.js';
import { catalogVersions, gameExists, priceGuidePage, productListPage } from '../store/catalog-downloads.js';
import type { DomainContext } from './context.js';

/**
 * The public catalog download files that replaced `/productlist` and `/priceguide` on the live
 * service in 2024 (reference §1.9): `products_singles_{idGame}.json`,
 * `products_nonsingles_{idGame}.json` and `price_guide_{idGame}.json`, in the shapes current
 * clients read, so `cardbazaar catalog import` reads them back.
 *
 * A file is built once per version of the tables it is made from (`catalogVersions`, raised by
 * triggers on every write), kept with its gzip, and served from memory until the version moves: a
 * poll costs two small reads, and a catalog of 100,000 products is read again only after it changed
 * (and at most once a minute).
 */
export type DownloadKind = 'singles' | 'nonsingles' | 'priceGuide';

/** The `version` field of the files: the format's, not the data's (the live files carry 1). */
const FILE_FORMAT_VERSION = 1;
const PAGE = 5000;
/**
 * A file is rebuilt at most once a minute: every sale and listing moves a product's price guide, and
 * a busy marketplace would otherwise rebuild a large game's guide on every poll. Like the live
 * files, each is a snapshot that says when it was made (`createdAt`, `Last-Modified`).
 */
export const MIN_AGE_MS = 60_000;
/** Pokémon's price guide has holo columns; cardbazaar keeps no holo figures, so they are null. */
const POKEMON = 6;

export interface DownloadFile {
  /** The JSON document, and the same bytes gzipped. */
  json: Buffer;
  gzip: Buffer;
  /** A weak validator: the same for both encodings of one build. */
  etag: string;
  /** When the file was built (marketplace clock), whole seconds, for Last-Modified. */
  createdAt: number;
}

const gzipAsync = promisify(gzip);
const cents = (v: number | null) => (v === null ? null : v / 100);

export class CatalogDownloads {
  private readonly built = new Map<string, { version: string; until: number; file: Promise<DownloadFile> }>();

  constructor(private readonly ctx: DomainContext) {}

  /** The file of that kind for that game; 404 for a game the catalog does not have. */
  async file(kind: DownloadKind, idGame: number): Promise<DownloadFile> {
    const db = this.ctx.database.db;
    // The version is read before the rows: a write during the build moves it, so the next request
    // builds again rather than keep a file older than its version says.
    const versions = await catalogVersions(db);
    if (!(await gameExists(db, idGame))) throw notFound(`There is no game ${idGame}.`);
    const version =
      kind === 'priceGuide' ? `${versions.products}:${versions.priceGuides}` : String(versions.products);
    const key = `${kind}:${idGame}`;
    const cached = this.built.get(key);
    if (cached && (cached.version === version || this.ctx.clock.now() < cached.until)) return cached.file;
    const file = this.build(kind, idGame, version);
    this.built.set(key, { version, until: this.ctx.clock.now() + MIN_AGE_MS, file });
    // A failed build is not kept: the next request tries again.
    file.catch(() => {
      if (this.built.get(key)?.file === file) this.built.delete(key);
    });
    return file;
  }

  private async build(kind: DownloadKind, idGame: number, version: string): Promise<DownloadFile> {
    const createdAt = Math.floor(this.ctx.clock.now() / 1000) * 1000;
    const list = kind === 'priceGuide' ? 'priceGuides' : 'products';
    const parts: string[] = [
      `{"version":${FILE_FORMAT_VERSION},"createdAt":${JSON.stringify(formatTimestamp(createdAt))},"${list}":[`,
    ];
    let first = true;
    const push = (record: unknown) => {
      parts.push(first ? JSON.stringify(record) : `,${JSON.stringify(record)}`);
      first = false;
    };
    if (kind === 'priceGuide') await this.priceGuides(idGame, push);
    else await this.products(idGame, kind === 'singles', push);
    parts.push(']}');
    const json = Buffer.from(parts.join(''));
    const hash = createHash('sha256').update(`${kind}:${idGame}:${version}:${createdAt}`).digest('base64url');
    return { json, gzip: await gzipAsync(json), etag: `W/"${hash.slice(0, 27)}"`, createdAt };
  }

  private async products(idGame: number, singles: boolean, push: (r: unknown) => void): Promise<void> {
    for (let after = 0; ;) {
      const rows = await productListPage(this.ctx.database.db, idGame, singles, after, PAGE);
      for (const p of rows) {
        push({
          idProduct: p.idProduct,
          name: p.enName,
          idCategory: p.idCategory,
          categoryName: p.categoryName,
          idExpansion: p.idExpansion,
          idMetacard: p.idMetaproduct,
          dateAdded: p.dateAdded === null ? null : dateTimeText(p.dateAdded),
        });
      }
      if (rows.length < PAGE) return;
      after = rows[rows.length - 1]!.idProduct;
    }
  }

  private async priceGuides(idGame: number, push: (r: unknown) => void): Promise<void> {
    for (let after = 0; ;) {
      const rows = await priceGuidePage(this.ctx.database.db, idGame, after, PAGE);
      for (const g of rows) {
        push({
          idProduct: g.idProduct,
          idCategory: g.idCategory,
          avg: cents(g.sell),
          low: cents(g.low),
          trend: cents(g.trend),
          avg1: cents(g.avg1),
          avg7: cents(g.avg7),
          avg30: cents(g.avg30),
          'avg-foil': cents(g.sellFoil),
          'low-foil': cents(g.lowFoil),
          'trend-foil': cents(g.trendFoil),
          'avg1-foil': cents(g.foilAvg1),
          'avg7-foil': cents(g.foilAvg7),
          'avg30-foil': cents(g.foilAvg30),
          ...(idGame === POKEMON ? { 'avg-holo': null, 'low-holo': null, 'trend-holo': null } : {}),
        });
      }
      if (rows.length < PAGE) return;
      after = rows[rows.length - 1]!.idProduct;
    }
  }
}
