import { badRequest, notFound } from '../errors.js';
import { type ArticleView, loadArticleViews } from '../store/articles.js';
import { findProduct } from '../store/catalog.js';
import type { Executor } from '../store/db.js';
import {
  countProductOffers,
  countProductOffersAfter,
  type OfferWhere,
  offerIds,
  productOfferViews,
} from '../store/offers.js';
import { articlesInCartOf } from '../store/reservations.js';
import { findUserByIdOrName, type ShownUser, shownUsersByIds } from '../store/users.js';
import { type ArticleFlag, CONDITIONS, gameRules, isCondition, isLanguage } from './catalog.js';
import type { DomainContext, Window } from './context.js';
import { parseSellerCountry } from './countries.js';
import { foldName } from './search-text.js';

/**
 * The public marketplace's offers: a product's articles (cheapest first) and a user's articles.
 * Only articles with copies available from sellers not on vacation are offered. Either list stops at
 * 1,000 per filter set (reference §1.10, spec §8): the total shows as `1000+` beyond.
 */
export const OFFER_CAP = 1000;

/** Filters as the query string gives them; checked here, each error naming its parameter. */
export interface OfferFilterInput {
  userType?: string;
  minUserScore?: number;
  idLanguages?: number[];
  minCondition?: string;
  flags?: Partial<Record<ArticleFlag, boolean>>;
  minAvailable?: number;
  sellerCountries?: string[];
}

/** The further filters of a user's offers (`GET /users/:idUser/articles`). */
export interface UserOfferFilterInput extends OfferFilterInput {
  /** Default 1 (Magic), as the real API does. */
  idGame?: number;
  rarity?: string;
  name?: string;
  expansionName?: string;
  minPrice?: number;
  maxPrice?: number;
}

export interface OfferPage {
  /** Offers matching, at most OFFER_CAP. */
  total: number;
  /** More than OFFER_CAP matched. */
  capped: boolean;
  articles: ArticleView[];
  /** The sellers of `articles`, by id. */
  sellers: Map<number, ShownUser>;
  /** Articles of which the viewer holds copies in their cart. */
  inCart: Set<number>;
}

const USER_TYPES = {
  private: 'private',
  commercial: 'commercial',
  professional: 'commercial',
  powerseller: 'powerseller',
} as const;

function commonWhere(input: OfferFilterInput, idGame: number | undefined, isSingle: boolean): OfferWhere {
  const where: OfferWhere = {};
  if (input.userType !== undefined) {
    const t = USER_TYPES[input.userType.trim().toLowerCase() as keyof typeof USER_TYPES];
    if (!t) {
      throw badRequest(`userType must be private, commercial or powerseller (got "${input.userType}").`, {
        field: 'userType',
        reason: 'user_type_invalid',
      });
    }
    where.sellerType = t;
  }
  if (input.minUserScore !== undefined) {
    if (input.minUserScore < 1 || input.minUserScore > 5) {
      throw badRequest('minUserScore must be from 1 (outstanding) to 5 (bad).', {
        field: 'minUserScore',
        reason: 'min_user_score_invalid',
      });
    }
    where.maxReputation = input.minUserScore;
  }
  if (input.idLanguages?.length) {
    for (const l of input.idLanguages) {
      if (!isLanguage(l))
        throw badRequest(`${l} is not a language id.`, { field: 'idLanguage', reason: 'unknown_language' });
    }
    where.idLanguages = input.idLanguages;
  }
  if (input.minCondition !== undefined) {
    const c = input.minCondition.trim().toUpperCase();
    if (!isCondition(c)) {
      throw badRequest(
        `minCondition must be one of ${CONDITIONS.join(', ')} (got "${input.minCondition}").`,
        { field: 'minCondition', reason: 'unknown_condition' },
      );
    }
    // Conditions grade single cards only; on sealed product the filter does not apply.
    if (isSingle) where.conditions = CONDITIONS.slice(0, CONDITIONS.indexOf(c) + 1);
  }
  if (input.flags) {
    // Flags a game does not have are ignored, as the real API ignores filters that do not apply.
    const own = idGame === undefined ? undefined : gameRules(idGame).flags;
    const flags: OfferWhere['flags'] = {};
    for (const [flag, value] of Object.entries(input.flags) as [ArticleFlag, boolean | undefined][]) {
      if (value !== undefined && (!own || own.includes(flag))) flags[flag] = value;
    }
    where.flags = flags;
  }
  if (input.minAvailable !== undefined) where.minAvailable = input.minAvailable;
  if (input.sellerCountries?.length)
    where.sellerCountries = input.sellerCountries.map((c) => parseSellerCountry(c));
  return where;
}

/**
 * The offers of one product, cheapest first. `countOffers` is the product's offers as the caller
 * has just read them (`ProductInfo.countOffers`, the product page's detail): the list without
 * filters then counts none again.
 */
export async function productOffers(
  ctx: DomainContext,
  idProduct: number,
  input: OfferFilterInput,
  window: Window,
  idViewer: number | null,
  countOffers?: number,
): Promise<OfferPage> {
  const db = ctx.database.db;
  const product = await findProduct(db, idProduct);
  if (!product) throw notFound(`There is no product ${idProduct}.`);
  const where = { ...commonWhere(input, product.idGame, product.isSingle === 1), idProduct };
  if (unfiltered(where)) {
    // What price bots ask all day: a page and a count from prepared statements, the same offers
    // in the same order as the general path below gives.
    if (countOffers !== undefined) {
      const total = Math.min(countOffers, OFFER_CAP);
      const shown = Math.min(window.limit, total - window.offset);
      const articles = await productOfferViews(db, idProduct, window.offset, shown);
      return withSellersAndCart(db, total, countOffers > OFFER_CAP, articles, idViewer);
    }
    // The page comes first, and the count walks on from its last offer
    // (`countProductOffersAfter`): a page shorter than asked for ends the list, and an empty one
    // (a window past the end) leaves the count from the first offer.
    const limit = Math.min(window.limit, OFFER_CAP - window.offset);
    const articles = await productOfferViews(db, idProduct, window.offset, limit);
    let found: number;
    if (articles.length === 0) found = await countProductOffers(db, idProduct, OFFER_CAP + 1);
    else if (articles.length < limit) found = window.offset + articles.length;
    else {
      const after = window.offset + limit;
      found = after + (await countProductOffersAfter(db, idProduct, articles.at(-1)!, OFFER_CAP + 1 - after));
    }
    return withSellersAndCart(db, Math.min(found, OFFER_CAP), found > OFFER_CAP, articles, idViewer);
  }
  return offerPage(db, await offerIds(db, where, 'price', OFFER_CAP + 1), window, idViewer);
}

/** Whether a product's offer query has no condition but the product. */
function unfiltered(where: OfferWhere): boolean {
  for (const [key, value] of Object.entries(where)) {
    if (key === 'idProduct' || value === undefined) continue;
    if (key === 'flags' && Object.keys(value as object).length === 0) continue;
    return false;
  }
  return true;
}

/** A user's offers (`:idUser` is an id or an exact username), by article id. */
export async function userOffers(
  ctx: DomainContext,
  idOrName: string,
  input: UserOfferFilterInput,
  window: Window,
  idViewer: number | null,
): Promise<OfferPage> {
  const db = ctx.database.db;
  const seller = await findUserByIdOrName(db, idOrName);
  if (!seller) throw notFound(`There is no user "${idOrName}".`, { reason: 'unknown_user' });
  const idGame = input.idGame ?? 1;
  const where: OfferWhere = { ...commonWhere(input, idGame, true), idUser: seller.idUser, idGame };
  if (where.conditions) where.singlesOnly = true;
  if (input.rarity !== undefined && input.rarity.trim() !== '') where.rarity = input.rarity.trim();
  if (input.name !== undefined && input.name.trim() !== '') {
    const folded = foldName(input.name);
    // A name of punctuation only (`%`, `((((`) folds to nothing, and no product name is nothing.
    if (folded === '') return offerPage(db, [], window, idViewer);
    where.nameContains = folded;
  }
  if (input.expansionName !== undefined && input.expansionName.trim() !== '') {
    where.expansionName = input.expansionName.trim();
  }
  if (input.minPrice !== undefined) where.minPrice = input.minPrice;
  if (input.maxPrice !== undefined) where.maxPrice = input.maxPrice;
  return offerPage(db, await offerIds(db, where, 'id', OFFER_CAP + 1), window, idViewer);
}

async function offerPage(
  db: Executor,
  ids: number[],
  window: Window,
  idViewer: number | null,
): Promise<OfferPage> {
  const capped = ids.length > OFFER_CAP;
  const total = Math.min(ids.length, OFFER_CAP);
  const pageIds = ids.slice(window.offset, Math.min(window.offset + window.limit, total));
  const views = await loadArticleViews(db, pageIds);
  const byId = new Map(views.map((v) => [v.idArticle, v]));
  const articles = pageIds.map((id) => byId.get(id)).filter((v): v is ArticleView => v !== undefined);
  return withSellersAndCart(db, total, capped, articles, idViewer);
}

async function withSellersAndCart(
  db: Executor,
  total: number,
  capped: boolean,
  articles: ArticleView[],
  idViewer: number | null,
): Promise<OfferPage> {
  // What others are shown of them, one packed text each: a page of 100 offers has some forty.
  const sellers = await shownUsersByIds(
    db,
    articles.map((a) => a.idUser),
  );
  const inCart =
    idViewer === null
      ? new Set<number>()
      : await articlesInCartOf(
          db,
          idViewer,
          articles.map((a) => a.idArticle),
        );
  return { total, capped, articles, sellers, inCart };
}
