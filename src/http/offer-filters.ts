import { ARTICLE_FLAGS, type ArticleFlag } from '../domain/catalog.js';
import { parsePriceCents } from '../domain/money.js';
import type { OfferFilterInput, UserOfferFilterInput } from '../domain/offers.js';
import { boolean, type Fields, integer, parseInteger, strings, text } from './fields.js';

/**
 * The offer filters of `GET /articles/:idProduct` and `GET /users/:idUser/articles`, read from a
 * query string. The API's routes and the website's product and seller pages read them here, so a
 * filter means the same and fails with the same description in both.
 */
export function offerFilterInput(query: Fields): OfferFilterInput {
  const flags: Partial<Record<ArticleFlag, boolean>> = {};
  for (const flag of ARTICLE_FLAGS) {
    const v = boolean(query, flag);
    if (v !== undefined) flags[flag] = v;
  }
  return {
    userType: text(query, 'userType'),
    minUserScore: integer(query, 'minUserScore'),
    idLanguages: strings(query, 'idLanguage')
      .filter((v) => v.trim() !== '')
      .map((v) => parseInteger(v, 'idLanguage', { min: 1 })),
    minCondition: text(query, 'minCondition'),
    flags,
    minAvailable: integer(query, 'minAvailable', { min: 1 }),
    sellerCountries: strings(query, 'sellerCountry').filter((v) => v.trim() !== ''),
  };
}

/** A user's offers take the product filters too (`idGame` defaults to 1 in the domain). */
export function userOfferFilterInput(query: Fields): UserOfferFilterInput {
  return {
    ...offerFilterInput(query),
    idGame: integer(query, 'idGame', { min: 1 }),
    rarity: text(query, 'rarity'),
    name: text(query, 'name'),
    expansionName: text(query, 'expansionName'),
    minPrice: price(query, 'minPrice'),
    maxPrice: price(query, 'maxPrice'),
  };
}

function price(query: Fields, name: string): number | undefined {
  const v = text(query, name);
  return v === undefined || v.trim() === '' ? undefined : parsePriceCents(v, name);
}
