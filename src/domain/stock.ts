import { ApiError } from '../errors.js';
import { type ArticleView, insertArticle, insertArticles, loadArticleViews } from '../store/articles.js';
import type { Tx } from '../store/db.js';
import { appendEvents } from '../store/events.js';
import type { Article } from '../store/schema.js';
import { reservedCounts } from '../store/reservations.js';
import {
  addCopies,
  deleteSoldOutArticles,
  lockSellerStock,
  productRules,
  stockArticlesByIds,
  stockRowsByIds,
  stockRowsWithPrices,
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
  failureField,
  failureMessage,
  identityKey,
  MAX_COPIES,
  type NewArticleInput,
  newArticleAttributes,
  notEnoughCopies,
  notInStock,
  type ProductRules,
  sameAttributes,
} from './stock-rules.js';
import { assertMaySell } from './seller-activation.js';

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

/** An article of the request that was not written, and why. */
/** `field`: the input field at fault, when the error names one (the website shows it there). */
type Failure = { tried: unknown; error: string; field?: string };

export type BulkResult = { tried: unknown; article: StockArticle } | Failure;

interface Entry {
  row: Article;
  /** Copies in carts (known for the articles a request names; merge targets need not know). */
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

  add(row: Article, reserved: number): Entry {
    const entry = { row, reserved };
    this.byId.set(row.idArticle, entry);
    this.byKey.set(identityKey(row), row.idArticle);
    return entry;
  }
  /** An article the request names; an id that is not the seller's is not in the stock. */
  named(idArticle: number): Entry {
    const entry = this.byId.get(idArticle);
    if (!entry) throw notInStock(idArticle);
    return entry;
  }
  /** An article of the seller equal in every attribute, other than `except`. */
  findEqual(attrs: ArticleAttributes, except?: number): Entry | undefined {
    const id = this.byKey.get(identityKey(attrs));
    return id === undefined || id === except ? undefined : this.byId.get(id);
  }
  setAttributes(entry: Entry, attrs: ArticleAttributes): void {
    this.unkey(entry);
    Object.assign(entry.row, attrs);
    this.byKey.set(identityKey(entry.row), entry.row.idArticle);
  }
  remove(entry: Entry): void {
    this.byId.delete(entry.row.idArticle);
    this.unkey(entry);
  }
  private unkey(entry: Entry): void {
    const key = identityKey(entry.row);
    if (this.byKey.get(key) === entry.row.idArticle) this.byKey.delete(key);
  }
  /** Deletes an article left with no copies, none in a cart either; true when it did. */
  async deleteIfSoldOut(tx: Tx, entry: Entry): Promise<boolean> {
    if (entry.row.count !== 0 || entry.reserved !== 0) return false;
    if ((await deleteSoldOutArticles(tx, [entry.row.idArticle])) !== 1) return false;
    this.remove(entry);
    return true;
  }
  /** Re-reads an entry after a conditional update lost a race with a buyer's cart. */
  async refresh(tx: Tx, idUser: number, entry: Entry): Promise<Entry | undefined> {
    this.remove(entry);
    const [row] = await stockRowsByIds(tx, idUser, [entry.row.idArticle]);
    if (!row) return undefined;
    const reserved = (await reservedCounts(tx, [row.idArticle])).get(row.idArticle) ?? 0;
    return this.add(row, reserved);
  }
}

/** The articles a request names (with their copies in carts), and others to merge into. */
async function loadWorkingSet(tx: Tx, named: Article[], others: Article[] = []): Promise<WorkingSet> {
  const reserved = await reservedCounts(
    tx,
    named.map((r) => r.idArticle),
  );
  const set = new WorkingSet();
  for (const r of others) set.add(r, 0);
  for (const r of named) set.add(r, reserved.get(r.idArticle) ?? 0);
  return set;
}

type Outcome = { tried: unknown; idArticle: number; gone?: ArticleView } | Failure;

/** The answers' articles as they are once everything is written. */
async function finish(tx: Tx, outcomes: Outcome[]): Promise<BulkResult[]> {
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

/** The articles that became available or cheaper: the wants-list alerts read these events. */
async function announce(tx: Tx, idArticles: Iterable<number>, now: number): Promise<void> {
  const events = [...new Set(idArticles)].map((idArticle) => ({
    type: EVENTS.articleListed,
    payload: { idArticle },
  }));
  await appendEvents(tx, events, now);
}

/** One stock write: the request's size checked, then one transaction holding the seller's lock. */
async function stockWrite<T>(
  ctx: DomainContext,
  idUser: number,
  items: unknown[],
  write: (tx: Tx, now: number) => Promise<T>,
): Promise<T> {
  checkBulkSize(items.length);
  return ctx.database.transaction(async (tx) => {
    await lockSellerStock(tx, idUser);
    return write(tx, ctx.clock.now());
  });
}

/**
 * Applies `apply` to the request's articles one after the other. An article that could not be
 * read, or that `apply` refuses with an API error, is answered as a failure; the others go on.
 */
async function eachItem<I, O>(
  items: BulkItem<I>[],
  apply: (input: I, tried: unknown) => Promise<O>,
): Promise<Array<O | Failure>> {
  const out: Array<O | Failure> = [];
  for (const item of items) {
    if ('error' in item) {
      out.push(item);
      continue;
    }
    try {
      out.push(await apply(item.input, item.tried));
    } catch (err) {
      out.push({ tried: item.tried, error: failureMessage(err), ...failureField(err) });
    }
  }
  return out;
}

/**
 * POST /stock: new articles; one equal in every attribute to an existing one (or to one earlier in
 * the same request) adds to its count. The plan is made in memory, then written in a few
 * statements: the count increases, one multi-row insert, one insert of the events.
 */
export async function addArticles(
  ctx: DomainContext,
  idUser: number,
  items: BulkItem<NewArticleInput>[],
): Promise<BulkResult[]> {
  return stockWrite(ctx, idUser, items, async (tx, now) => {
    await assertMaySell(tx, idUser);
    const idProducts = [...new Set(items.flatMap((i) => ('input' in i ? [i.input.idProduct] : [])))];
    const products = await productRules(tx, idProducts);
    const candidates = items.flatMap((i): Array<[number, number]> =>
      'input' in i ? [[i.input.idProduct, i.input.price]] : [],
    );
    const set = await loadWorkingSet(tx, [], await stockRowsWithPrices(tx, idUser, candidates));
    const increases = new Map<number, number>();
    const fresh = new Map<string, { attrs: ArticleAttributes; count: number }>();
    const planned = await eachItem(items, async (input, tried) => {
      const product = products.get(input.idProduct);
      if (!product) throw badRequestField(`Product ${input.idProduct} does not exist.`, 'idProduct');
      const attrs = newArticleAttributes(input, product);
      const equal = set.findEqual(attrs);
      if (equal) {
        if (equal.row.count + input.count > MAX_COPIES) throw tooManyCopies(equal.row.idArticle);
        equal.row.count += input.count;
        increases.set(equal.row.idArticle, (increases.get(equal.row.idArticle) ?? 0) + input.count);
        return { tried, existing: equal.row.idArticle };
      }
      const key = identityKey(attrs);
      const twin = fresh.get(key);
      if (twin) {
        if (twin.count + input.count > MAX_COPIES) throw tooManyCopies(0);
        twin.count += input.count;
      } else {
        fresh.set(key, { attrs, count: input.count });
      }
      return { tried, key };
    });
    for (const [idArticle, n] of increases) await addCopies(tx, idArticle, n, now);
    const rows = await insertArticles(
      tx,
      [...fresh.values()].map(({ attrs, count }) => ({
        ...attrs,
        idUser,
        count,
        createdAt: now,
        lastEdited: now,
      })),
    );
    // Rows come back in no promised order; within a request every new article's attributes differ.
    const created = new Map(rows.map((r) => [identityKey(r), r.idArticle]));
    const outcomes: Outcome[] = planned.map((p) =>
      'error' in p ? p : { tried: p.tried, idArticle: p.existing ?? created.get(p.key!)! },
    );
    await announce(tx, [...increases.keys(), ...created.values()], now);
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
  return stockWrite(ctx, idUser, items, async (tx, now) => {
    const named = await stockRowsByIds(tx, idUser, namedIds(items));
    const products = await productRules(tx, [...new Set(named.map((r) => r.idProduct))]);
    // Every price an article named here can reach is its own or one sent for it: the equal
    // articles it may merge into are among the seller's articles of that product at those prices.
    const byId = new Map(named.map((r) => [r.idArticle, r]));
    const candidates = items.flatMap((i): Array<[number, number]> => {
      const row = 'input' in i ? byId.get(i.input.idArticle) : undefined;
      if (!row || !('input' in i)) return [];
      return [
        [row.idProduct, row.price],
        ...(i.input.price === undefined ? [] : [[row.idProduct, i.input.price] as [number, number]]),
      ];
    });
    const set = await loadWorkingSet(tx, named, await stockRowsWithPrices(tx, idUser, candidates));
    const listed: number[] = [];
    const outcomes = await eachItem(items, async (input, tried) => ({
      tried,
      idArticle: await updateOne(tx, set, products, idUser, input, now, listed),
    }));
    await announce(tx, listed, now);
    return finish(tx, outcomes);
  });
}

async function updateOne(
  tx: Tx,
  set: WorkingSet,
  products: Map<number, ProductRules>,
  idUser: number,
  input: ArticleChangeInput,
  now: number,
  listed: number[],
): Promise<number> {
  const entry = set.named(input.idArticle);
  const { row } = entry;
  const available = row.count;
  if (input.count > available) {
    throw notEnoughCopies(row.idArticle, input.count, available, entry.reserved, 'changed');
  }
  const before = attributesOf(row);
  const after = changedAttributes(before, input, products.get(row.idProduct)!);
  if (sameAttributes(before, after)) return row.idArticle;

  const equal = set.findEqual(after, row.idArticle);
  if (!equal && input.count === available && entry.reserved === 0) {
    if (!(await updateInPlace(tx, row.idArticle, available, after, now))) {
      await set.refresh(tx, idUser, entry);
      throw raced(row.idArticle);
    }
    set.setAttributes(entry, after);
    row.lastEdited = now;
    if (after.price < before.price) listed.push(row.idArticle);
    return row.idArticle;
  }

  // Split the copies off (or move them all, when some of the article sit in carts).
  if (equal && equal.row.count + input.count > MAX_COPIES) throw tooManyCopies(equal.row.idArticle);
  if (!(await takeCopies(tx, row.idArticle, input.count, now))) {
    await set.refresh(tx, idUser, entry);
    throw raced(row.idArticle);
  }
  row.count -= input.count;
  let target: number;
  if (equal) {
    target = equal.row.idArticle;
    await addCopies(tx, target, input.count, now);
    equal.row.count += input.count;
  } else {
    const created = await insertArticle(tx, {
      ...after,
      idUser,
      count: input.count,
      createdAt: now,
      lastEdited: now,
    });
    target = created.idArticle;
    set.add(created, 0);
  }
  await set.deleteIfSoldOut(tx, entry);
  listed.push(target);
  return target;
}

/** DELETE /stock: removes copies; an article left with none (and none in carts) is deleted. */
export async function deleteArticles(
  ctx: DomainContext,
  idUser: number,
  items: BulkItem<ArticleCountInput>[],
): Promise<Array<{ tried: unknown; idArticle: number; count: number } | Failure>> {
  return stockWrite(ctx, idUser, items, async (tx, now) => {
    const set = await loadWorkingSet(tx, await stockRowsByIds(tx, idUser, namedIds(items)));
    return eachItem(items, async (input, tried) => {
      await removeCopies(tx, set, idUser, input, now, 'deleted');
      return { tried, idArticle: input.idArticle, count: input.count };
    });
  });
}

/** PUT /stock/decrease: like DELETE, answering the articles as they are afterwards. */
export async function decreaseArticles(
  ctx: DomainContext,
  idUser: number,
  items: BulkItem<ArticleCountInput>[],
): Promise<BulkResult[]> {
  return stockWrite(ctx, idUser, items, async (tx, now) => {
    // Full views up front: an article decreased to nothing is answered as it was, with count 0.
    const views = await stockArticlesByIds(tx, idUser, namedIds(items));
    const lastSeen = new Map(views.map((v) => [v.idArticle, v]));
    const set = await loadWorkingSet(tx, views);
    const outcomes = await eachItem(items, async (input, tried) => {
      const gone = await removeCopies(tx, set, idUser, input, now, 'decreased');
      return { tried, idArticle: input.idArticle, gone: gone ? lastSeen.get(gone) : undefined };
    });
    return finish(tx, outcomes);
  });
}

/** PUT /stock/increase: more copies of existing articles. */
export async function increaseArticles(
  ctx: DomainContext,
  idUser: number,
  items: BulkItem<ArticleCountInput>[],
): Promise<BulkResult[]> {
  return stockWrite(ctx, idUser, items, async (tx, now) => {
    await assertMaySell(tx, idUser);
    const set = await loadWorkingSet(tx, await stockRowsByIds(tx, idUser, namedIds(items)));
    const listed: number[] = [];
    const outcomes = await eachItem(items, async (input, tried) => {
      const entry = set.named(input.idArticle);
      if (
        entry.row.count + input.count > MAX_COPIES ||
        !(await addCopies(tx, input.idArticle, input.count, now, MAX_COPIES))
      ) {
        throw tooManyCopies(input.idArticle);
      }
      entry.row.count += input.count;
      listed.push(input.idArticle);
      return { tried, idArticle: input.idArticle };
    });
    await announce(tx, listed, now);
    return finish(tx, outcomes);
  });
}

function namedIds(items: BulkItem<{ idArticle: number }>[]): number[] {
  return [...new Set(items.flatMap((i) => ('input' in i ? [i.input.idArticle] : [])))];
}

/** Takes copies away; returns the article's id when that removed it altogether. */
async function removeCopies(
  tx: Tx,
  set: WorkingSet,
  idUser: number,
  input: ArticleCountInput,
  now: number,
  verb: string,
): Promise<number | undefined> {
  const entry = set.named(input.idArticle);
  const { row } = entry;
  if (input.count > row.count) {
    throw notEnoughCopies(row.idArticle, input.count, row.count, entry.reserved, verb);
  }
  if (!(await takeCopies(tx, row.idArticle, input.count, now))) {
    const fresh = await set.refresh(tx, idUser, entry);
    throw notEnoughCopies(row.idArticle, input.count, fresh?.row.count ?? 0, fresh?.reserved ?? 0, verb);
  }
  row.count -= input.count;
  row.lastEdited = now;
  return (await set.deleteIfSoldOut(tx, entry)) ? row.idArticle : undefined;
}

function tooManyCopies(idArticle: number) {
  return badRequestField(
    idArticle
      ? `Article ${idArticle} would hold more than ${MAX_COPIES} copies.`
      : `One article may hold at most ${MAX_COPIES} copies.`,
    'count',
  );
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
