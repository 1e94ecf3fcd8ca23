import { ApiError } from '../errors.js';
import { type ArticleView, loadArticleViews } from '../store/articles.js';
import type { Tx } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import {
  addCopies,
  deleteIfEmpty,
  insertStockArticle,
  lockSellerStock,
  productRules,
  reservedCounts,
  stockArticlesByIds,
  stockArticlesOfProducts,
  takeCopies,
  updateInPlace,
} from '../store/stock.js';
import type { DomainContext } from './context.js';
import { EVENTS } from './events.js';
import {
  type ArticleAttributes,
  type ArticleChangeInput,
  type ArticleCountInput,
  attributesOf,
  type BulkItem,
  changedAttributes,
  checkBulkSize,
  failureMessage,
  identityKey,
  MAX_COPIES,
  type NewArticleInput,
  newArticleAttributes,
  notEnoughCopies,
  notInStock,
  sameAttributes,
} from './stock-rules.js';

/**
 * Bulk writes to a seller's stock (POST/PUT/DELETE /stock, PUT /stock/increase|decrease). Each
 * request is one transaction: the articles are checked and written one after the other inside it,
 * and an article that fails is reported in the answer without stopping the others. Counts change
 * only through conditional SQL (`store/stock.ts`), so copies a buyer reserves at the same moment are
 * never taken twice; copies in carts are never deleted, decreased or changed by the seller.
 */

/** An article as a stock answer shows it: the row with product facts, and its copies in carts. */
export interface StockArticle {
  view: ArticleView;
  reserved: number;
}

export type BulkResult = { tried: unknown; article: StockArticle } | { tried: unknown; error: string };

interface Entry {
  view: ArticleView;
  reserved: number;
}

/**
 * The seller's articles a request touches, kept in step with what the transaction writes, so a
 * request naming one article twice (or merging into an article it created) sees its own changes.
 * The seller's lock (PostgreSQL) or the single writer (SQLite) keeps other stock writes out
 * meanwhile; buyers' reservations can still take copies, which the conditional updates catch.
 */
class WorkingSet {
  private readonly byId = new Map<number, Entry>();
  private readonly byKey = new Map<string, number>();

  add(view: ArticleView, reserved: number): Entry {
    const entry = { view, reserved };
    this.byId.set(view.idArticle, entry);
    this.byKey.set(identityKey(view), view.idArticle);
    return entry;
  }
  get(idArticle: number): Entry | undefined {
    return this.byId.get(idArticle);
  }
  /** An article of the seller equal in every attribute, other than `except`. */
  findEqual(attrs: ArticleAttributes, except?: number): Entry | undefined {
    const id = this.byKey.get(identityKey(attrs));
    return id === undefined || id === except ? undefined : this.byId.get(id);
  }
  setAttributes(entry: Entry, attrs: ArticleAttributes): void {
    if (this.byKey.get(identityKey(entry.view)) === entry.view.idArticle) {
      this.byKey.delete(identityKey(entry.view));
    }
    Object.assign(entry.view, attrs);
    this.byKey.set(identityKey(entry.view), entry.view.idArticle);
  }
  remove(entry: Entry): void {
    this.byId.delete(entry.view.idArticle);
    if (this.byKey.get(identityKey(entry.view)) === entry.view.idArticle) {
      this.byKey.delete(identityKey(entry.view));
    }
  }
  /** Re-reads an entry after a conditional update lost a race with a buyer's cart. */
  async refresh(tx: Tx, idUser: number, entry: Entry): Promise<void> {
    this.remove(entry);
    const [view] = await stockArticlesByIds(tx, idUser, [entry.view.idArticle]);
    if (view) {
      const reserved = (await reservedCounts(tx, [view.idArticle])).get(view.idArticle) ?? 0;
      this.add(view, reserved);
    }
  }
}

async function loadWorkingSet(tx: Tx, views: ArticleView[]): Promise<WorkingSet> {
  const reserved = await reservedCounts(
    tx,
    views.map((v) => v.idArticle),
  );
  const set = new WorkingSet();
  for (const v of views) set.add(v, reserved.get(v.idArticle) ?? 0);
  return set;
}

/** The answers' articles as they are once everything is written. */
async function finish(
  tx: Tx,
  outcomes: Array<
    { tried: unknown; idArticle: number; gone?: ArticleView } | { tried: unknown; error: string }
  >,
): Promise<BulkResult[]> {
  const ids = [...new Set(outcomes.flatMap((o) => ('idArticle' in o && !o.gone ? [o.idArticle] : [])))];
  const views = new Map((await loadArticleViews(tx, ids)).map((v) => [v.idArticle, v]));
  const reserved = await reservedCounts(tx, ids);
  return outcomes.map((o) => {
    if ('error' in o) return o;
    if (o.gone) return { tried: o.tried, article: { view: { ...o.gone, count: 0 }, reserved: 0 } };
    const view = views.get(o.idArticle);
    // Every id here was written in this transaction; a missing one would be a bug, not bad input.
    if (!view) throw new Error(`article ${o.idArticle} vanished inside its own transaction`);
    return { tried: o.tried, article: { view, reserved: reserved.get(o.idArticle) ?? 0 } };
  });
}

const listed = (tx: Tx, idArticle: number, now: number) =>
  appendEvent(tx, EVENTS.articleListed, { idArticle }, now);

/** POST /stock: new articles; one equal in every attribute to an existing one adds to its count. */
export async function addArticles(
  ctx: DomainContext,
  idUser: number,
  items: BulkItem<NewArticleInput>[],
): Promise<BulkResult[]> {
  checkBulkSize(items.length);
  return ctx.database.transaction(async (tx) => {
    await lockSellerStock(tx, idUser);
    const now = ctx.clock.now();
    const idProducts = [...new Set(items.flatMap((i) => ('input' in i ? [i.input.idProduct] : [])))];
    const products = await productRules(tx, idProducts);
    const set = await loadWorkingSet(tx, await stockArticlesOfProducts(tx, idUser, [...products.keys()]));
    const outcomes = [];
    for (const item of items) {
      if ('error' in item) {
        outcomes.push(item);
        continue;
      }
      const { input, tried } = item;
      try {
        const product = products.get(input.idProduct);
        if (!product) throw notFoundProduct(input.idProduct);
        const attrs = newArticleAttributes(input, product);
        const equal = set.findEqual(attrs);
        let idArticle: number;
        if (equal) {
          idArticle = equal.view.idArticle;
          if (equal.view.count + input.count > MAX_COPIES) throw tooManyCopies(idArticle);
          if (!(await addCopies(tx, idArticle, input.count, now, MAX_COPIES))) throw tooManyCopies(idArticle);
          equal.view.count += input.count;
        } else {
          const row = await insertStockArticle(tx, {
            ...attrs,
            idUser,
            count: input.count,
            createdAt: now,
            lastEdited: now,
          });
          idArticle = row.idArticle;
          set.add({ ...row, product: placeholderFacts(row.idProduct, product) }, 0);
        }
        await listed(tx, idArticle, now);
        outcomes.push({ tried, idArticle });
      } catch (err) {
        outcomes.push({ tried, error: failureMessage(err) });
      }
    }
    return finish(tx, outcomes);
  });
}

/**
 * PUT /stock: changes `count` copies of an article. All its available copies and none in a cart:
 * the article changes in place. Fewer, or some in carts: those copies become an article of their
 * own (the rest keeps its attributes). Either way, an article that ends up equal to another of the
 * seller's merges into it, so the answer may carry a different idArticle than the one sent.
 */
export async function updateArticles(
  ctx: DomainContext,
  idUser: number,
  items: BulkItem<ArticleChangeInput>[],
): Promise<BulkResult[]> {
  checkBulkSize(items.length);
  return ctx.database.transaction(async (tx) => {
    await lockSellerStock(tx, idUser);
    const now = ctx.clock.now();
    const ids = [...new Set(items.flatMap((i) => ('input' in i ? [i.input.idArticle] : [])))];
    const named = await stockArticlesByIds(tx, idUser, ids);
    const siblings = await stockArticlesOfProducts(tx, idUser, [...new Set(named.map((v) => v.idProduct))]);
    const set = await loadWorkingSet(tx, siblings);
    const outcomes = [];
    for (const item of items) {
      if ('error' in item) {
        outcomes.push(item);
        continue;
      }
      const { input, tried } = item;
      try {
        const idArticle = await updateOne(tx, set, idUser, input, now);
        outcomes.push({ tried, idArticle });
      } catch (err) {
        outcomes.push({ tried, error: failureMessage(err) });
      }
    }
    return finish(tx, outcomes);
  });
}

async function updateOne(
  tx: Tx,
  set: WorkingSet,
  idUser: number,
  input: ArticleChangeInput,
  now: number,
): Promise<number> {
  const entry = set.get(input.idArticle);
  if (!entry) throw notInStock(input.idArticle);
  const { view } = entry;
  const available = view.count;
  if (input.count > available) {
    throw notEnoughCopies(view.idArticle, input.count, available, entry.reserved, 'changed');
  }
  const before = attributesOf(view);
  const after = changedAttributes(before, input, view.product);
  if (sameAttributes(before, after)) return view.idArticle;

  const equal = set.findEqual(after, view.idArticle);
  if (!equal && input.count === available && entry.reserved === 0) {
    if (!(await updateInPlace(tx, view.idArticle, available, after, now))) {
      await set.refresh(tx, idUser, entry);
      throw raced(view.idArticle);
    }
    set.setAttributes(entry, after);
    view.lastEdited = now;
    if (after.price < before.price) await listed(tx, view.idArticle, now);
    return view.idArticle;
  }

  // Split the copies off (or move them all, when some of the article sit in carts).
  if (equal && equal.view.count + input.count > MAX_COPIES) throw tooManyCopies(equal.view.idArticle);
  if (!(await takeCopies(tx, view.idArticle, input.count, now))) {
    await set.refresh(tx, idUser, entry);
    throw raced(view.idArticle);
  }
  view.count -= input.count;
  let target: number;
  if (equal) {
    target = equal.view.idArticle;
    await addCopies(tx, target, input.count, now);
    equal.view.count += input.count;
  } else {
    const row = await insertStockArticle(tx, {
      ...after,
      idUser,
      count: input.count,
      createdAt: now,
      lastEdited: now,
    });
    target = row.idArticle;
    set.add({ ...row, product: view.product }, 0);
  }
  if (view.count === 0 && entry.reserved === 0 && (await deleteIfEmpty(tx, view.idArticle))) {
    set.remove(entry);
  }
  await listed(tx, target, now);
  return target;
}

/** DELETE /stock: removes copies; an article left with none (and none in carts) is deleted. */
export async function deleteArticles(
  ctx: DomainContext,
  idUser: number,
  items: BulkItem<ArticleCountInput>[],
): Promise<Array<{ tried: unknown; idArticle: number; count: number } | { tried: unknown; error: string }>> {
  checkBulkSize(items.length);
  return ctx.database.transaction(async (tx) => {
    await lockSellerStock(tx, idUser);
    const now = ctx.clock.now();
    const set = await loadNamed(tx, idUser, items);
    const out = [];
    for (const item of items) {
      if ('error' in item) {
        out.push(item);
        continue;
      }
      const { input, tried } = item;
      try {
        await removeCopies(tx, set, idUser, input, now, 'deleted');
        out.push({ tried, idArticle: input.idArticle, count: input.count });
      } catch (err) {
        out.push({ tried, error: failureMessage(err) });
      }
    }
    return out;
  });
}

/** PUT /stock/decrease: like DELETE, answering the articles as they are afterwards. */
export async function decreaseArticles(
  ctx: DomainContext,
  idUser: number,
  items: BulkItem<ArticleCountInput>[],
): Promise<BulkResult[]> {
  checkBulkSize(items.length);
  return ctx.database.transaction(async (tx) => {
    await lockSellerStock(tx, idUser);
    const now = ctx.clock.now();
    const set = await loadNamed(tx, idUser, items);
    const outcomes = [];
    for (const item of items) {
      if ('error' in item) {
        outcomes.push(item);
        continue;
      }
      const { input, tried } = item;
      try {
        const gone = await removeCopies(tx, set, idUser, input, now, 'decreased');
        outcomes.push({ tried, idArticle: input.idArticle, gone });
      } catch (err) {
        outcomes.push({ tried, error: failureMessage(err) });
      }
    }
    return finish(tx, outcomes);
  });
}

/** PUT /stock/increase: more copies of existing articles. */
export async function increaseArticles(
  ctx: DomainContext,
  idUser: number,
  items: BulkItem<ArticleCountInput>[],
): Promise<BulkResult[]> {
  checkBulkSize(items.length);
  return ctx.database.transaction(async (tx) => {
    await lockSellerStock(tx, idUser);
    const now = ctx.clock.now();
    const set = await loadNamed(tx, idUser, items);
    const outcomes = [];
    for (const item of items) {
      if ('error' in item) {
        outcomes.push(item);
        continue;
      }
      const { input, tried } = item;
      try {
        const entry = set.get(input.idArticle);
        if (!entry) throw notInStock(input.idArticle);
        if (
          entry.view.count + input.count > MAX_COPIES ||
          !(await addCopies(tx, input.idArticle, input.count, now, MAX_COPIES))
        ) {
          throw tooManyCopies(input.idArticle);
        }
        entry.view.count += input.count;
        await listed(tx, input.idArticle, now);
        outcomes.push({ tried, idArticle: input.idArticle });
      } catch (err) {
        outcomes.push({ tried, error: failureMessage(err) });
      }
    }
    return finish(tx, outcomes);
  });
}

async function loadNamed(tx: Tx, idUser: number, items: BulkItem<ArticleCountInput>[]): Promise<WorkingSet> {
  const ids = [...new Set(items.flatMap((i) => ('input' in i ? [i.input.idArticle] : [])))];
  return loadWorkingSet(tx, await stockArticlesByIds(tx, idUser, ids));
}

/** Takes copies away; returns the article's last view when that removed it altogether. */
async function removeCopies(
  tx: Tx,
  set: WorkingSet,
  idUser: number,
  input: ArticleCountInput,
  now: number,
  verb: string,
): Promise<ArticleView | undefined> {
  const entry = set.get(input.idArticle);
  if (!entry) throw notInStock(input.idArticle);
  const { view } = entry;
  if (input.count > view.count) {
    throw notEnoughCopies(view.idArticle, input.count, view.count, entry.reserved, verb);
  }
  if (!(await takeCopies(tx, view.idArticle, input.count, now))) {
    await set.refresh(tx, idUser, entry);
    const fresh = set.get(input.idArticle);
    throw notEnoughCopies(view.idArticle, input.count, fresh?.view.count ?? 0, fresh?.reserved ?? 0, verb);
  }
  view.count -= input.count;
  view.lastEdited = now;
  if (view.count === 0 && entry.reserved === 0 && (await deleteIfEmpty(tx, view.idArticle))) {
    set.remove(entry);
    return view;
  }
  return undefined;
}

function notFoundProduct(idProduct: number) {
  return badRequestField(`Product ${idProduct} does not exist.`, 'idProduct');
}
function tooManyCopies(idArticle: number) {
  return badRequestField(`Article ${idArticle} would hold more than ${MAX_COPIES} copies.`, 'count');
}
function raced(idArticle: number) {
  return badRequestField(
    `Article ${idArticle} changed while this request ran (copies were put in a shopping cart); nothing was changed, try again.`,
    'idArticle',
  );
}
function badRequestField(message: string, field: string) {
  return new ApiError(400, message, { field });
}

/**
 * A new row's product facts are only needed to keep the working set consistent (game and kind for
 * later rules in the same request); the answer reloads the full view.
 */
function placeholderFacts(idProduct: number, rules: { idGame: number; isSingle: number }) {
  return {
    idProduct,
    idGame: rules.idGame,
    enName: '',
    locName: '',
    image: '',
    idExpansion: null,
    expansionName: null,
    expansionAbbreviation: null,
    expansionIcon: null,
    number: null,
    rarity: null,
    isSingle: rules.isSingle,
  };
}
