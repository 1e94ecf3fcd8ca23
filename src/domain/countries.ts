import { badRequest } from '../errors.js';
import { normalizeCountry } from './users.js';

/**
 * The numeric country ids some clients send as `sellerCountry` (reference §2.19), beside the
 * country codes the entities carry (Germany is `D`).
 */
export const SELLER_COUNTRY_IDS: Record<number, string> = {
  1: 'AT',
  2: 'BE',
  3: 'BG',
  4: 'CH',
  5: 'CY',
  6: 'CZ',
  7: 'D',
  8: 'DK',
  9: 'EE',
  10: 'ES',
  11: 'FI',
  12: 'FR',
  13: 'GB',
  14: 'GR',
  15: 'HU',
  16: 'IE',
  17: 'IT',
  18: 'LI',
  19: 'LT',
  20: 'LU',
  21: 'LV',
  22: 'MT',
  23: 'NL',
  24: 'NO',
  25: 'PL',
  26: 'PT',
  27: 'RO',
  28: 'SE',
  29: 'SG',
  30: 'SI',
  31: 'SK',
  33: 'CA',
  35: 'HR',
  36: 'JP',
  37: 'IS',
};

/**
 * The ISO 3166 code of one of the API's country codes: the API spells Germany `D` (the rest are
 * ISO already, `GB` included), so names can be looked up (`Intl.DisplayNames`).
 */
export function isoCountryCode(code: string): string {
  return code === 'D' ? 'DE' : code;
}

/** `7`, `D`, `DE` and `de` all mean Germany; an unknown number is an error naming the field. */
export function parseSellerCountry(value: string, field = 'sellerCountry'): string {
  const v = value.trim();
  if (/^\d+$/.test(v)) {
    const code = SELLER_COUNTRY_IDS[Number(v)];
    if (!code) throw badRequest(`"${v}" is not a country id.`, { field, reason: 'invalid_country' });
    return code;
  }
  try {
    return normalizeCountry(v);
  } catch {
    throw badRequest(`"${value}" is not a country code or id.`, { field, reason: 'invalid_country' });
  }
}
