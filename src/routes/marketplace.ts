import {
  type OfferFilterInput,
  type OfferPage,
  productOffers,
  type UserOfferFilterInput,
  userOffers,
} from '../domain/offers.js';
import { findUsers, publicUser } from '../domain/public-users.js';
import { LANGUAGE_ID_RANGE } from '../domain/catalog.js';
import { badRequest } from '../errors.js';
import { idParam, text } from '../http/fields.js';
import { offerFilterInput, userOfferFilterInput } from '../http/offer-filters.js';
import { type PageRequest, pagedResponse, pageFromQuery } from '../http/pagination.js';
import { ALL_KINDS, type ApiRequest, ok, type Router } from '../http/routing.js';
import { mapOffers } from '../mappers/article.js';
import { mapUser } from '../mappers/user.js';
import type { Services } from '../services.js';
import { Type } from '@sinclair/typebox';
import { Answer, BoolParam, IdParam, pageQuery, PriceFilter, SearchParam } from '../http/route-schema.js';
import { SELLER_COUNTRY_IDS } from '../domain/countries.js';
import { COUNTRY_CODES } from '../domain/users.js';
import { ArticleSchema } from '../mappers/article.js';
import { UserSchema } from '../mappers/user.js';

const ARTICLES = Answer({ article: Type.Array(ArticleSchema) });
const USER_PARAM = Type.String({ description: 'A user id or an exact username.' });
/** The filters both offer lists read (`offerFilters`). */
const OFFER_QUERY = {
  userType: Type.String({ enum: ['private', 'commercial', 'powerseller'] }),
  minUserScore: Type.Integer({ minimum: 1, maximum: 5, description: '1 (outstanding) to 5 (bad).' }),
  idLanguage: Type.Array(Type.Integer(LANGUAGE_ID_RANGE), { description: 'Repeatable.' }),
  minCondition: Type.String({ enum: ['MT', 'NM', 'EX', 'GD', 'LP', 'PL', 'PO'] }),
  isFoil: BoolParam,
  isSigned: BoolParam,
  isAltered: BoolParam,
  isPlayset: BoolParam,
  isFirstEd: BoolParam,
  isReverseHolo: BoolParam,
  minAvailable: Type.Integer({ minimum: 1 }),
  sellerCountry: Type.Array(
    Type.String({
      enum: [...COUNTRY_CODES, 'DE', 'UK', ...Object.keys(SELLER_COUNTRY_IDS)],
      description: 'A country code (any case) or a country id.',
    }),
    { description: 'Repeatable.' },
  ),
};

/** Offers and users of the public marketplace (reference §1.3): every app kind may read them. */
export function marketplaceRoutes(r: Router, services: Services): void {
  // A product's offers, cheapest first: 100 per page, 307 beyond unpaginated, 1,000 in all.
  r.get(
    '/articles/:idProduct',
    {
      kinds: ALL_KINDS,
      schema: {
        summary: "A product's offers, cheapest first",
        params: { idProduct: IdParam },
        query: { ...OFFER_QUERY, ...pageQuery() },
        paginated: true,
        responses: { 200: ARTICLES },
      },
    },
    async (req) => {
      const idProduct = idParam(req.params, 'idProduct');
      const page = pageFromQuery(req.query, { maxLimit: 100 });
      const offers = await productOffers(
        services,
        idProduct,
        offerFilters(req),
        { offset: page.offset, limit: page.limit },
        req.auth.idUser,
      );
      return offerResponse(req, services, page, offers);
    },
  );

  r.get(
    '/users/find',
    {
      kinds: ALL_KINDS,
      schema: {
        summary: 'Find users by name',
        query: { search: SearchParam('The start of the username (any case).'), ...pageQuery() },
        requiredQuery: ['search'],
        paginated: true,
        responses: { 200: Answer({ user: Type.Array(UserSchema) }) },
      },
    },
    async (req) => {
      const page = pageFromQuery(req.query, { maxLimit: 100 });
      const found = await findUsers(services, text(req.query, 'search'), {
        offset: page.offset,
        limit: page.limit,
      });
      return pagedResponse(req, services.config, page, found.total, found.users.length, () => ({
        user: found.users.map((u) => mapUser(u, 'public')),
      }));
    },
  );

  r.get(
    '/users/:idUser',
    {
      kinds: ALL_KINDS,
      schema: {
        summary: 'A user (by id or exact username)',
        params: { idUser: USER_PARAM },
        responses: { 200: Answer({ user: UserSchema }) },
      },
    },
    async (req) => {
      const user = await publicUser(services, userParam(req));
      return ok({ user: mapUser(user, 'public') });
    },
  );

  // A user's offers: up to 1,000 per page and 1,000 in all; an unpaginated request is truncated to
  // the first 1,000 (spec §8) rather than redirected.
  r.get(
    '/users/:idUser/articles',
    {
      kinds: ALL_KINDS,
      schema: {
        summary: "A user's offers",
        description: 'Up to 1,000 a page and 1,000 in all; an unpaginated request is cut to the first 1,000.',
        params: { idUser: USER_PARAM },
        query: {
          ...OFFER_QUERY,
          idGame: Type.Integer({ minimum: 1 }),
          rarity: Type.String(),
          name: Type.String(),
          expansionName: Type.String(),
          minPrice: PriceFilter('Euros, e.g. `1.50`.'),
          maxPrice: PriceFilter('Euros, e.g. `10.00`.'),
          ...pageQuery(1000),
        },
        paginated: true,
        responses: { 200: ARTICLES },
      },
    },
    async (req) => {
      const page = { ...pageFromQuery(req.query, { maxLimit: 1000 }), paginated: true };
      const input: UserOfferFilterInput = userOfferFilterInput(req.query);
      const offers = await userOffers(
        services,
        userParam(req),
        input,
        { offset: page.offset, limit: page.limit },
        req.auth.idUser,
      );
      return offerResponse(req, services, page, offers);
    },
  );
}

/** A page of offers; a total the 1,000 cap cut is written `1000+` in Content-Range. */
function offerResponse(req: ApiRequest, services: Services, page: PageRequest, offers: OfferPage) {
  return pagedResponse(
    req,
    services.config,
    page,
    offers.total,
    offers.articles.length,
    () => articleTree(offers),
    {
      totalLabel: offers.capped ? `${offers.total}+` : undefined,
    },
  );
}

function articleTree(offers: OfferPage) {
  return { article: mapOffers(offers) };
}

/** The filters both offer lists share, read from the query string (shared with the pages). */
function offerFilters(req: ApiRequest): OfferFilterInput {
  return offerFilterInput(req.query);
}

/** `:idUser` is an id or an exact username. */
function userParam(req: ApiRequest): string {
  const v = (req.params.idUser ?? '').trim();
  if (v === '') throw badRequest('"idUser" must be a user id or a username.', { field: 'idUser' });
  return v;
}
