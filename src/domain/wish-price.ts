import { badRequest } from '../errors.js';
import { formatCents } from '../format.js';
import { MAX_PRICE_CENTS, parsePriceCents } from './money.js';

/**
 * A wants-list item's `wishPrice` (spec §4.4; reference §1.7): a price, or one of the website's
 * codes, which resolve to a price when the item is written:
 *  - `+0.02` / `-0.37`: the current wish price raised or lowered by that amount;
 *  - `90%`: that percentage of the current wish price (rounded to the cent, half up);
 *  - `FROM`: the lowest price of an offer available now (see `lowestOffer` in `store/wants.ts`);
 *  - `SELL`: the price guide's average selling price.
 * A new item's current wish price is 0 (none). A code that cannot resolve, or resolves to zero or
 * less, is refused; a plain `0` clears the wish price.
 */
export type WishPriceCode =
  | { kind: 'price'; cents: number }
  | { kind: 'raise'; cents: number }
  | { kind: 'lower'; cents: number }
  | { kind: 'percent'; hundredths: number }
  | { kind: 'from' }
  | { kind: 'sell' };

const PERCENT = /^(\d{1,4})(?:[.,](\d{1,2}))?\s*%$/;

export function parseWishPrice(text: string): WishPriceCode {
  const s = text.trim();
  const upper = s.toUpperCase();
  if (upper === 'FROM') return { kind: 'from' };
  if (upper === 'SELL') return { kind: 'sell' };
  const percent = PERCENT.exec(s);
  if (percent) {
    return {
      kind: 'percent',
      hundredths: Number(percent[1]) * 100 + Number((percent[2] ?? '').padEnd(2, '0')),
    };
  }
  try {
    if (s.startsWith('+')) return { kind: 'raise', cents: parsePriceCents(s.slice(1), 'wishPrice') };
    if (s.startsWith('-')) return { kind: 'lower', cents: parsePriceCents(s.slice(1), 'wishPrice') };
    return { kind: 'price', cents: parsePriceCents(s, 'wishPrice') };
  } catch {
    throw badRequest(
      `"${text}" is not a wish price: give a price (1.50), +0.02, -0.37, a percentage (90%), FROM or SELL.`,
      { field: 'wishPrice', reason: 'wish_price_invalid' },
    );
  }
}

export interface WishPriceSources {
  /** The item's wish price now, in cents (0 for none or a new item). */
  current: number;
  /** The lowest available offer's price, or null when there is none. */
  lowestOffer: () => Promise<number | null>;
  /** The price guide's average selling price, or null when the guide has none. */
  averageSell: () => Promise<number | null>;
}

/** The cents the code stands for, or why it cannot be resolved. */
export async function resolveWishPrice(
  code: WishPriceCode,
  sources: WishPriceSources,
): Promise<{ cents: number } | { error: string; reason: string }> {
  let cents: number;
  switch (code.kind) {
    case 'price':
      cents = code.cents;
      break;
    case 'raise':
      cents = sources.current + code.cents;
      break;
    case 'lower':
      cents = sources.current - code.cents;
      break;
    case 'percent':
      cents = Math.floor((sources.current * code.hundredths + 5000) / 10000);
      break;
    case 'from': {
      const low = await sources.lowestOffer();
      if (low === null)
        return {
          error: 'FROM cannot be resolved: no offer matching it is available now',
          reason: 'wish_from_none',
        };
      cents = low;
      break;
    }
    case 'sell': {
      const sell = await sources.averageSell();
      if (sell === null)
        return {
          error: 'SELL cannot be resolved: the price guide has no average selling price for it',
          reason: 'wish_sell_none',
        };
      cents = sell;
      break;
    }
  }
  if (code.kind !== 'price' && cents <= 0) {
    return {
      error: `the wish price code gives ${formatCents(cents)} from the current wish price ${formatCents(sources.current)}; a wish price must be greater than 0`,
      reason: 'price_not_positive',
    };
  }
  if (cents > MAX_PRICE_CENTS)
    return { error: 'a wish price must be at most 1000000.00', reason: 'price_too_high' };
  return { cents };
}
