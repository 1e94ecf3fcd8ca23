import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ARTICLE_FLAGS, CONDITIONS, gameRules, LANGUAGES } from '../domain/catalog.js';
import { productOffers } from '../domain/offers.js';
import { findProducts, listGames, productDetail } from '../domain/products.js';
import { offerFilterInput } from '../http/offer-filters.js';
import {
  addArticles,
  type BulkResult,
  decreaseArticles,
  deleteArticles,
  increaseArticles,
  updateArticles,
} from '../domain/stock.js';
import { checkStockFileFilter, parseStockFile, stockCsv } from '../domain/stock-file.js';
import { getStockArticle, listReservedStock, listStock } from '../domain/stock-queries.js';
import type { BulkItem } from '../domain/stock-rules.js';
import { ApiError, badRequest, notFound } from '../errors.js';
import type { XmlObject } from '../http/xml.js';
import { parseArticleChange, parseArticleCount, parseNewArticle, readItems } from '../routes/stock-input.js';
import type { Services } from '../services.js';
import { type Errors, failureText, fields, formErrors, redirectWithFlash, type Values } from './forms.js';
import type { Translator } from './i18n/index.js';
import { LIST_PAGE_SIZE, pageOf, pager, pathId } from './paging.js';
import { render } from './render.js';
import { requireUser } from './session.js';

const NEW_FIELDS = ['idProduct', 'price', 'count', 'idLanguage', 'condition', 'comments', ...ARTICLE_FLAGS];
const CHANGE_FIELDS = ['price', 'idLanguage', 'condition', 'comments', ...ARTICLE_FLAGS];
const LANGUAGE_IDS = Object.keys(LANGUAGES).map(Number);

/** One article of a bulk write from a form: the API's own parser reads it, as it reads XML. */
function oneItem<T>(
  values: Record<string, string>,
  parse: (a: XmlObject) => T,
  keepEmpty: readonly string[] = [],
): BulkItem<T>[] {
  const article: XmlObject = {};
  for (const [k, v] of Object.entries(values)) if (v !== '' || keepEmpty.includes(k)) article[k] = v;
  return readItems([article], parse);
}

/**
 * The one result of a one-article write, as form errors (each beside the field it names, in the
 * reader's language) or the article.
 */
function single(t: Translator, results: BulkResult[], names: readonly string[]) {
  const r = results[0]!;
  if ('error' in r) {
    if (r.cause) return { errors: formErrors(t, r.cause, names) };
    const field = r.field && names.includes(r.field) ? r.field : '_form';
    return { errors: { [field]: r.error } as Errors };
  }
  return { article: r.article };
}

/** Checkboxes of the flags: checked is true, unchecked false (a person's form says both). */
function flagValues(values: Values): Values {
  const out = { ...values };
  for (const f of ARTICLE_FLAGS) out[f] = values[f] === 'true' ? 'true' : 'false';
  return out;
}

/**
 * Selling: the seller's stock with the API's stock filters (name and game as
 * `GET /stock/articles/:name/:idGame`, product, language, singles or sealed as `GET /stock/file`,
 * copies in carts as `GET /stock/shoppingcart-articles`), adding an article after finding its
 * product (`GET /products/find`, `POST /stock`), changing it (`PUT /stock`, `/stock/increase`,
 * `/stock/decrease`), deleting copies (`DELETE /stock`), and the stock file both ways. Every write
 * goes through the same domain functions and the same parsers as the API's bulk requests.
 */
export function stockPages(app: FastifyInstance, services: Services): void {
  const signedIn = { onRequest: requireUser };
  const form = { onRequest: requireUser, preHandler: app.csrfProtection };
  const games = () => listGames(services);

  app.get('/stock', signedIn, async (request, reply) => {
    const q = request.query as Record<string, string | undefined>;
    const idUser = request.user!.idUser;
    const p = pageOf(request, LIST_PAGE_SIZE);
    const num = (v: string | undefined) => (v && /^\d{1,9}$/.test(v) ? Number(v) : undefined);
    const filter = {
      name: q.name?.trim() || undefined,
      idGame: num(q.idGame),
      idProduct: num(q.idProduct),
      idLanguage: num(q.idLanguage),
      isSingle: q.kind === 'single' ? true : q.kind === 'sealed' ? false : undefined,
    };
    const inCarts = q.inCarts === 'true';
    const { total, articles } = inCarts
      ? await listReservedStock(services, idUser, p.offset, p.limit)
      : await listStock(services, idUser, filter, p.offset, p.limit);
    return render(request, reply, 'stock', {
      title: 'stock.title',
      articles,
      query: { ...q },
      inCarts,
      games: await games(),
      languages: LANGUAGE_IDS,
      pager: pager(request, p, total),
    });
  });

  /** How many of the cheapest offers the sell form shows beside the price. */
  const CHEAPEST_SHOWN = 5;

  // Adding: find the product by name first, then the article's form.
  const showNew = async (
    request: FastifyRequest,
    reply: FastifyReply,
    values: Values,
    errors: Errors = {},
  ) => {
    const q = request.query as Record<string, string | undefined>;
    const idProduct = Number(values.idProduct || q.idProduct || 0);
    let found: Awaited<ReturnType<typeof findProducts>> | null = null;
    let searchError: Errors = {};
    const p = pageOf(request, LIST_PAGE_SIZE);
    if (!idProduct && q.search !== undefined) {
      try {
        found = await findProducts(
          services,
          { search: q.search, exact: false, idGame: undefined, idLanguage: undefined },
          p,
        );
      } catch (err) {
        searchError = formErrors(request.t, err, ['search']);
      }
    }
    const product = idProduct ? await productDetail(services, idProduct) : null;
    // The price in view while pricing: the cheapest offers now (GET /articles/:idProduct's first few).
    const cheapest = product
      ? await productOffers(
          services,
          idProduct,
          offerFilterInput({}),
          { offset: 0, limit: CHEAPEST_SHOWN },
          request.user!.idUser,
          product.countOffers,
        )
      : null;
    return render(
      request,
      reply,
      'stock-new',
      {
        title: 'stock.newTitle',
        search: q.search ?? '',
        searchError,
        found,
        pager: found ? pager(request, p, found.total) : null,
        product,
        cheapest,
        rules: product ? gameRules(product.product.idGame) : null,
        values: {
          count: '1',
          idLanguage: '1',
          condition: 'NM',
          ...values,
          idProduct: idProduct ? String(idProduct) : '',
        },
        errors,
        conditions: CONDITIONS,
        languages: LANGUAGE_IDS,
      },
      Object.keys(errors).length > 0 || Object.keys(searchError).length > 0 ? 400 : 200,
    );
  };

  app.get('/stock/new', signedIn, async (request, reply) => showNew(request, reply, {}));

  app.post('/stock/new', form, async (request, reply) => {
    const values = fields(request, NEW_FIELDS);
    try {
      const outcome = single(
        request.t,
        await addArticles(services, request.user!.idUser, oneItem(flagValues(values), parseNewArticle)),
        NEW_FIELDS,
      );
      if (outcome.errors) return showNew(request, reply, values, outcome.errors);
      return redirectWithFlash(reply, `/stock/${outcome.article.view.idArticle}`, 'flash.stock.added');
    } catch (err) {
      return showNew(request, reply, values, formErrors(request.t, err, NEW_FIELDS));
    }
  });

  const showArticle = async (
    request: FastifyRequest,
    reply: FastifyReply,
    idArticle: number,
    failed?: { form: string; values: Values; errors: Errors },
  ) => {
    const a = await stockArticleOr404(request, idArticle);
    return render(
      request,
      reply,
      'stock-article',
      {
        title: 'stock.articleTitle',
        a,
        rules: gameRules(a.view.product.idGame),
        conditions: CONDITIONS,
        languages: LANGUAGE_IDS,
        failed: failed ?? null,
      },
      failed ? 400 : 200,
    );
  };

  /** Another seller's article is not in this stock: the page does not exist (API: 400). */
  const stockArticleOr404 = async (request: FastifyRequest, idArticle: number) => {
    try {
      return await getStockArticle(services, request.user!.idUser, idArticle);
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) throw notFound(err.message);
      throw err;
    }
  };

  const articleId = (request: FastifyRequest) => {
    const id = pathId(request.params, 'idArticle');
    if (id === undefined) throw notFound('There is no such article.', { reason: 'unknown_article' });
    return id;
  };

  app.get('/stock/:idArticle', signedIn, async (request, reply) =>
    showArticle(request, reply, articleId(request)),
  );

  // Attributes change for every available copy at once (PUT /stock with all of them).
  app.post('/stock/:idArticle', form, async (request, reply) => {
    const idArticle = articleId(request);
    const a = await stockArticleOr404(request, idArticle);
    const values = fields(request, CHANGE_FIELDS);
    try {
      const outcome = single(
        request.t,
        await updateArticles(
          services,
          request.user!.idUser,
          oneItem(
            { ...flagValues(values), idArticle: String(idArticle), count: String(a.view.count) },
            parseArticleChange,
            ['comments'],
          ),
        ),
        CHANGE_FIELDS,
      );
      if (outcome.errors)
        return showArticle(request, reply, idArticle, { form: 'change', values, errors: outcome.errors });
      return redirectWithFlash(reply, `/stock/${outcome.article.view.idArticle}`, 'flash.stock.changed');
    } catch (err) {
      return showArticle(request, reply, idArticle, {
        form: 'change',
        values,
        errors: formErrors(request.t, err, CHANGE_FIELDS),
      });
    }
  });

  // The number of copies: the difference goes through PUT /stock/increase or /stock/decrease.
  app.post('/stock/:idArticle/count', form, async (request, reply) => {
    const idArticle = articleId(request);
    const a = await stockArticleOr404(request, idArticle);
    const values = fields(request, ['count']);
    try {
      if (!/^\d{1,6}$/.test(values.count.trim())) {
        throw badRequest(`"count" must be a whole number of copies (got "${values.count}").`, {
          field: 'count',
          reason: 'not_integer',
        });
      }
      const wanted = Number(values.count.trim());
      const delta = wanted - a.view.count;
      if (delta !== 0) {
        const item = oneItem(
          { idArticle: String(idArticle), count: String(Math.abs(delta)) },
          parseArticleCount,
        );
        const write = delta > 0 ? increaseArticles : decreaseArticles;
        const outcome = single(request.t, await write(services, request.user!.idUser, item), ['count']);
        if (outcome.errors)
          return showArticle(request, reply, idArticle, { form: 'count', values, errors: outcome.errors });
      }
      return wanted === 0
        ? redirectWithFlash(reply, '/stock', 'flash.stock.deleted')
        : redirectWithFlash(reply, `/stock/${idArticle}`, 'flash.stock.changed');
    } catch (err) {
      return showArticle(request, reply, idArticle, {
        form: 'count',
        values,
        errors: formErrors(request.t, err, ['count']),
      });
    }
  });

  app.post('/stock/:idArticle/delete', form, async (request, reply) => {
    const idArticle = articleId(request);
    const a = await stockArticleOr404(request, idArticle);
    const results = await deleteArticles(services, request.user!.idUser, [
      { tried: { idArticle }, input: { idArticle, count: a.view.count } },
    ]);
    const r = results[0]!;
    if ('error' in r)
      return showArticle(request, reply, idArticle, {
        form: 'delete',
        values: {},
        errors: { _form: failureText(request.t, r) },
      });
    return redirectWithFlash(reply, '/stock', 'flash.stock.deleted');
  });

  // The stock file: download in the format of GET /stock/file, upload the same format back.
  const showFile = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: Record<string, unknown> = {},
    status = 200,
  ) =>
    render(
      request,
      reply,
      'stock-file',
      {
        title: 'stockFile.title',
        games: await games(),
        languages: LANGUAGE_IDS,
        results: null,
        errors: {},
        csv: '',
        ...extra,
      },
      status,
    );

  app.get('/stock/file', signedIn, async (request, reply) => showFile(request, reply));

  app.get('/stock/file.csv', signedIn, async (request, reply) => {
    const q = request.query as Record<string, string | undefined>;
    // As the API's stock file reads them: a value that is not an id is a 400 (an unknown game 404).
    const id = (name: 'idGame' | 'idLanguage') => {
      const v = q[name]?.trim() ?? '';
      if (v === '') return undefined;
      if (!/^\d{1,9}$/.test(v) || Number(v) < 1)
        throw badRequest(`"${name}" must be an id (got "${v}").`, {
          field: name,
          reason: 'link_id_invalid',
          params: { value: v },
        });
      return Number(v);
    };
    const idGame = id('idGame') ?? 1;
    const filter = { idGame, isSingle: q.isSealed !== 'true', idLanguage: id('idLanguage') };
    await checkStockFileFilter(services, filter);
    const chunks: string[] = [];
    for await (const chunk of stockCsv(services, request.user!.idUser, filter)) chunks.push(chunk);
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="stock-${idGame}.csv"`)
      .send(chunks.join(''));
  });

  app.post('/stock/file', form, async (request, reply) => {
    const { csv } = fields(request, ['csv']);
    const idUser = request.user!.idUser;
    let rows;
    try {
      rows = parseStockFile(csv);
    } catch (err) {
      return showFile(request, reply, { errors: formErrors(request.t, err, ['file']), csv }, 400);
    }
    // New rows are one POST /stock, rows naming an article one PUT /stock: each answers per row.
    const fresh = rows.filter((r) => r.idArticle === '');
    const changed = rows.filter((r) => r.idArticle !== '');
    const added = fresh.length
      ? await addArticles(
          services,
          idUser,
          readItems(
            fresh.map((r) => r.article),
            parseNewArticle,
          ),
        )
      : [];
    const updated = changed.length
      ? await updateArticles(
          services,
          idUser,
          readItems(
            changed.map((r) => r.article),
            parseArticleChange,
          ),
        )
      : [];
    const results = [
      ...fresh.map((r, i) => ({ line: r.line, kind: 'added', result: added[i]! })),
      ...changed.map((r, i) => ({ line: r.line, kind: 'changed', result: updated[i]! })),
    ]
      .sort((x, y) => x.line - y.line)
      .map((r) => ({ ...r, text: 'error' in r.result ? failureText(request.t, r.result) : '' }));
    return showFile(request, reply, { results });
  });
}
