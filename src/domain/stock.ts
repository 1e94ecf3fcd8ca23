import { ApiError } from '../errors.js';
import { type ArticleView, insertArticles, loadArticleViews, type ProductFacts } from '../store/articles.js';
import type { Tx } from '../store/db.js';
import { reservedCounts } from '../store/reservations.js';
import { appendEvents } from '../store/events.js';
import type { Article } from '../store/schema.js';
import {
  applyArticleChanges,
  type ArticleChange,
  deleteSoldOutArticles,
  type LockedArticle,
  lockedStockRows,
  lockSellerStock,
  productFactsOfListings,
  stockArticlesByIds,
  stockRowsWithPrices,
} from '../store/stock.js';
import type { DomainContext } from './context.js';
import { EVENTS } from './events.js';
import {
  type ArticleAttributes,
  type ArticleChangeInput,
  type ArticleCountInput,
  attributesOf,
  type BulkFailure,
  type BulkItem,
  changedAttributes,
  checkBulkSize,
  failureOf,
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
 * request is one transaction: its articles are read in one statement (under lock), decided one
 * after the other in memory, and an article that fails is reported in the answer without stopping
 * the others; the outcome is then written set-based (`WorkingSet.write`). Counts change only
 * through guarded SQL (`store/stock.ts`), so copies a buyer reserves at the same moment are never
 * taken twice; copies in carts are never deleted, decreased or changed by the seller.
 */

/** An article as a stock answer shows it: the row with product facts, and its copies in carts. */
export interface StockArticle {
  view: ArticleView;
  reserved: number;
}

/** An article of the request that was not written, and why. */
/** `field`: the input field at fault, when the error names one (the website shows it there). */
type Failure = BulkFailure;

export type BulkResult = { tried: unknown; article: StockArticle } | Failure;

interface Entry {
  row: Article;
  /** Copies in carts (known for the articles a request names; merge targets need not know). */
  reserved: number;
  /** The count read under lock (articles the request names); null for merge targets. */
  expected: number | null;
  /** Copies added (or taken, when negative) by the request so far. */
  delta: number;
  /** Written by the request (copies or attributes). */
  touched: boolean;
  /** The attributes were changed in place. */
  changed: boolean;
  /** The attributes as read, before the first change in place. */
  before?: ArticleAttributes;
  /** A new article the request creates: its `row.idArticle` is a placeholder (negative) until written. */
  fresh: boolean;
  /** Sold out by the request: deleted when the plan is written. */
  deleted: boolean;
}

/**
 * The seller's articles a request touches, and what the request does to them. The request is
 * decided article by article in memory, exactly as if each article's statements ran in turn (a
 * request naming one article twice, or merging into an article it created, sees its own changes);
 * `write` then applies the sum in a few set-based statements: one update of every changed
 * article, one insert of the new ones, one delete of the sold-out ones. The rows were read under
 * lock (`lockedStockRows`) and the seller's stock writes are serialized, so the plan holds when it
 * is written; the statements still guard every count in SQL, and a row that no longer matches
 * the plan aborts the transaction (`StalePlan`), which `stockWrite` runs again from a fresh read.
 */
class WorkingSet {
  private readonly byId = new Map<number, Entry>();
  /**
   * By product, the entries an article equal in every attribute finds (`findEqual`): of the entries
   * equal to one another, the one whose attributes were set last, as a map by `identityKey` would
   * keep it. Compared field by field (`sameAttributes`): building the eleven-field key of every
   * article three times a request, and hashing it, was a tenth of the domain's time.
   */
  private readonly byProduct = new Map<number, Entry[]>();
  private readonly entries: Entry[] = [];
  /** Product facts of the named articles, by product and language (`factsKey`). */
  private readonly facts = new Map<string, ProductFacts>();
  private nextPlaceholder = -1;

  /** Product facts in a language, for the answer's articles of that product in that language. */
  addFacts(facts: ProductFacts, idLanguage: number): void {
    this.facts.set(`${facts.idProduct}:${idLanguage}`, facts);
  }
  /** An article the request names, read under lock with its product's facts. */
  addNamed({ row, product, reserved }: LockedArticle): Entry {
    this.facts.set(factsKey(row), product);
    return this.add(row, reserved, row.count);
  }

  add(row: Article, reserved: number, expected: number | null = null, fresh = false): Entry {
    const entry: Entry = {
      row,
      reserved,
      expected,
      delta: 0,
      touched: false,
      changed: false,
      fresh,
      deleted: false,
    };
    this.entries.push(entry);
    this.byId.set(row.idArticle, entry);
    this.key(entry);
    return entry;
  }
  /** An article the request names; an id that is not the seller's is not in the stock. */
  named(idArticle: number): Entry {
    const entry = idArticle > 0 ? this.byId.get(idArticle) : undefined;
    if (!entry) throw notInStock(idArticle);
    return entry;
  }
  /** An article of the seller equal in every attribute, other than `except`. */
  findEqual(attrs: ArticleAttributes, except?: number): Entry | undefined {
    const keyed = this.byProduct.get(attrs.idProduct);
    if (keyed === undefined) return undefined;
    for (const e of keyed) {
      if (sameAttributes(e.row, attrs)) return e.row.idArticle === except ? undefined : e;
    }
    return undefined;
  }
  /** A new article with these attributes and copies, written with the rest of the plan. */
  create(attrs: ArticleAttributes, idUser: number, count: number, now: number): Entry {
    // Named field by field: new keys after a spread cost V8 about a microsecond each (a slow
    // path), which on a hundred articles was a tenth of a POST /stock's own CPU.
    const row: Article = {
      idArticle: this.nextPlaceholder--,
      idUser,
      idProduct: attrs.idProduct,
      idLanguage: attrs.idLanguage,
      comments: attrs.comments,
      price: attrs.price,
      condition: attrs.condition,
      isFoil: attrs.isFoil,
      isSigned: attrs.isSigned,
      isAltered: attrs.isAltered,
      isPlayset: attrs.isPlayset,
      isFirstEd: attrs.isFirstEd,
      isReverseHolo: attrs.isReverseHolo,
      count,
      createdAt: now,
      lastEdited: now,
    };
    const entry = this.add(row, 0, null, true);
    entry.touched = true;
    return entry;
  }
  adjust(entry: Entry, n: number): void {
    entry.row.count += n;
    if (!entry.fresh) entry.delta += n;
    entry.touched = true;
  }
  /** `before`: the entry's attributes as they are now, when the caller has them already. */
  setAttributes(entry: Entry, attrs: ArticleAttributes, before?: ArticleAttributes): void {
    this.unkey(entry);
    entry.before ??= before ?? attributesOf(entry.row);
    Object.assign(entry.row, attrs);
    this.key(entry);
    entry.changed = true;
    entry.touched = true;
  }
  /** Plans the deletion of an article left with no copies, none in a cart either; true when it does. */
  deleteIfSoldOut(entry: Entry): boolean {
    if (entry.row.count !== 0 || entry.reserved !== 0) return false;
    this.byId.delete(entry.row.idArticle);
    this.unkey(entry);
    entry.deleted = true;
    return true;
  }
  /**
   * Copies in carts of the articles this request already knows them of: those it named (read under
   * lock at the start, the count the request was decided on; a buyer can neither reserve nor
   * release them meanwhile) and those it created (no buyer has seen them yet); `ids` maps the
   * created ones' placeholders.
   */
  knownReserved(ids: Map<number, number>): Map<number, number> {
    const known = new Map<number, number>();
    for (const e of this.entries) {
      if (e.fresh) known.set(ids.get(e.row.idArticle)!, 0);
      else if (e.expected !== null) known.set(e.row.idArticle, e.reserved);
    }
    return known;
  }
  /**
   * The answer's articles as they are once the plan is written, built from the plan itself where
   * it knows every field: the articles the request named (read under lock, so their counts are
   * the ones the write was guarded on) and those it created, when their product's facts in their
   * language were read with the named ones. Merge targets (read without a lock) and articles whose
   * language changed to one not read are left out: the caller reads those. `ids` maps the created
   * ones' placeholders; `now` is the time the plan was written at (`lastEdited` of every written row).
   */
  writtenViews(ids: Map<number, number>, now: number): Map<number, StockArticle> {
    const out = new Map<number, StockArticle>();
    for (const e of this.entries) {
      if (e.deleted || (e.expected === null && !e.fresh)) continue;
      const product = this.facts.get(factsKey(e.row));
      if (product === undefined) continue;
      const r = e.row;
      const idArticle = e.fresh ? ids.get(r.idArticle)! : r.idArticle;
      const view: ArticleView = {
        idArticle,
        idUser: r.idUser,
        idProduct: r.idProduct,
        idLanguage: r.idLanguage,
        comments: r.comments,
        price: r.price,
        condition: r.condition,
        isFoil: r.isFoil,
        isSigned: r.isSigned,
        isAltered: r.isAltered,
        isPlayset: r.isPlayset,
        isFirstEd: r.isFirstEd,
        isReverseHolo: r.isReverseHolo,
        count: r.count,
        createdAt: r.createdAt,
        lastEdited: e.touched ? now : r.lastEdited,
        product,
      };
      out.set(idArticle, { view, reserved: e.fresh ? 0 : e.reserved });
    }
    return out;
  }
  /** Makes `entry` the one its attributes find, in place of an equal one found so far. */
  private key(entry: Entry): void {
    const row = entry.row;
    const keyed = this.byProduct.get(row.idProduct);
    if (keyed === undefined) {
      this.byProduct.set(row.idProduct, [entry]);
      return;
    }
    for (let i = 0; i < keyed.length; i++) {
      if (sameAttributes(keyed[i]!.row, row)) {
        keyed[i] = entry;
        return;
      }
    }
    keyed.push(entry);
  }
  /** `entry`'s attributes no longer find anything, when they found it. */
  private unkey(entry: Entry): void {
    const keyed = this.byProduct.get(entry.row.idProduct);
    const i = keyed === undefined ? -1 : keyed.indexOf(entry);
    if (i !== -1) keyed!.splice(i, 1);
  }

  /**
   * Writes the plan; returns the ids the new articles got (placeholder → id). Every statement's
   * guard must hold for every row, or nothing of the request may stay.
   */
  async write(tx: Tx, idUser: number, now: number): Promise<Map<number, number>> {
    const changes: ArticleChange[] = [];
    const created: Entry[] = [];
    const soldOut: number[] = [];
    for (const e of this.entries) {
      if (!e.touched) continue;
      if (e.fresh) {
        created.push(e);
        continue;
      }
      changes.push({
        idArticle: e.row.idArticle,
        expected: e.expected,
        delta: e.delta,
        // The row itself: nothing changes it before the statement has read it.
        attributes: e.changed ? e.row : undefined,
        priceOnly: e.before !== undefined && sameAttributes(e.before, e.row, true),
      });
      if (e.deleted) soldOut.push(e.row.idArticle);
    }
    if ((await applyArticleChanges(tx, idUser, changes, now, MAX_COPIES)) !== changes.length)
      throw new StalePlan();
    const rows = await insertArticles(
      tx,
      created.map(({ row: r }) => ({
        idUser,
        idProduct: r.idProduct,
        idLanguage: r.idLanguage,
        comments: r.comments,
        price: r.price,
        condition: r.condition,
        isFoil: r.isFoil,
        isSigned: r.isSigned,
        isAltered: r.isAltered,
        isPlayset: r.isPlayset,
        isFirstEd: r.isFirstEd,
        isReverseHolo: r.isReverseHolo,
        count: r.count,
        createdAt: now,
        lastEdited: now,
      })),
    );
    // Rows come back in no promised order; within a request every new article's attributes differ.
    const byKey = new Map(rows.map((r) => [identityKey(r), r.idArticle]));
    const ids = new Map(created.map((e) => [e.row.idArticle, byKey.get(identityKey(e.row))!]));
    if ((await deleteSoldOutArticles(tx, soldOut)) !== soldOut.length) throw new StalePlan();
    return ids;
  }
}

const factsKey = (row: Article) => `${row.idProduct}:${row.idLanguage}`;

/** A stock row no longer matched the plan made from it: the request runs again from a fresh read. */
class StalePlan extends Error {
  constructor() {
    super('a stock row changed under a planned bulk write');
  }
}

/** The articles a request names (read under lock, with their copies in carts), and others to merge into. */
function loadWorkingSet(named: LockedArticle[], others: Article[] = []): WorkingSet {
  const set = new WorkingSet();
  const ids = new Set(named.map((r) => r.row.idArticle));
  for (const r of others) if (!ids.has(r.idArticle)) set.add(r, 0);
  for (const article of named) set.addNamed(article);
  return set;
}

type Outcome = { tried: unknown; idArticle: number; gone?: ArticleView } | Failure;

/**
 * The answers' articles as they are once everything is written at `now` (`ids` maps placeholders):
 * built from the plan where it knows them (`writtenViews`), read for the rest; the copies in carts
 * are read only for articles `set` does not know them of (merge targets).
 */
async function finish(
  tx: Tx,
  set: WorkingSet,
  outcomes: Outcome[],
  now: number,
  ids = new Map<number, number>(),
): Promise<BulkResult[]> {
  const real = (id: number) => (id < 0 ? ids.get(id)! : id);
  const views = set.writtenViews(ids, now);
  const missing = new Set<number>();
  for (const o of outcomes) {
    if ('idArticle' in o && !o.gone && !views.has(real(o.idArticle))) missing.add(real(o.idArticle));
  }
  const wanted = [...missing];
  if (wanted.length > 0) {
    const known = set.knownReserved(ids);
    const read = await reservedCounts(
      tx,
      wanted.filter((id) => !known.has(id)),
    );
    for (const view of await loadArticleViews(tx, wanted)) {
      views.set(view.idArticle, {
        view,
        reserved: known.get(view.idArticle) ?? read.get(view.idArticle) ?? 0,
      });
    }
  }
  return outcomes.map((o) => {
    if ('error' in o) return o;
    if (o.gone) return { tried: o.tried, article: { view: { ...o.gone, count: 0 }, reserved: 0 } };
    const article = views.get(real(o.idArticle));
    // Every id here was written in this transaction; a missing one would be a bug, not bad input.
    if (!article) throw new Error(`article ${o.idArticle} vanished inside its own transaction`);
    return { tried: o.tried, article };
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

/** Times a request is planned again after its rows changed under it (PostgreSQL only). */
const STALE_RETRIES = 3;

/**
 * One stock write: the request's size checked, then one transaction holding the seller's lock. A
 * plan that no longer matches its rows rolls the transaction back and runs again from a fresh read.
 */
async function stockWrite<T>(
  ctx: DomainContext,
  idUser: number,
  items: unknown[],
  write: (tx: Tx, now: number) => Promise<T>,
): Promise<T> {
  checkBulkSize(items.length);
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.database.transaction(async (tx) => {
        await lockSellerStock(tx, idUser);
        return write(tx, ctx.clock.now());
      });
    } catch (err) {
      if (!(err instanceof StalePlan) || attempt >= STALE_RETRIES) throw err;
    }
  }
}

/**
 * Decides the request's articles one after the other. An article that could not be read, or that
 * `apply` refuses with an API error, is answered as a failure; the others go on.
 */
function eachItem<I, O>(items: BulkItem<I>[], apply: (input: I, tried: unknown) => O): Array<O | Failure> {
  const out: Array<O | Failure> = [];
  for (const item of items) {
    if ('error' in item) {
      out.push(item);
      continue;
    }
    try {
      out.push(apply(item.input, item.tried));
    } catch (err) {
      out.push(failureOf(item.tried, err));
    }
  }
  return out;
}

/**
 * POST /stock: new articles; one equal in every attribute to an existing one (or to one earlier in
 * the same request) adds to its count.
 */
export async function addArticles(
  ctx: DomainContext,
  idUser: number,
  items: BulkItem<NewArticleInput>[],
): Promise<BulkResult[]> {
  return stockWrite(ctx, idUser, items, async (tx, now) => {
    await assertMaySell(tx, idUser);
    // The products' facts in the articles' languages: the rules the articles are checked against,
    // and what the answer shows of the articles this request creates (never read back).
    const products = await productFactsOfListings(
      tx,
      items.flatMap((i): Array<[number, number]> =>
        'input' in i ? [[i.input.idProduct, i.input.idLanguage ?? 1]] : [],
      ),
    );
    const candidates = items.flatMap((i): Array<[number, number]> =>
      'input' in i ? [[i.input.idProduct, i.input.price]] : [],
    );
    const set = loadWorkingSet([], await stockRowsWithPrices(tx, idUser, candidates));
    for (const byLanguage of products.values()) {
      for (const [idLanguage, facts] of byLanguage) set.addFacts(facts, idLanguage);
    }
    const increased: number[] = [];
    const createdIds: number[] = [];
    const outcomes: Outcome[] = eachItem(items, (input, tried) => {
      const product = products.get(input.idProduct)?.values().next().value;
      if (!product)
        throw new ApiError(400, `Product ${input.idProduct} does not exist.`, {
          field: 'idProduct',
          reason: 'unknown_product',
        });
      const attrs = newArticleAttributes(input, product);
      const equal = set.findEqual(attrs);
      if (equal) {
        if (equal.row.count + input.count > MAX_COPIES)
          throw tooManyCopies(equal.fresh ? 0 : equal.row.idArticle);
        set.adjust(equal, input.count);
        if (!equal.fresh) increased.push(equal.row.idArticle);
        return { tried, idArticle: equal.row.idArticle };
      }
      const created = set.create(attrs, idUser, input.count, now);
      createdIds.push(created.row.idArticle);
      return { tried, idArticle: created.row.idArticle };
    });
    const ids = await set.write(tx, idUser, now);
    await announce(tx, [...increased, ...createdIds.map((id) => ids.get(id)!)], now);
    return finish(tx, set, outcomes, now, ids);
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
    const named = await lockedStockRows(tx, idUser, namedIds(items));
    // The named articles' products, read with them (every article's product exists).
    const products = new Map<number, ProductRules>(named.map((r) => [r.row.idProduct, r.product]));
    // An item compares the article with the price it sends (or its own, when it sends none) to
    // the seller's articles: the equal ones it may merge into are among the seller's articles of
    // that product at that price. (An article's price changed by an earlier item is the price
    // that item sent; a named article or one the request creates is in the set anyway.)
    const byId = new Map(named.map((r) => [r.row.idArticle, r.row]));
    const candidates: Array<[number, number]> = [];
    for (const i of items) {
      const row = 'input' in i ? byId.get(i.input.idArticle) : undefined;
      if (row && 'input' in i) candidates.push([row.idProduct, i.input.price ?? row.price]);
    }
    const set = loadWorkingSet(named, await stockRowsWithPrices(tx, idUser, candidates));
    const listed: number[] = [];
    const outcomes = eachItem(items, (input, tried) => ({
      tried,
      idArticle: updateOne(set, products, idUser, input, now, listed),
    }));
    const ids = await set.write(tx, idUser, now);
    await announce(
      tx,
      listed.map((id) => (id < 0 ? ids.get(id)! : id)),
      now,
    );
    return finish(tx, set, outcomes, now, ids);
  });
}

function updateOne(
  set: WorkingSet,
  products: Map<number, ProductRules>,
  idUser: number,
  input: ArticleChangeInput,
  now: number,
  listed: number[],
): number {
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
    set.setAttributes(entry, after, before);
    if (after.price < before.price) listed.push(row.idArticle);
    return row.idArticle;
  }

  // Split the copies off (or move them all, when some of the article sit in carts).
  if (equal && equal.row.count + input.count > MAX_COPIES) {
    throw tooManyCopies(equal.fresh ? 0 : equal.row.idArticle);
  }
  set.adjust(entry, -input.count);
  let target: number;
  if (equal) {
    target = equal.row.idArticle;
    set.adjust(equal, input.count);
  } else {
    target = set.create(after, idUser, input.count, now).row.idArticle;
  }
  set.deleteIfSoldOut(entry);
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
    const set = loadWorkingSet(await lockedStockRows(tx, idUser, namedIds(items)));
    const outcomes = eachItem(items, (input, tried) => {
      removeCopies(set, input, 'deleted');
      return { tried, idArticle: input.idArticle, count: input.count };
    });
    await set.write(tx, idUser, now);
    return outcomes;
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
    const set = loadWorkingSet(await lockedStockRows(tx, idUser, namedIds(items)));
    const outcomes = eachItem(items, (input, tried) => {
      const gone = removeCopies(set, input, 'decreased');
      return { tried, idArticle: input.idArticle, gone: gone ? lastSeen.get(gone) : undefined };
    });
    await set.write(tx, idUser, now);
    return finish(tx, set, outcomes, now);
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
    const set = loadWorkingSet(await lockedStockRows(tx, idUser, namedIds(items)));
    const listed: number[] = [];
    const outcomes = eachItem(items, (input, tried) => {
      const entry = set.named(input.idArticle);
      if (entry.row.count + input.count > MAX_COPIES) throw tooManyCopies(input.idArticle);
      set.adjust(entry, input.count);
      listed.push(input.idArticle);
      return { tried, idArticle: input.idArticle };
    });
    await set.write(tx, idUser, now);
    await announce(tx, listed, now);
    return finish(tx, set, outcomes, now);
  });
}

function namedIds(items: BulkItem<{ idArticle: number }>[]): number[] {
  const ids = new Set<number>();
  for (const i of items) if ('input' in i) ids.add(i.input.idArticle);
  return [...ids];
}

/** Takes copies away; returns the article's id when that removes it altogether. */
function removeCopies(set: WorkingSet, input: ArticleCountInput, verb: string): number | undefined {
  const entry = set.named(input.idArticle);
  const { row } = entry;
  if (input.count > row.count) {
    throw notEnoughCopies(row.idArticle, input.count, row.count, entry.reserved, verb);
  }
  set.adjust(entry, -input.count);
  return set.deleteIfSoldOut(entry) ? row.idArticle : undefined;
}

function tooManyCopies(idArticle: number) {
  return new ApiError(
    400,
    idArticle
      ? `Article ${idArticle} would hold more than ${MAX_COPIES} copies.`
      : `One article may hold at most ${MAX_COPIES} copies.`,
    { field: 'count', reason: 'too_many_copies', params: { max: MAX_COPIES } },
  );
}
