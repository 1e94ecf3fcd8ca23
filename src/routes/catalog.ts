import {
  expansionSingles,
  type FindInput,
  findMetaproducts,
  findProducts,
  gameExpansions,
  listGames,
  metaproductWithPrintings,
  productDetail,
  viewerLanguage,
} from '../domain/products.js';
import { DISPLAY_LANGUAGES } from '../domain/catalog.js';
import { MIN_SEARCH_LENGTH } from '../domain/search-text.js';
import { boolean, idParam, integer, text } from '../http/fields.js';
import { pagedResponse, pageFromQuery } from '../http/pagination.js';
import { ALL_KINDS, type ApiRequest, ok, type Router } from '../http/routing.js';
import { mapProductDetail, mapProductsListed } from '../mappers/catalog-product.js';
import { mapExpansion } from '../mappers/expansion.js';
import { mapGame } from '../mappers/game.js';
import { mapMetaproduct } from '../mappers/metaproduct.js';
import { link } from '../mappers/values.js';
import type { Services } from '../services.js';
import { Type } from '@sinclair/typebox';
import { Answer, BoolParam, IdParam, pageQuery, SearchParam } from '../http/route-schema.js';
import { ProductListedSchema, ProductSchema } from '../mappers/catalog-product.js';
import { ExpansionSchema } from '../mappers/expansion.js';
import { GameSchema } from '../mappers/game.js';
import { MetaproductSchema } from '../mappers/metaproduct.js';
import { LinksSchema } from '../mappers/values.js';

/** The query of both find requests (`findInput` reads it). */
const FIND_QUERY = {
  search: SearchParam(
    `Words of the name (any language): at least ${MIN_SEARCH_LENGTH} characters unless \`exact=true\`.`,
  ),
  exact: BoolParam,
  idGame: Type.Integer({ minimum: 1 }),
  idLanguage: Type.Integer({
    minimum: Math.min(...DISPLAY_LANGUAGES),
    maximum: Math.max(...DISPLAY_LANGUAGES),
    description: 'The language `search` is written in (products are named in these five).',
  }),
};

/** Games, expansions, products and metaproducts (reference §1.3): every app kind may read them. */
export function catalogRoutes(r: Router, services: Services): void {
  r.get(
    '/games',
    {
      kinds: ALL_KINDS,
      schema: {
        summary: 'Every game',
        responses: { 200: Answer({ game: Type.Array(GameSchema), links: LinksSchema }) },
      },
    },
    async () => {
      const games = await listGames(services);
      return ok({ game: games.map((g) => mapGame(g)), links: [link('self', '/games')] });
    },
  );

  r.get(
    '/games/:idGame/expansions',
    {
      kinds: ALL_KINDS,
      schema: {
        summary: "A game's expansions",
        params: { idGame: IdParam },
        responses: { 200: Answer({ expansion: Type.Array(ExpansionSchema), links: LinksSchema }) },
      },
    },
    async (req) => {
      const idGame = idParam(req.params, 'idGame');
      const expansions = await gameExpansions(services, idGame);
      return ok({
        expansion: expansions.map((e) => mapExpansion(e.expansion, e.names)),
        links: [link('self', `/games/${idGame}/expansions`)],
      });
    },
  );

  r.get(
    '/expansions/:idExpansion/singles',
    {
      kinds: ALL_KINDS,
      schema: {
        summary: "An expansion's single cards",
        params: { idExpansion: IdParam },
        responses: {
          200: Answer({
            expansion: ExpansionSchema,
            single: Type.Array(ProductListedSchema),
            links: LinksSchema,
          }),
        },
      },
    },
    async (req) => {
      const idExpansion = idParam(req.params, 'idExpansion');
      const [view, lang] = await Promise.all([
        expansionSingles(services, idExpansion),
        viewerLanguage(services, req.auth.idUser),
      ]);
      return ok({
        expansion: mapExpansion(view.expansion, view.names),
        single: mapProductsListed(view.singles, lang),
        links: [link('self', `/expansions/${idExpansion}/singles`)],
      });
    },
  );

  r.get(
    '/products/find',
    {
      kinds: ALL_KINDS,
      schema: {
        summary: 'Find products by name',
        query: { ...FIND_QUERY, ...pageQuery() },
        requiredQuery: ['search'],
        paginated: true,
        responses: { 200: Answer({ product: Type.Array(ProductListedSchema), links: LinksSchema }) },
      },
    },
    async (req) => {
      const page = pageFromQuery(req.query, { maxLimit: 100 });
      const [found, lang] = await Promise.all([
        findProducts(services, findInput(req), { offset: page.offset, limit: page.limit }),
        viewerLanguage(services, req.auth.idUser),
      ]);
      return pagedResponse(req, services.config, page, found.total, found.products.length, () => ({
        product: mapProductsListed(found.products, lang),
        links: [selfLink(req)],
      }));
    },
  );

  r.get(
    '/products/:idProduct',
    {
      kinds: ALL_KINDS,
      schema: {
        summary: 'A product with its price guide and reprints',
        params: { idProduct: IdParam },
        responses: { 200: Answer({ product: ProductSchema }) },
      },
    },
    async (req) => {
      const idProduct = idParam(req.params, 'idProduct');
      const [detail, lang] = await Promise.all([
        productDetail(services, idProduct),
        viewerLanguage(services, req.auth.idUser),
      ]);
      return ok({ product: mapProductDetail(detail, lang) });
    },
  );

  r.get(
    '/metaproducts/find',
    {
      kinds: ALL_KINDS,
      schema: {
        summary: 'Find metaproducts by name',
        query: { ...FIND_QUERY, ...pageQuery() },
        requiredQuery: ['search'],
        paginated: true,
        responses: {
          200: Answer({
            metaproduct: Type.Array(
              Type.Object({ metaproduct: MetaproductSchema, product: Type.Array(ProductListedSchema) }),
            ),
            links: LinksSchema,
          }),
        },
      },
    },
    async (req) => {
      const page = pageFromQuery(req.query, { maxLimit: 100 });
      const [found, lang] = await Promise.all([
        findMetaproducts(services, findInput(req), { offset: page.offset, limit: page.limit }),
        viewerLanguage(services, req.auth.idUser),
      ]);
      return pagedResponse(req, services.config, page, found.total, found.metaproducts.length, () => ({
        metaproduct: found.metaproducts.map((m) => ({
          metaproduct: mapMetaproduct(m.meta, lang),
          product: mapProductsListed(m.products, lang),
        })),
        links: [selfLink(req)],
      }));
    },
  );

  r.get(
    '/metaproducts/:idMetaproduct',
    {
      kinds: ALL_KINDS,
      schema: {
        summary: 'A metaproduct with its printings',
        params: { idMetaproduct: IdParam },
        responses: {
          200: Answer({ metaproduct: MetaproductSchema, product: Type.Array(ProductListedSchema) }),
        },
      },
    },
    async (req) => {
      const idMetaproduct = idParam(req.params, 'idMetaproduct');
      const [view, lang] = await Promise.all([
        metaproductWithPrintings(services, idMetaproduct),
        viewerLanguage(services, req.auth.idUser),
      ]);
      return ok({
        metaproduct: mapMetaproduct(view.meta, lang),
        product: mapProductsListed(view.products, lang),
      });
    },
  );
}

function findInput(req: ApiRequest): FindInput {
  return {
    search: text(req.query, 'search'),
    exact: boolean(req.query, 'exact') ?? false,
    idGame: integer(req.query, 'idGame', { min: 1 }),
    idLanguage: integer(req.query, 'idLanguage', { min: 1 }),
  };
}

/** `self` as the client asked for it, query included (relative to the version prefix). */
function selfLink(req: ApiRequest) {
  const url = req.raw.url.replace(/^\/ws\/v2\.0/, '');
  return link('self', url);
}
