import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { changeCart } from '../domain/cart.js';
import { CONDITIONS, gameRules, LANGUAGES } from '../domain/catalog.js';
import { type OfferPage, productOffers, userOffers } from '../domain/offers.js';
import {
  expansionSingles,
  findProducts,
  gameExpansions,
  listGames,
  listPrices,
  lowestPrice,
  productDetail,
} from '../domain/products.js';
import { publicUser } from '../domain/public-users.js';
import { idParam, integer, parseInteger, text } from '../http/fields.js';
import { offerFilterInput, userOfferFilterInput } from '../http/offer-filters.js';
import type { Services } from '../services.js';
import { type Errors, failureText, fields, formErrors, redirectWithFlash } from './forms.js';
import { displayLanguageOf } from './i18n/index.js';
import { CATALOG_PAGE_SIZE, firstPage, pageOf, type PageWindow, pager, queryOf } from './paging.js';
import { render } from './render.js';
import { requireUser } from './session.js';

/**
 * Finding cards (issue 17): the search box (`GET /products/find`'s search), games → expansions →
 * products, the product page with its offers (`GET /articles/:idProduct`'s filters, pages of 100)
 * and the public seller page (`GET /users/:idUser` and `/users/:idUser/articles`). Every list reads
 * the same domain functions as those routes; adding an offer to the cart is `PUT /shoppingcart`'s.
 * A filter the domain refuses re-renders the page (400) with the API's description beside it.
 */

/** The filters of a product's offers, as the API names its query parameters. */
const OFFER_FILTERS = [
  'idLanguage',
  'minCondition',
  'isFoil',
  'isSigned',
  'isAltered',
  'isPlayset',
  'isFirstEd',
  'isReverseHolo',
  'userType',
  'sellerCountry',
  'minUserScore',
  'page',
] as const;
/** A seller's offers take these too. */
const SELLER_FILTERS = [
  ...OFFER_FILTERS,
  'idGame',
  'name',
  'expansionName',
  'rarity',
  'minPrice',
  'maxPrice',
] as const;
const SEARCH_FIELDS = ['search', 'idGame', 'exact', 'page'] as const;

const emptyOffers = (): OfferPage => ({
  total: 0,
  capped: false,
  articles: [],
  sellers: new Map(),
  inCart: new Set(),
});

/** The query's values as typed (first of repeated ones), for refilling a filter form. */
function queryValues(request: FastifyRequest, names: readonly string[]): Record<string, string> {
  const q = request.query as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = Array.isArray(q[n]) ? (q[n] as unknown[])[0] : q[n];
    out[n] = typeof v === 'string' ? v : '';
  }
  return out;
}

/**
 * The query without its empty values: a GET form sends every field, `userType=` included, where
 * the API's client leaves a filter out; an empty field means "any" here.
 */
function chosen(request: FastifyRequest): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(request.query as Record<string, unknown>)) {
    if (typeof v === 'string' && v.trim() !== '') out[k] = v;
    else if (Array.isArray(v)) {
      const kept = v.filter((x): x is string => typeof x === 'string' && x.trim() !== '');
      if (kept.length > 0) out[k] = kept;
    }
  }
  return out;
}

const languageOptions = () => Object.entries(LANGUAGES).map(([id]) => Number(id));

export function catalogPages(app: FastifyInstance, services: Services): void {
  const form = { onRequest: requireUser, preHandler: app.csrfProtection };
  const paramId = (request: FastifyRequest, name: string) =>
    idParam(request.params as Record<string, string>, name);

  // The search box and the games: where finding cards starts.
  app.get('/cards', async (request, reply) => {
    const games = await listGames(services);
    const values = queryValues(request, SEARCH_FIELDS);
    let errors: Errors = {};
    let found: Awaited<ReturnType<typeof findProducts>> | undefined;
    let page: PageWindow = firstPage(CATALOG_PAGE_SIZE);
    if (values.search !== '' || 'search' in (request.query as object)) {
      try {
        page = pageOf(request, CATALOG_PAGE_SIZE);
        const q = request.query as Record<string, string | string[] | undefined>;
        found = await findProducts(
          services,
          {
            search: text(q, 'search'),
            exact: values.exact === 'true',
            idGame: integer(q, 'idGame', { min: 1 }),
            // The search is in the reader's language: French readers type French names.
            idLanguage: displayLanguageOf(request.lang),
          },
          page,
        );
      } catch (err) {
        errors = formErrors(request.t, err, SEARCH_FIELDS);
      }
    }
    const status = Object.keys(errors).length > 0 ? 400 : 200;
    const prices = await listPrices(
      services,
      (found?.products ?? []).map((p) => p.product.idProduct),
    );
    return render(
      request,
      reply,
      'cards',
      {
        title: 'cards.title',
        games,
        values,
        errors,
        found,
        prices,
        pager: found ? pager(request, page, found.total) : undefined,
        idLanguage: displayLanguageOf(request.lang),
      },
      status,
    );
  });

  app.get('/games/:idGame', async (request, reply) => {
    const idGame = paramId(request, 'idGame');
    const [games, expansions] = await Promise.all([listGames(services), gameExpansions(services, idGame)]);
    const page = pageOf(request, CATALOG_PAGE_SIZE);
    return render(request, reply, 'game', {
      title: 'cards.gameTitle',
      titleParams: { name: games.find((g) => g.idGame === idGame)?.name ?? '' },
      game: games.find((g) => g.idGame === idGame),
      expansions: expansions.slice(page.offset, page.offset + page.limit),
      pager: pager(request, page, expansions.length),
      idLanguage: displayLanguageOf(request.lang),
    });
  });

  app.get('/expansions/:idExpansion', async (request, reply) => {
    const view = await expansionSingles(services, paramId(request, 'idExpansion'));
    const page = pageOf(request, CATALOG_PAGE_SIZE);
    const idLanguage = displayLanguageOf(request.lang);
    const singles = view.singles.slice(page.offset, page.offset + page.limit);
    const prices = await listPrices(
      services,
      singles.map((p) => p.product.idProduct),
    );
    return render(request, reply, 'expansion', {
      title: 'cards.expansionTitle',
      titleParams: { name: view.names[idLanguage] ?? view.expansion.enName },
      expansion: view.expansion,
      name: view.names[idLanguage] ?? view.expansion.enName,
      singles,
      prices,
      pager: pager(request, page, view.singles.length),
      idLanguage,
    });
  });

  async function productPage(
    request: FastifyRequest,
    reply: FastifyReply,
    formErrorsIn: Errors = {},
    status = 200,
  ) {
    const idProduct = paramId(request, 'idProduct');
    const detail = await productDetail(services, idProduct);
    // The trend is the detail's own price guide: only the cheapest offer is one more statement.
    const price = {
      from: (await lowestPrice(services, idProduct)) ?? null,
      trend: detail.priceGuide?.trend ?? null,
    };
    const values = queryValues(request, OFFER_FILTERS);
    let errors: Errors = {};
    let offers = emptyOffers();
    let page: PageWindow = firstPage(CATALOG_PAGE_SIZE);
    try {
      page = pageOf(request, CATALOG_PAGE_SIZE);
      offers = await productOffers(
        services,
        idProduct,
        offerFilterInput(chosen(request)),
        page,
        request.user?.idUser ?? null,
        detail.countOffers,
      );
    } catch (err) {
      errors = formErrors(request.t, err, OFFER_FILTERS);
    }
    const idLanguage = displayLanguageOf(request.lang);
    const failed = Object.keys(errors).length > 0;
    return render(
      request,
      reply,
      'product',
      {
        title: 'product.title',
        titleParams: { name: detail.names[idLanguage] ?? detail.product.enName },
        detail,
        price,
        name: detail.names[idLanguage] ?? detail.product.enName,
        idLanguage,
        values,
        errors: { ...errors, ...formErrorsIn },
        offers,
        pager: pager(request, page, offers.total, { capped: offers.capped, path: `/products/${idProduct}` }),
        flags: gameRules(detail.product.idGame).flags,
        languages: languageOptions(),
        conditions: CONDITIONS,
        cartAction: `/products/${idProduct}/cart${queryOf(request)}`,
        showProduct: false,
      },
      failed ? 400 : status,
    );
  }

  app.get('/products/:idProduct', async (request, reply) => productPage(request, reply));

  async function sellerPage(
    request: FastifyRequest,
    reply: FastifyReply,
    formErrorsIn: Errors = {},
    status = 200,
  ) {
    const idOrName = (request.params as { idUser: string }).idUser;
    const seller = await publicUser(services, idOrName);
    const values = queryValues(request, SELLER_FILTERS);
    let errors: Errors = {};
    let offers = emptyOffers();
    let page: PageWindow = firstPage(CATALOG_PAGE_SIZE);
    try {
      page = pageOf(request, CATALOG_PAGE_SIZE);
      offers = await userOffers(
        services,
        String(seller.idUser),
        userOfferFilterInput(chosen(request)),
        page,
        request.user?.idUser ?? null,
      );
    } catch (err) {
      errors = formErrors(request.t, err, SELLER_FILTERS);
    }
    const games = await listGames(services);
    const idGame = Number(values.idGame) || 1;
    const failed = Object.keys(errors).length > 0;
    return render(
      request,
      reply,
      'seller',
      {
        title: 'seller.title',
        titleParams: { username: seller.username },
        seller,
        games,
        values: { ...values, idGame: String(idGame) },
        // The filters as asked: the game shown by default is no filter set (they stay folded).
        set: values,
        errors: { ...errors, ...formErrorsIn },
        offers,
        pager: pager(request, page, offers.total, { capped: offers.capped, path: `/users/${seller.idUser}` }),
        flags: gameRules(idGame).flags,
        languages: languageOptions(),
        conditions: CONDITIONS,
        cartAction: `/users/${seller.idUser}/cart${queryOf(request)}`,
        showProduct: true,
      },
      failed ? 400 : status,
    );
  }

  app.get('/users/:idUser', async (request, reply) => sellerPage(request, reply));

  /**
   * "Add to cart" on an offer list: `PUT /shoppingcart` with action add, one article. The form
   * posts to its own list's address (filters kept), so a refusal re-renders that list with the
   * reason beside the offer, and success comes back to it.
   */
  async function addToCart(
    request: FastifyRequest,
    reply: FastifyReply,
    again: (errors: Errors) => Promise<FastifyReply>,
  ) {
    const f = fields(request, ['idArticle', 'count']);
    const key = /^\d{1,10}$/.test(f.idArticle) ? `offer-${f.idArticle}` : '_form';
    try {
      const idArticle = parseInteger(f.idArticle, 'idArticle', { min: 1 });
      const count = parseInteger(f.count, 'count', { min: 1 });
      const { failed } = await changeCart(services, request.user!.idUser, 'add', [{ idArticle, count }]);
      if (failed[0]) return again({ [key]: failureText(request.t, failed[0]) });
      const back = request.url.replace(/\/cart(\?|$)/, '$1');
      return redirectWithFlash(reply, back, 'flash.addedToCart', { count });
    } catch (err) {
      const errors = formErrors(request.t, err);
      return again({ [key]: Object.values(errors)[0] ?? '' });
    }
  }

  app.post('/products/:idProduct/cart', form, async (request, reply) =>
    addToCart(request, reply, (errors) => productPage(request, reply, errors, 400)),
  );
  app.post('/users/:idUser/cart', form, async (request, reply) =>
    addToCart(request, reply, (errors) => sellerPage(request, reply, errors, 400)),
  );
}
