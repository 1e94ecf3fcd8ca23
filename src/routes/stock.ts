import { LANGUAGE_ID_RANGE } from '../domain/catalog.js';
import { MAX_ARTICLES_PER_REQUEST } from '../domain/stock-rules.js';
import {
  addArticles,
  type BulkResult,
  decreaseArticles,
  deleteArticles,
  increaseArticles,
  type StockArticle,
  updateArticles,
} from '../domain/stock.js';
import { productDetail, viewerLanguage } from '../domain/products.js';
import { checkStockFileFilter, stockCsv } from '../domain/stock-file.js';
import {
  getStockArticle,
  listReservedStock,
  listStock,
  listStockOfProduct,
  type StockSlice,
  searchStock,
} from '../domain/stock-queries.js';
import { boolean, idParam, integer, MAX_ID } from '../http/fields.js';
import { gzippedBase64Document } from '../http/file-document.js';
import { CONTENT_TYPES } from '../http/format.js';
import { type PageRequest, pagedResponse, pageFromPathOrQuery, pageFromQuery } from '../http/pagination.js';
import { type ApiRequest, type ApiResponse, ok, type Router, USER_KINDS } from '../http/routing.js';
import { type ArticleMapOptions, mapArticle } from '../mappers/article.js';
import { mapProductDetail } from '../mappers/catalog-product.js';
import { mapDeleted, mapFailedArticle, mapInserted } from '../mappers/stock-result.js';
import type { Services } from '../services.js';
import { type TSchema, Type } from '@sinclair/typebox';
import {
  Answer,
  BoolParam,
  IdParam,
  PathStart,
  pageQuery,
  RequestBody,
  type RouteSchema,
} from '../http/route-schema.js';
import { ArticleSchema } from '../mappers/article.js';
import { ProductSchema } from '../mappers/catalog-product.js';

const ARTICLES = Answer({ article: Type.Array(ArticleSchema) });
/** An article that failed: what was sent, and why (`mapFailedArticle`). */
const FAILED = Type.Object(
  { success: Type.Literal(false), tried: Type.Unknown(), error: Type.String() },
  { $id: 'FailedArticle' },
);
/** A stock write's `<article>` list: 1 to 100 items, each failing on its own (`readArticles`). */
const ARTICLES_BODY = (
  item: TSchema,
  description = 'An item outside its schema fails on its own (in `failed`); the others go on.',
) =>
  RequestBody({
    article: Type.Array(item, { minItems: 1, maxItems: MAX_ARTICLES_PER_REQUEST, description }),
  });
const CHANGE = (summary: string): RouteSchema => ({
  summary,
  body: ARTICLES_BODY(
    ArticleCountItem,
    'A `count` (or `amount`) that is not a positive integer refuses the whole request (400, spec §4.4); an unknown `idArticle` fails on its own (in `failed`).',
  ),
  responses: { 200: Answer({ article: Type.Array(ArticleSchema), failed: Type.Array(FAILED) }) },
});
const STOCK_LIST = (withStart: boolean): RouteSchema => ({
  summary: withStart ? 'A page of the stock (1-based start, 100 a page)' : 'The stock',
  params: withStart ? { start: PathStart } : undefined,
  query: withStart ? undefined : pageQuery(),
  paginated: true,
  responses: { 200: ARTICLES },
});
import {
  ArticleChangeItem,
  ArticleCountItem,
  NewArticleItem,
  parseArticleChange,
  parseArticleCount,
  parseNewArticle,
  readArticles,
  readCountItems,
  readItems,
} from './stock-input.js';
import { MappedOnce, presentList } from '../mappers/values.js';

/**
 * A stock article as every stock answer shows it: `inShoppingCart` when copies sit in carts. The
 * bulk writes' answers (up to 100 articles) pass a memo (`once`): their articles are then written
 * by the Article's compiled XML writer, the same bytes as the generic one.
 */
const stockArticle = (
  a: StockArticle,
  options: Pick<ArticleMapOptions, 'count' | 'withProduct' | 'once'> = {},
) =>
  // Named one by one rather than spread: a bulk write's answer maps a hundred of them.
  mapArticle(a.view, {
    context: 'stock',
    inShoppingCart: a.reserved > 0,
    count: options.count,
    withProduct: options.withProduct,
    once: options.once,
  });

/** Stock management (spec §2.5, §4.4; reference §1.6, §2.10, §2.13). Widget apps have no stock. */
export function stockRoutes(r: Router, services: Services): void {
  const { config } = services;
  const idUser = (req: ApiRequest) => req.auth.idUser!;

  const page = (req: ApiRequest, slice: (p: PageRequest) => Promise<StockSlice>, count?: 'reserved') =>
    pagedAnswer(req, pageFromQuery(req.query), slice, count);

  async function pagedAnswer(
    req: ApiRequest,
    p: PageRequest,
    slice: (p: PageRequest) => Promise<StockSlice>,
    count?: 'reserved',
  ): Promise<ApiResponse> {
    const { total, articles } = await slice(p);
    return pagedResponse(req, config, p, total, articles.length, () => ({
      article: articles.map((a) => stockArticle(a, { count: count === 'reserved' ? a.reserved : undefined })),
    }));
  }

  // The stock: `/stock/101` (1-based pages of 100), `?start=0&maxResults=100`, or unpaginated
  // (307 to `/stock/1` when it holds more than 100 articles).
  const listAll = (req: ApiRequest, p: PageRequest) =>
    pagedAnswer(req, p, (q) => listStock(services, idUser(req), {}, q.offset, q.limit));
  const listPage = async (req: ApiRequest) => listAll(req, pageFromPathOrQuery(req.params.start, req.query));
  r.get('/stock', { kinds: USER_KINDS, schema: STOCK_LIST(false) }, listPage);
  r.get('/stock/:start', { kinds: USER_KINDS, schema: STOCK_LIST(true) }, listPage);

  r.post(
    '/stock',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Put articles on sale (at most 100 a request)',
        body: ARTICLES_BODY(NewArticleItem),
        responses: {
          200: Answer({
            inserted: Type.Array(
              Type.Union([Type.Object({ success: Type.Literal(true), idArticle: ArticleSchema }), FAILED]),
            ),
          }),
        },
      },
    },
    async (req) => {
      const items = readItems(readArticles(req.body), parseNewArticle);
      const results = await addArticles(services, idUser(req), items);
      const once = new MappedOnce();
      return ok({
        inserted: presentList(
          results.map((x) =>
            'error' in x ? mapFailedArticle(x) : mapInserted(stockArticle(x.article, { once })),
          ),
        ),
      });
    },
  );

  r.put(
    '/stock',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Change articles (at most 100 a request)',
        body: ARTICLES_BODY(ArticleChangeItem),
        responses: {
          200: Answer({ updatedArticles: Type.Array(ArticleSchema), notUpdatedArticles: Type.Array(FAILED) }),
        },
      },
    },
    async (req) => {
      const items = readItems(readArticles(req.body), parseArticleChange);
      const results = await updateArticles(services, idUser(req), items);
      const options = { once: new MappedOnce() };
      const updated = [];
      const failed = [];
      for (const x of results) {
        if ('error' in x) failed.push(mapFailedArticle(x));
        else updated.push(stockArticle(x.article, options));
      }
      return ok({ updatedArticles: presentList(updated), notUpdatedArticles: presentList(failed) });
    },
  );

  r.delete(
    '/stock',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Take articles off sale (at most 100 a request)',
        body: ARTICLES_BODY(ArticleCountItem),
        responses: {
          200: Answer({
            deleted: Type.Array(
              Type.Object({
                idArticle: Type.Union([Type.Integer(), Type.String(), Type.Null()]),
                count: Type.Union([Type.Integer(), Type.String(), Type.Null()]),
                success: Type.Boolean(),
                message: Type.Optional(Type.String()),
              }),
            ),
          }),
        },
      },
    },
    async (req) => {
      const items = readItems(readArticles(req.body), parseArticleCount);
      const results = await deleteArticles(services, idUser(req), items);
      return ok({ deleted: presentList(results.map(mapDeleted)) });
    },
  );

  const changeAnswer = (results: BulkResult[], once = new MappedOnce()) =>
    ok({
      article: presentList(results.flatMap((x) => ('error' in x ? [] : [stockArticle(x.article, { once })]))),
      failed: presentList(results.flatMap((x) => ('error' in x ? [mapFailedArticle(x)] : []))),
    });
  r.put('/stock/increase', { kinds: USER_KINDS, schema: CHANGE('Add copies to articles') }, async (req) =>
    changeAnswer(await increaseArticles(services, idUser(req), readCountItems(readArticles(req.body)))),
  );
  r.put('/stock/decrease', { kinds: USER_KINDS, schema: CHANGE('Take copies off articles') }, async (req) =>
    changeAnswer(await decreaseArticles(services, idUser(req), readCountItems(readArticles(req.body)))),
  );

  // The article and, beside it, its product in the detailed form (reference §1.6, as recorded).
  r.get(
    '/stock/article/:idArticle',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'One article of the stock, with its product',
        params: { idArticle: IdParam },
        responses: { 200: Answer({ article: ArticleSchema, product: ProductSchema }) },
      },
    },
    async (req) => {
      const a = await getStockArticle(services, idUser(req), idParam(req.params, 'idArticle'));
      const [detail, lang] = await Promise.all([
        productDetail(services, a.view.idProduct),
        viewerLanguage(services, idUser(req)),
      ]);
      return ok({
        article: stockArticle(a, { withProduct: false }),
        product: mapProductDetail(detail, lang),
      });
    },
  );

  r.get(
    '/stock/articles/:name/:idGame',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Stock articles whose product name matches',
        params: {
          name: Type.String({
            minLength: 1,
            pattern: '\\S',
            description: 'A name or part of one (not blank).',
          }),
          idGame: IdParam,
        },
        query: pageQuery(),
        paginated: true,
        responses: { 200: ARTICLES },
      },
    },
    async (req) => {
      const idGame = idParam(req.params, 'idGame');
      const name = req.params.name ?? '';
      return page(req, (p) => searchStock(services, idUser(req), name, idGame, p.offset, p.limit));
    },
  );

  r.get(
    '/stock/products/:idProduct',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Stock articles of one product',
        params: { idProduct: IdParam },
        query: pageQuery(),
        paginated: true,
        responses: { 200: ARTICLES },
      },
    },
    async (req) => {
      const idProduct = idParam(req.params, 'idProduct');
      return page(req, (p) => listStockOfProduct(services, idUser(req), idProduct, p.offset, p.limit));
    },
  );

  // Own articles with copies in other users' carts; `count` is the copies reserved.
  r.get(
    '/stock/shoppingcart-articles',
    {
      kinds: USER_KINDS,
      schema: {
        summary: "Own articles with copies in other users' carts (`count`: the copies reserved)",
        query: pageQuery(),
        paginated: true,
        responses: { 200: ARTICLES },
      },
    },
    async (req) => page(req, (p) => listReservedStock(services, idUser(req), p.offset, p.limit), 'reserved'),
  );

  // The whole stock of one game as a gzipped CSV, base64 in the document; streamed.
  r.get(
    '/stock/file',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'The stock of one game as a file (base64 of a gzipped CSV)',
        query: {
          idGame: Type.Integer({ minimum: 1, maximum: MAX_ID }),
          isSealed: BoolParam,
          idLanguage: Type.Integer({ ...LANGUAGE_ID_RANGE, description: 'Only articles in this language.' }),
        },
        responses: {
          200: Answer({ stock: Type.String({ contentEncoding: 'base64' }), mime: Type.String() }),
        },
      },
    },
    async (req) => {
      const idGame = integer(req.query, 'idGame', { min: 1, max: MAX_ID }) ?? 1;
      const isSealed = boolean(req.query, 'isSealed') ?? false;
      const idLanguage = integer(req.query, 'idLanguage', { min: 1, max: MAX_ID });
      const filter = { idGame, isSingle: !isSealed, idLanguage };
      await checkStockFileFilter(services, filter);
      return {
        status: 200,
        headers: { 'Content-Type': CONTENT_TYPES[req.format] },
        payload: gzippedBase64Document(
          req.format,
          'stock',
          'application/x-gzip',
          stockCsv(services, idUser(req), filter),
        ),
      };
    },
  );
}
