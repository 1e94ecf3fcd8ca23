import { Type } from '@sinclair/typebox';
import {
  ARTICLE_FLAGS,
  CONDITIONS,
  isCondition,
  isLanguage,
  LANGUAGE_ID_RANGE,
  LANGUAGES,
} from '../domain/catalog.js';
import { parseArticlePrice, PRICE_PATTERN } from '../domain/money.js';
import {
  type ArticleChangeInput,
  type ArticleCountInput,
  type BulkItem,
  checkBulkSize,
  type FlagInput,
  failureOf,
  MAX_COMMENT_LENGTH,
  MAX_COPIES,
  type NewArticleInput,
} from '../domain/stock-rules.js';
import { badRequest, readEachField } from '../errors.js';
import { requireBody } from '../http/body.js';
import { boolean, MAX_ID, objects, parseInteger, requireInteger, text } from '../http/fields.js';
import type { XmlObject } from '../http/xml.js';

/**
 * Reading the `<article>` elements of stock writes (spec §2.5, reference §2.13). A malformed
 * element fails on its own, reported in the answer with what was sent; only a request that is
 * wrong as a whole (no articles, more than 100, a non-integer amount for increase/decrease) is a 400.
 */

/** The `<article>` elements of a stock write, at most 100. */
export function readArticles(body: XmlObject | undefined): XmlObject[] {
  const articles = objects(requireBody(body, '<article>…</article>'), 'article');
  checkBulkSize(articles.length);
  return articles;
}

/** Parses each article on its own: a bad one becomes an item with its error, the rest go on. */
export function readItems<T>(articles: XmlObject[], parse: (a: XmlObject) => T): BulkItem<T>[] {
  return articles.map((tried) => {
    try {
      return { tried, input: parse(tried) };
    } catch (err) {
      return failureOf(tried, err);
    }
  });
}

/** `count`, or `amount` as the spec's examples spell it: a positive whole number of copies. */
export function copiesOf(a: XmlObject, required = true): number | undefined {
  const count = text(a, 'count');
  const amount = text(a, 'amount');
  const c = count !== undefined && count.trim() !== '' ? parseCopies(count, 'count') : undefined;
  const m = amount !== undefined && amount.trim() !== '' ? parseCopies(amount, 'amount') : undefined;
  if (c !== undefined && m !== undefined && c !== m) {
    throw badRequest(`"count" (${c}) and "amount" (${m}) disagree; send one of them.`, {
      field: 'count',
      reason: 'count_amount_disagree',
    });
  }
  const n = c ?? m;
  if (n === undefined && required) {
    throw badRequest('"amount" (or "count"), the number of copies, is required.', {
      field: 'amount',
      reason: 'required',
    });
  }
  return n;
}

const COPIES = { min: 1, max: MAX_COPIES };
const parseCopies = (v: string, name: string) => parseInteger(v, name, COPIES);

/** `idLanguage`, or `language` holding the id (or a Language entity with one); both must agree. */
function languageOf(a: XmlObject): number | undefined {
  const byId = languageField(text(a, 'idLanguage'), 'idLanguage');
  let byLanguage: number | undefined;
  if (a.language !== undefined) {
    const lang = a.language;
    const raw =
      typeof lang === 'object' && !Array.isArray(lang) ? text(lang, 'idLanguage') : text(a, 'language');
    byLanguage = languageField(raw, 'language');
  }
  if (byId !== undefined && byLanguage !== undefined && byId !== byLanguage) {
    throw badRequest(`"idLanguage" (${byId}) and "language" (${byLanguage}) disagree; send one of them.`, {
      field: 'idLanguage',
      reason: 'language_disagree',
    });
  }
  return byId ?? byLanguage;
}

function languageField(raw: string | undefined, field: string): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const id = parseInteger(raw, field, { min: 1, max: 1000 });
  if (!isLanguage(id)) {
    const known = Object.entries(LANGUAGES)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    throw badRequest(`Unknown language ${id}; use one of ${known}.`, { field, reason: 'unknown_language' });
  }
  return id;
}

function commentsOf(a: XmlObject): string | undefined {
  const c = text(a, 'comments');
  if (c !== undefined && c.length > MAX_COMMENT_LENGTH) {
    throw badRequest(`"comments" may have at most ${MAX_COMMENT_LENGTH} characters.`, {
      field: 'comments',
      reason: 'too_long_max',
      params: { max: MAX_COMMENT_LENGTH },
    });
  }
  return c;
}

function priceOf(a: XmlObject): number | undefined {
  const p = text(a, 'price');
  return p === undefined || p.trim() === '' ? undefined : parseArticlePrice(p);
}

function conditionOf(a: XmlObject): string | undefined {
  const c = text(a, 'condition')?.trim();
  if (c === undefined || c === '') return undefined;
  if (!isCondition(c)) {
    throw badRequest(`Unknown condition "${c}"; use one of ${CONDITIONS.join(', ')}.`, {
      field: 'condition',
      reason: 'unknown_condition',
    });
  }
  return c;
}

function flagsOf(a: XmlObject): FlagInput {
  const flags: FlagInput = {};
  for (const flag of ARTICLE_FLAGS) {
    const v = boolean(a, flag);
    if (v !== undefined) flags[flag] = v;
  }
  return flags;
}

const ID = { min: 1, max: MAX_ID };

function articleId(a: XmlObject): number {
  return requireInteger(a, 'idArticle', ID);
}

/** Each field's reader, in the order they are read (`readEachField`). */
type Readers<T> = { [K in keyof T]-?: (a: XmlObject) => T[K] };

const NEW_READERS: Readers<NewArticleInput> = {
  idProduct: (a) => requireInteger(a, 'idProduct', ID),
  count: (a) => copiesOf(a)!,
  price: (a) => {
    const price = priceOf(a);
    if (price === undefined) throw badRequest('"price" is required.', { field: 'price', reason: 'required' });
    return price;
  },
  idLanguage: languageOf,
  comments: commentsOf,
  condition: conditionOf,
  flags: flagsOf,
};

/** POST /stock: idProduct, price and a number of copies are required; the rest has defaults. */
export function parseNewArticle(a: XmlObject): NewArticleInput {
  return readEachField(NEW_READERS, a);
}

const CHANGE_READERS: Readers<ArticleChangeInput> = {
  idArticle: articleId,
  count: (a) => copiesOf(a)!,
  idLanguage: languageOf,
  comments: commentsOf,
  price: priceOf,
  condition: conditionOf,
  flags: flagsOf,
};

/** PUT /stock: idArticle and amount are required; any other element present is a change. */
export function parseArticleChange(a: XmlObject): ArticleChangeInput {
  return readEachField(CHANGE_READERS, a);
}

/** DELETE /stock: the article and how many of its copies. */
export function parseArticleCount(a: XmlObject): ArticleCountInput {
  return { idArticle: articleId(a), count: copiesOf(a)! };
}

/**
 * PUT /stock/increase and /stock/decrease: every amount must be a positive integer or the whole
 * request is refused (spec §4.4, since 2 September 2021); a bad idArticle fails on its own.
 */
export function readCountItems(articles: XmlObject[]): BulkItem<ArticleCountInput>[] {
  const counts = articles.map((a) => copiesOf(a)!);
  return readItems(articles, (a) => ({ idArticle: articleId(a), count: counts[articles.indexOf(a)]! }));
}

/*
 * The `<article>` items as the readers above read them, for the OpenAPI document (the readers stay
 * the validators: an item outside its schema fails on its own, listed in the answer's `failed`).
 */
const copies = (description: string) =>
  Type.Integer({ minimum: COPIES.min, maximum: COPIES.max, description });
const COPY_FIELDS = {
  count: Type.Optional(copies('The number of copies (or `amount`; both: they must agree).')),
  amount: Type.Optional(copies('Same as `count`.')),
};
/** `count` or `amount`: at least one of them. */
const COUNT_OR_AMOUNT = { anyOf: [{ required: ['count'] }, { required: ['amount'] }] };
const ARTICLE_FIELDS = {
  idLanguage: Type.Optional(Type.Integer({ ...LANGUAGE_ID_RANGE, description: 'Default 1 (English).' })),
  language: Type.Optional(
    Type.Unknown({
      description: 'The language id, or a Language with `idLanguage` (must agree with `idLanguage`).',
    }),
  ),
  comments: Type.Optional(Type.String({ maxLength: MAX_COMMENT_LENGTH })),
  condition: Type.Optional(Type.String({ enum: [...CONDITIONS], description: 'Singles only.' })),
  ...Object.fromEntries(ARTICLE_FLAGS.map((flag) => [flag, Type.Optional(Type.Boolean())])),
};
const ARTICLE_PRICE = (required: boolean) =>
  Type.String({
    pattern: PRICE_PATTERN,
    description: `Euros, more than 0 and at most 1000000.00${required ? '' : ' (given: a change)'}.`,
  });
const ID_ARTICLE = Type.Integer({ minimum: ID.min, maximum: ID.max, description: 'One of your articles.' });

/** POST /stock (`parseNewArticle`). */
export const NewArticleItem = Type.Object(
  {
    idProduct: Type.Integer({ minimum: ID.min, maximum: ID.max }),
    ...COPY_FIELDS,
    price: ARTICLE_PRICE(true),
    ...ARTICLE_FIELDS,
  },
  COUNT_OR_AMOUNT,
);

/** PUT /stock (`parseArticleChange`): any element beside the id and the copies is a change. */
export const ArticleChangeItem = Type.Object(
  { idArticle: ID_ARTICLE, ...COPY_FIELDS, price: Type.Optional(ARTICLE_PRICE(false)), ...ARTICLE_FIELDS },
  COUNT_OR_AMOUNT,
);

/** DELETE /stock, PUT /stock/increase and /stock/decrease (`parseArticleCount`, `readCountItems`). */
export const ArticleCountItem = Type.Object({ idArticle: ID_ARTICLE, ...COPY_FIELDS }, COUNT_OR_AMOUNT);
