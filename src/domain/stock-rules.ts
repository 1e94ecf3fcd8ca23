import { ApiError, badRequest } from '../errors.js';
import type { Article } from '../store/schema.js';
import type { ArticleAttributeRow } from '../store/stock.js';
import { ARTICLE_FLAGS, type ArticleFlag, gameRules } from './catalog.js';

/**
 * The rules an article of a seller's stock obeys (spec §2.5, reference §2.10, §2.13), apart from
 * the wire: what a request may set, the defaults, and which articles are "the same" (and merge).
 */

/** Most articles in one stock write (spec §8). */
export const MAX_ARTICLES_PER_REQUEST = 100;
/** Most copies one article may hold: a sanity bound, far above any real seller's. */
export const MAX_COPIES = 100_000;
/** Longest comment on an article. */
export const MAX_COMMENT_LENGTH = 500;

export type FlagInput = Partial<Record<ArticleFlag, boolean>>;

/** What a POST /stock article asked for, read from the wire but not yet checked against its product. */
export interface NewArticleInput {
  idProduct: number;
  count: number;
  idLanguage?: number;
  comments?: string;
  price: number;
  condition?: string;
  flags: FlagInput;
}

/** What a PUT /stock article asked for: the article, how many of its copies, and what changes. */
export interface ArticleChangeInput {
  idArticle: number;
  count: number;
  idLanguage?: number;
  comments?: string;
  price?: number;
  condition?: string;
  flags: FlagInput;
}

/** DELETE /stock, PUT /stock/increase and /stock/decrease: an article and a number of copies. */
export interface ArticleCountInput {
  idArticle: number;
  count: number;
}

/**
 * One `<article>` of a bulk request: what was sent (echoed back as `tried` when it fails) and its
 * parsed form, or why it could not even be read.
 */
/** A per-article refusal: the API's message and field, and the error itself for the pages' texts. */
export type BulkFailure = { tried: unknown; error: string; field?: string; cause?: ApiError };
export type BulkItem<T> = { tried: unknown; input: T } | BulkFailure;

/** The attributes that make an offer; two articles of one seller equal in all of them are one. */
export type ArticleAttributes = Pick<Article, 'idProduct'> & ArticleAttributeRow;

export interface ProductRules {
  idGame: number;
  isSingle: number;
}

export function identityKey(a: ArticleAttributes): string {
  return [
    a.idProduct,
    a.idLanguage,
    a.price,
    a.condition ?? '',
    a.isFoil,
    a.isSigned,
    a.isAltered,
    a.isPlayset,
    a.isFirstEd,
    a.isReverseHolo,
    a.comments,
  ].join('\u0001');
}

/**
 * `identityKey(a) === identityKey(b)`, without building the two keys; `exceptPrice`: whatever
 * their prices.
 */
export function sameAttributes(a: ArticleAttributes, b: ArticleAttributes, exceptPrice = false): boolean {
  return (
    a.idProduct === b.idProduct &&
    a.idLanguage === b.idLanguage &&
    (exceptPrice || a.price === b.price) &&
    (a.condition ?? '') === (b.condition ?? '') &&
    a.isFoil === b.isFoil &&
    a.isSigned === b.isSigned &&
    a.isAltered === b.isAltered &&
    a.isPlayset === b.isPlayset &&
    a.isFirstEd === b.isFirstEd &&
    a.isReverseHolo === b.isReverseHolo &&
    a.comments === b.comments
  );
}

/** Condition is graded only on single cards of games that grade it. */
function checkCondition(condition: string | undefined, product: ProductRules): void {
  if (condition === undefined) return;
  if (!product.isSingle || !gameRules(product.idGame).gradesCondition) {
    throw badRequest('A condition applies only to single cards; this product is not graded by condition.', {
      field: 'condition',
      reason: 'condition_sealed',
    });
  }
}

/**
 * Flags that describe a single card. A sealed product keeps only first edition (sealed first-edition
 * boosters exist, in the games that have the flag).
 */
const SINGLE_ONLY_FLAGS: readonly ArticleFlag[] = [
  'isFoil',
  'isSigned',
  'isAltered',
  'isPlayset',
  'isReverseHolo',
];

/**
 * A flag the product's game does not have may be sent as false (clients often send every flag),
 * never as true; the same for a card's flags on a sealed product.
 */
function checkFlags(flags: FlagInput, product: ProductRules): void {
  const allowed = gameRules(product.idGame).flags;
  for (const flag of ARTICLE_FLAGS) {
    if (flags[flag] === true && !product.isSingle && SINGLE_ONLY_FLAGS.includes(flag)) {
      throw badRequest(`"${flag}" applies only to single cards; this product is sealed.`, {
        field: flag,
        reason: 'flag_sealed',
      });
    }
    if (flags[flag] === true && !allowed.includes(flag)) {
      throw badRequest(
        `"${flag}" does not apply to products of this game (idGame ${product.idGame}); it has ${allowed.join(', ')}.`,
        { field: flag, reason: 'flag_other_game' },
      );
    }
  }
}

/** A new article's attributes: defaults NM (singles only), English, no flags, no comment. */
export function newArticleAttributes(input: NewArticleInput, product: ProductRules): ArticleAttributes {
  checkCondition(input.condition, product);
  checkFlags(input.flags, product);
  const graded = product.isSingle === 1 && gameRules(product.idGame).gradesCondition;
  const flag = (f: ArticleFlag) => (input.flags[f] ? 1 : 0);
  return {
    idProduct: input.idProduct,
    idLanguage: input.idLanguage ?? 1,
    comments: input.comments ?? '',
    price: input.price,
    condition: graded ? (input.condition ?? 'NM') : null,
    isFoil: flag('isFoil'),
    isSigned: flag('isSigned'),
    isAltered: flag('isAltered'),
    isPlayset: flag('isPlayset'),
    isFirstEd: flag('isFirstEd'),
    isReverseHolo: flag('isReverseHolo'),
  };
}

/** An article's attributes after a PUT: what was sent replaces, the rest stays. */
export function changedAttributes(
  current: ArticleAttributes,
  input: ArticleChangeInput,
  product: ProductRules,
): ArticleAttributes {
  checkCondition(input.condition, product);
  checkFlags(input.flags, product);
  const flag = (f: ArticleFlag) => (input.flags[f] === undefined ? current[f] : input.flags[f] ? 1 : 0);
  return {
    idProduct: current.idProduct,
    idLanguage: input.idLanguage ?? current.idLanguage,
    comments: input.comments ?? current.comments,
    price: input.price ?? current.price,
    condition: input.condition ?? current.condition,
    isFoil: flag('isFoil'),
    isSigned: flag('isSigned'),
    isAltered: flag('isAltered'),
    isPlayset: flag('isPlayset'),
    isFirstEd: flag('isFirstEd'),
    isReverseHolo: flag('isReverseHolo'),
  };
}

/** The attributes alone, of an article or of an order line (which keeps them as sold). */
export function attributesOf(a: ArticleAttributes): ArticleAttributes {
  return {
    idProduct: a.idProduct,
    idLanguage: a.idLanguage,
    comments: a.comments,
    price: a.price,
    condition: a.condition,
    isFoil: a.isFoil,
    isSigned: a.isSigned,
    isAltered: a.isAltered,
    isPlayset: a.isPlayset,
    isFirstEd: a.isFirstEd,
    isReverseHolo: a.isReverseHolo,
  };
}

/** 0 articles or more than 100 in one stock write: the whole request is refused. */
export function checkBulkSize(n: number): void {
  if (n === 0) {
    throw badRequest('Send at least one <article> element.', { field: 'article' });
  }
  if (n > MAX_ARTICLES_PER_REQUEST) {
    throw badRequest(
      `At most ${MAX_ARTICLES_PER_REQUEST} articles per request (got ${n}); nothing was changed.`,
      { field: 'article' },
    );
  }
}

/** "1 copy", "3 copies": the messages about an article's copies. */
export const copies = (n: number) => `${n} ${n === 1 ? 'copy' : 'copies'}`;

/** Why `wanted` copies of an article cannot be taken: says how many sit in shopping carts. */
export function notEnoughCopies(
  idArticle: number,
  wanted: number,
  available: number,
  reserved: number,
  verb: string,
): ApiError {
  if (reserved > 0) {
    return badRequest(
      `Only ${copies(available)} of article ${idArticle} can be ${verb}: ${copies(reserved)} ${reserved === 1 ? 'is' : 'are'} in shopping carts (asked for ${wanted}).`,
      { field: 'count', reason: 'copies_in_carts', params: { available, reserved } },
    );
  }
  return badRequest(`Article ${idArticle} has only ${copies(available)} (asked for ${wanted}).`, {
    field: 'count',
    reason: 'copies_short',
    params: { available },
  });
}

export function notInStock(idArticle: number): ApiError {
  return badRequest(`Article ${idArticle} is not in your stock.`, {
    field: 'idArticle',
    code: 'not_in_stock',
    reason: 'not_in_stock',
  });
}

/** The message of a per-article failure; anything that is not an API error is a real fault. */
export function failureMessage(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  throw err;
}

/** The field a per-article failure names, if any (`{}` otherwise), beside its message. */
export function failureField(err: unknown): { field?: string } {
  return err instanceof ApiError && err.field ? { field: err.field } : {};
}

/** One article's refusal (anything but an `ApiError` is a fault and rethrown). */
export function failureOf(tried: unknown, err: unknown): BulkFailure {
  return { tried, error: failureMessage(err), ...failureField(err), cause: err as ApiError };
}
