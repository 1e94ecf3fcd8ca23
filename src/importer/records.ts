import { PRODUCT_LIST_HEADER } from '../domain/catalog-files.js';
import { berlinOffsetMinutes } from '../format.js';
import type { ImportedPriceGuidesTable } from '../store/schema.js';

/**
 * What one record of an import file must look like, and its typed form. Each check fails with a
 * message naming the field; the caller adds the file and the line.
 */
export class RecordError extends Error {}

export interface ProductRecord {
  idProduct: number;
  name: string;
  idCategory: number;
  categoryName: string;
  idExpansion: number | null;
  idMetacard: number | null;
  dateAdded: number | null;
  /** The product's picture (an extension: Cardmarket's files carry none); null keeps what the catalog has. */
  image: string | null;
}

/** Price guide values in cents; null where the file gives none. */
export type PriceGuideRecord = Omit<ImportedPriceGuidesTable, 'importedAt'>;

function id(value: unknown, field: string, nullable: true): number | null;
function id(value: unknown, field: string, nullable?: false): number;
function id(value: unknown, field: string, nullable = false): number | null {
  if (nullable && (value === null || value === undefined || value === '')) return null;
  const n = typeof value === 'string' && /^\s*\d{1,10}\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 2_147_483_647) {
    throw new RecordError(`"${field}" must be a positive integer id (got ${JSON.stringify(value ?? null)})`);
  }
  return n;
}

function name(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new RecordError(`"${field}" must be a non-empty text (got ${JSON.stringify(value ?? null)})`);
  }
  return value.trim();
}

/**
 * A picture: an `https://` address (shown from there when its host is in IMAGE_HOSTS) or a path
 * under `./img/` (served by this server, from IMAGE_DIR or drawn).
 */
function imageOf(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  const ok =
    typeof value === 'string' &&
    value.length <= 500 &&
    (/^\.?\/img\/[\w./-]+$/.test(value) ? !value.includes('..') : isHttpsUrl(value));
  if (!ok) {
    throw new RecordError(
      `"image" must be an https:// address or a path under ./img/, at most 500 characters (got ${JSON.stringify(value)})`,
    );
  }
  return value;
}

function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.href === value;
  } catch {
    return false;
  }
}

/** `2007-01-01 00:00:00` (or an ISO date), read in the marketplace's time zone. */
function parseDateAdded(value: unknown, field = 'dateAdded'): number | null {
  if (value === null || value === undefined || value === '') return null;
  const m =
    typeof value === 'string'
      ? /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(value.trim())
      : null;
  if (!m)
    throw new RecordError(
      `"${field}" must be a date like 2007-01-01 00:00:00 (got ${JSON.stringify(value)})`,
    );
  const local = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0));
  if (Number.isNaN(local) || new Date(local).getUTCDate() !== +m[3]!) {
    throw new RecordError(`"${field}" is not a real date (got ${JSON.stringify(value)})`);
  }
  // Local Berlin time to an instant: subtract the offset in force then (twice, across a switch).
  const guess = local - berlinOffsetMinutes(local) * 60_000;
  return local - berlinOffsetMinutes(guess) * 60_000;
}

/** A record's fields; anything but a JSON object is refused, naming what the record should be. */
function fieldsOf(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RecordError(`${what} must be an object`);
  }
  return value as Record<string, unknown>;
}

export function productRecord(value: unknown): ProductRecord {
  const v = fieldsOf(value, 'a product');
  return {
    idProduct: id(v.idProduct, 'idProduct'),
    name: name(v.name, 'name'),
    idCategory: id(v.idCategory, 'idCategory'),
    categoryName: name(v.categoryName, 'categoryName'),
    idExpansion: id(v.idExpansion, 'idExpansion', true),
    idMetacard: id(v.idMetacard, 'idMetacard', true),
    dateAdded: parseDateAdded(v.dateAdded),
    image: imageOf(v.image),
  };
}

function cents(value: unknown, field: string): number | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 10_000_000) {
    throw new RecordError(`"${field}" must be a price in euros, or null (got ${JSON.stringify(value)})`);
  }
  return Math.round(value * 100);
}

/** A record of `price_guide_{idGame}.json`: `avg` is the average sell price, `-foil` the foil ones. */
export function priceGuideRecord(value: unknown): PriceGuideRecord {
  const v = fieldsOf(value, 'a price guide');
  return {
    idProduct: id(v.idProduct, 'idProduct'),
    sell: cents(v.avg, 'avg'),
    low: cents(v.low, 'low'),
    trend: cents(v.trend, 'trend'),
    avg1: cents(v.avg1, 'avg1'),
    avg7: cents(v.avg7, 'avg7'),
    avg30: cents(v.avg30, 'avg30'),
    sellFoil: cents(v['avg-foil'], 'avg-foil'),
    lowFoil: cents(v['low-foil'], 'low-foil'),
    trendFoil: cents(v['trend-foil'], 'trend-foil'),
    foilAvg1: cents(v['avg1-foil'], 'avg1-foil'),
    foilAvg7: cents(v['avg7-foil'], 'avg7-foil'),
    foilAvg30: cents(v['avg30-foil'], 'avg30-foil'),
  };
}

export function csvProductRecord(fields: string[]): ProductRecord {
  if (fields.length !== PRODUCT_LIST_HEADER.length) {
    throw new RecordError(`expected ${PRODUCT_LIST_HEADER.length} fields, got ${fields.length}`);
  }
  const [idProduct, productName, idCategory, categoryName, idExpansion, idMetacard, dateAdded] = fields;
  return {
    idProduct: id(idProduct, 'idProduct'),
    name: name(productName, 'Name'),
    idCategory: id(idCategory, 'Category ID'),
    categoryName: name(categoryName, 'Category'),
    idExpansion: id(idExpansion, 'Expansion ID', true),
    idMetacard: id(idMetacard, 'Metacard ID', true),
    dateAdded: parseDateAdded(dateAdded, 'Date Added'),
    image: null,
  };
}
