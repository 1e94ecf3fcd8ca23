import { badRequest } from '../errors.js';

/** The largest price anyone may ask for one article: €1,000,000. */
export const MAX_PRICE_CENTS = 100_000_000;

/**
 * Parses a price as clients send it: `1,50` (the spec's comma), `1.50`, `3`, `0.5`. At most two
 * decimals; never a float on the way (the digits become cents as text). Returns cents.
 */
/** What `parsePriceCents` reads, surrounding spaces included (the OpenAPI document's pattern). */
export const PRICE_PATTERN = '^\\s*\\d{1,9}(?:[.,]\\d{1,2})?\\s*$';

export function parsePriceCents(text: string, field = 'price'): number {
  const s = text.trim();
  const m = /^(\d{1,9})(?:[.,](\d{1,2}))?$/.exec(s);
  if (!m) {
    throw badRequest(
      `"${text}" is not a price: use a decimal number with at most two decimals, e.g. 1,50 or 1.50.`,
      { field, reason: 'price_invalid' },
    );
  }
  const cents = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return cents;
}

/** A price for an article: greater than zero and below the maximum. */
export function parseArticlePrice(text: string, field = 'price'): number {
  const cents = parsePriceCents(text, field);
  if (cents <= 0)
    throw badRequest('The price must be greater than 0.', { field, reason: 'price_not_positive' });
  if (cents > MAX_PRICE_CENTS)
    throw badRequest('The price must be at most 1000000.00.', { field, reason: 'price_too_high' });
  return cents;
}
