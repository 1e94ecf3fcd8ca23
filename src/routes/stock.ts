import {
  addArticles,
  type BulkResult,
  decreaseArticles,
  deleteArticles,
  increaseArticles,
  type StockArticle,
  updateArticles,
} from '../domain/stock.js';
import { stockCsv } from '../domain/stock-file.js';
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
import { type PageRequest, pagedResponse, pageFromPath, pageFromQuery } from '../http/pagination.js';
import { type ApiRequest, type ApiResponse, ok, type Router, USER_KINDS } from '../http/routing.js';
import type { XmlObject } from '../http/xml.js';
import { mapArticle } from '../mappers/article.js';
import type { Services } from '../services.js';
import {
  parseArticleChange,
  parseArticleCount,
  parseNewArticle,
  readArticles,
  readCountItems,
  readItems,
} from './stock-input.js';

/** A stock article as every stock answer shows it: `inShoppingCart` when copies sit in carts. */
const stockArticle = (a: StockArticle, count?: number) =>
  mapArticle(a.view, { context: 'stock', inShoppingCart: a.reserved > 0, count });

const failure = (r: { tried: unknown; error: string }) => ({
  success: false,
  tried: r.tried,
  error: r.error,
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
      article: articles.map((a) => stockArticle(a, count === 'reserved' ? a.reserved : undefined)),
    }));
  }

  // The stock: `/stock/101` (1-based pages of 100), `?start=0&maxResults=100`, or unpaginated
  // (307 to `/stock/1` when it holds more than 100 articles).
  const listAll = (req: ApiRequest, p: PageRequest) =>
    pagedAnswer(req, p, (q) => listStock(services, idUser(req), {}, q.offset, q.limit));
  r.get('/stock', { kinds: USER_KINDS }, async (req) => {
    const queried = req.query.start !== undefined || req.query.maxResults !== undefined;
    return listAll(req, queried ? pageFromQuery(req.query) : pageFromPath(undefined));
  });
  r.get('/stock/:start', { kinds: USER_KINDS }, async (req) => listAll(req, pageFromPath(req.params.start)));

  r.post('/stock', { kinds: USER_KINDS }, async (req) => {
    const items = readItems(readArticles(req.body), parseNewArticle);
    const results = await addArticles(services, idUser(req), items);
    return ok({
      inserted: results.map((x) =>
        'error' in x ? failure(x) : { success: true, idArticle: stockArticle(x.article) },
      ),
    });
  });

  r.put('/stock', { kinds: USER_KINDS }, async (req) => {
    const items = readItems(readArticles(req.body), parseArticleChange);
    const results = await updateArticles(services, idUser(req), items);
    return ok({
      updatedArticles: results.flatMap((x) => ('error' in x ? [] : [stockArticle(x.article)])),
      notUpdatedArticles: results.flatMap((x) => ('error' in x ? [failure(x)] : [])),
    });
  });

  r.delete('/stock', { kinds: USER_KINDS }, async (req) => {
    const items = readItems(readArticles(req.body), parseArticleCount);
    const results = await deleteArticles(services, idUser(req), items);
    return ok({
      deleted: results.map((x) =>
        'error' in x
          ? {
              idArticle: echoNumber(x.tried, 'idArticle'),
              count: echoNumber(x.tried, 'count') ?? echoNumber(x.tried, 'amount'),
              success: false,
              message: x.error,
            }
          : { idArticle: x.idArticle, count: x.count, success: true },
      ),
    });
  });

  const changeAnswer = (results: BulkResult[]) =>
    ok({
      article: results.flatMap((x) => ('error' in x ? [] : [stockArticle(x.article)])),
      failed: results.flatMap((x) => ('error' in x ? [failure(x)] : [])),
    });
  r.put('/stock/increase', { kinds: USER_KINDS }, async (req) =>
    changeAnswer(await increaseArticles(services, idUser(req), readCountItems(readArticles(req.body)))),
  );
  r.put('/stock/decrease', { kinds: USER_KINDS }, async (req) =>
    changeAnswer(await decreaseArticles(services, idUser(req), readCountItems(readArticles(req.body)))),
  );

  r.get('/stock/article/:idArticle', { kinds: USER_KINDS }, async (req) => {
    const article = await getStockArticle(services, idUser(req), idParam(req.params, 'idArticle'));
    return ok({ article: stockArticle(article) });
  });

  r.get('/stock/articles/:name/:idGame', { kinds: USER_KINDS }, async (req) => {
    const idGame = idParam(req.params, 'idGame');
    const name = req.params.name ?? '';
    return page(req, (p) => searchStock(services, idUser(req), name, idGame, p.offset, p.limit));
  });

  r.get('/stock/products/:idProduct', { kinds: USER_KINDS }, async (req) => {
    const idProduct = idParam(req.params, 'idProduct');
    return page(req, (p) => listStockOfProduct(services, idUser(req), idProduct, p.offset, p.limit));
  });

  // Own articles with copies in other users' carts; `count` is the copies reserved.
  r.get('/stock/shoppingcart-articles', { kinds: USER_KINDS }, async (req) =>
    page(req, (p) => listReservedStock(services, idUser(req), p.offset, p.limit), 'reserved'),
  );

  // The whole stock of one game as a gzipped CSV, base64 in the document; streamed.
  r.get('/stock/file', { kinds: USER_KINDS }, async (req) => {
    const idGame = integer(req.query, 'idGame', { min: 1, max: MAX_ID }) ?? 1;
    const isSealed = boolean(req.query, 'isSealed') ?? false;
    const idLanguage = integer(req.query, 'idLanguage', { min: 1, max: MAX_ID });
    const filter = { idGame, isSingle: !isSealed, idLanguage };
    return {
      status: 200,
      headers: { 'Content-Type': CONTENT_TYPES[req.format] },
      payload: gzippedBase64Document(
        req.format,
        'stock',
        'application/x-gzip',
        stockCsv(services.database.db, idUser(req), filter),
      ),
    };
  });
}

/** An id or count from a failed article's request, as a number when it is one. */
function echoNumber(tried: unknown, name: string): number | string | null {
  const v = (tried as XmlObject)[name];
  if (typeof v !== 'string') return null;
  return /^\d{1,15}$/.test(v.trim()) ? Number(v.trim()) : v;
}
