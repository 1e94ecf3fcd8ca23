import { type ArticleFlag, gameRules, languageName } from '../domain/catalog.js';
import type { ArticleView, ProductFacts } from '../store/articles.js';
import type { ShownUser } from '../store/users.js';
import { type Static, Type } from '@sinclair/typebox';
import { CompiledTree, xmlElement, xmlBytes, type XmlWriter } from '../http/xml.js';
import { boolTo, intTo, moneyTo, type Tag, tag, textTo, WrittenOnce } from './compiled-xml.js';
import { mapShortProduct, ShortProductSchema } from './product.js';
import { mapUser, publicUserTo, type UserContext, UserSchema } from './user.js';
import {
  bool,
  BoolSchema,
  link,
  LinksSchema,
  MappedOnce,
  Money,
  money,
  MoneySchema,
  Nullable,
  timestamp,
  TimestampSchema,
} from './values.js';

const flag = (what: string) =>
  Type.Optional(Type.Boolean({ description: `${what}; only for games whose cards have it.` }));

export const ArticleSchema = Type.Object(
  {
    idArticle: Type.Integer(),
    idProduct: Type.Integer(),
    language: Type.Object({ idLanguage: Type.Integer(), languageName: Type.String() }),
    comments: Type.String(),
    price: MoneySchema,
    idCurrency: Type.Literal(1),
    currencyCode: Type.Literal('EUR'),
    prices: Type.Optional(
      Type.Array(
        Type.Object({ price: MoneySchema, idCurrency: Type.Integer(), currencyCode: Type.String() }),
        {
          description: 'Marketplace offers only: the price in every currency.',
        },
      ),
    ),
    count: Type.Integer(),
    inShoppingCart: BoolSchema,
    product: Type.Optional(ShortProductSchema),
    seller: Type.Optional(UserSchema),
    lastEdited: Type.Optional(Nullable(TimestampSchema)),
    onSale: Type.Optional(BoolSchema),
    condition: Type.Optional(
      Nullable(
        Type.String({ enum: ['MT', 'NM', 'EX', 'GD', 'LP', 'PL', 'PO'], description: 'Single cards only.' }),
      ),
    ),
    isFoil: flag('Foil'),
    isReverseHolo: flag('Reverse holo'),
    isSigned: flag('Signed'),
    isPlayset: flag('A playset of four'),
    isAltered: flag('Altered'),
    isFirstEd: flag('First edition'),
    links: LinksSchema,
  },
  {
    $id: 'Article',
    description:
      'Article (reference §2.10): an offer. In the marketplace with `prices` and `seller`; in the own stock with `lastEdited` and `onSale`; in a cart or order `count` and `price` are those reserved or bought.',
  },
);
export type Article = Static<typeof ArticleSchema>;

/**
 * The Article entity (reference §2.10), the same everywhere it appears, with the context rules:
 *  - `marketplace`: someone else's offer; carries `seller` and the `prices` in every currency;
 *  - `stock`: the caller's own article; no seller, adds `lastEdited` and `onSale`;
 *  - `cart` / `order`: copies reserved or bought; `count` is the copies in the cart or order and
 *    `price` the price they are held or were bought at.
 * `condition` appears only for single cards, and only the flags the product's game has.
 */
export type ArticleContext = 'marketplace' | 'stock' | 'cart' | 'order';

export interface ArticleMapOptions {
  context: ArticleContext;
  /** The seller (marketplace, cart, order). */
  seller?: ShownUser;
  sellerContext?: UserContext;
  /** Whether copies of it sit in a shopping cart (the caller's, or for stock anyone's). */
  inShoppingCart?: boolean;
  /** Copies in the cart or order, where that differs from the article's available count. */
  count?: number;
  /** Cents: the frozen price of an order line. */
  price?: number;
  /**
   * Whether the short product rides inside (default). `GET /stock/article/:id` sends the detailed
   * Product beside the article instead, and the real API then leaves it out of the article.
   */
  withProduct?: boolean;
  /**
   * For a page of articles: its sellers and products mapped (and written) once each, however many
   * of its articles they appear in.
   */
  once?: MappedOnce;
}

export function mapArticle(view: ArticleView, options: ArticleMapOptions): Article {
  const article = articleTree(view, options);
  // A page of articles (the only mapping with a memo) is written by the compiled writer below;
  // typed as the tree it stands for, which both formats render it as.
  return options.once
    ? (new CompiledTree(article, articleXml, undefined, (a: Article, out: XmlWriter) =>
        articleTo(a, out, view.product),
      ) as unknown as Article)
    : article;
}

function articleTree(view: ArticleView, options: ArticleMapOptions): Article {
  const { context } = options;
  const price = money(options.price ?? view.price);
  const flags = gameRules(view.product.idGame).flags;
  const article: Article = {
    idArticle: view.idArticle,
    idProduct: view.idProduct,
    language: { idLanguage: view.idLanguage, languageName: languageName(view.idLanguage) },
    comments: view.comments,
    price,
    idCurrency: 1,
    currencyCode: 'EUR',
    prices: context === 'marketplace' ? [{ price, idCurrency: 1, currencyCode: 'EUR' }] : undefined,
    count: options.count ?? view.count,
    inShoppingCart: options.inShoppingCart ?? false,
    product:
      options.withProduct === false
        ? undefined
        : options.once
          ? options.once.of(view.product, mapShortProduct)
          : mapShortProduct(view.product),
    seller: context !== 'stock' && options.seller ? mapSeller(options.seller, options) : undefined,
    lastEdited: context === 'stock' ? timestamp(view.lastEdited) : undefined,
    onSale: context === 'stock' ? view.count > 0 : undefined,
    condition: view.product.isSingle ? view.condition : undefined,
    // The order recorded responses write them in (`isFoil, isSigned, isPlayset, isAltered`).
    isFoil: flagOf(flags, 'isFoil', view),
    isReverseHolo: flagOf(flags, 'isReverseHolo', view),
    isSigned: flagOf(flags, 'isSigned', view),
    isPlayset: flagOf(flags, 'isPlayset', view),
    isAltered: flagOf(flags, 'isAltered', view),
    isFirstEd: flagOf(flags, 'isFirstEd', view),
    links: [
      link('self', context === 'stock' ? `/stock/article/${view.idArticle}` : `/articles/${view.idProduct}`),
      link('product', `/products/${view.idProduct}`),
    ],
  };
  return article;
}

/** Each flag only where the product's game has it; undefined keys are left out of both formats. */
function flagOf(flags: readonly ArticleFlag[], flag: ArticleFlag, view: ArticleView): boolean | undefined {
  return flags.includes(flag) ? bool(view[flag]) : undefined;
}

/** `<name>true</name>`, `<name>false</name>` for each boolean field, built once. */
const BOOLEANS = new Map<string, readonly [string, string]>();
function booleanXml(name: string, value: unknown): string {
  if (typeof value !== 'boolean') return xmlElement(name, value);
  let texts = BOOLEANS.get(name);
  if (texts === undefined) {
    texts = [`<${name}>true</${name}>`, `<${name}>false</${name}>`];
    BOOLEANS.set(name, texts);
  }
  return value ? texts[0] : texts[1];
}

/** An integer field: its tags written out by the caller, so they are constants. */
const integerXml = (open: string, value: unknown, close: string, name: string): string =>
  typeof value === 'number' ? open + value + close : xmlElement(name, value);

/** A link's opening up to its `href`, for the rels articles carry, when its method is GET. */
const LINK_OPENINGS = new Map([
  ['self', '<links><rel>self</rel>'],
  ['product', '<links><rel>product</rel>'],
]);

/**
 * The Article's XML children, compiled for its schema: the constant runs between values are one
 * string each, so an article is a few dozen pieces instead of the generic walk's hundred and more.
 * Byte for byte what the generic writer gives for the same tree (`article.test.ts` compares them
 * for every context); anything not of its usual type goes through the generic writer.
 */
function articleXml(a: Article): string {
  let out =
    integerXml('<idArticle>', a.idArticle, '</idArticle>', 'idArticle') +
    integerXml('<idProduct>', a.idProduct, '</idProduct>', 'idProduct') +
    (typeof a.language === 'object' && a.language !== null
      ? integerXml('<language><idLanguage>', a.language.idLanguage, '</idLanguage>', 'idLanguage') +
        xmlElement('languageName', a.language.languageName) +
        '</language>'
      : xmlElement('language', a.language)) +
    xmlElement('comments', a.comments) +
    // Cents written as digits and a point: nothing to escape.
    (a.price instanceof Money ? '<price>' + a.price.toXml() + '</price>' : xmlElement('price', a.price)) +
    (a.idCurrency === 1 && a.currencyCode === 'EUR'
      ? '<idCurrency>1</idCurrency><currencyCode>EUR</currencyCode>'
      : xmlElement('idCurrency', a.idCurrency) + xmlElement('currencyCode', a.currencyCode));
  if (a.prices !== undefined) out += pricesXml(a.prices);
  out +=
    integerXml('<count>', a.count, '</count>', 'count') +
    booleanXml('inShoppingCart', a.inShoppingCart) +
    xmlElement('product', a.product) +
    xmlElement('seller', a.seller) +
    xmlElement('lastEdited', a.lastEdited) +
    (a.onSale === undefined ? '' : booleanXml('onSale', a.onSale)) +
    xmlElement('condition', a.condition) +
    (a.isFoil === undefined ? '' : booleanXml('isFoil', a.isFoil)) +
    (a.isReverseHolo === undefined ? '' : booleanXml('isReverseHolo', a.isReverseHolo)) +
    (a.isSigned === undefined ? '' : booleanXml('isSigned', a.isSigned)) +
    (a.isPlayset === undefined ? '' : booleanXml('isPlayset', a.isPlayset)) +
    (a.isAltered === undefined ? '' : booleanXml('isAltered', a.isAltered)) +
    (a.isFirstEd === undefined ? '' : booleanXml('isFirstEd', a.isFirstEd));
  // Links are link()'s three fields.
  for (const l of a.links) {
    const opening = LINK_OPENINGS.get(l.rel);
    out +=
      opening !== undefined && l.method === 'GET'
        ? opening + xmlElement('href', l.href) + '<method>GET</method></links>'
        : xmlElement('links', l);
  }
  return out;
}

/**
 * `articleXml` written straight into the answer's bytes (an answer's list of articles: a bulk stock
 * write's hundred), without the text of each article (some 950 characters in a few dozen pieces,
 * flattened and scanned again to be encoded: a fifth of writing a PUT /stock answer). The short
 * product, which the tree holds as `mapShortProduct(product)`, is written from `product` itself by
 * the writer the offers and order lines use. Byte for byte what `articleXml` gives
 * (`article.test.ts` compares them).
 */
function articleTo(a: Article, out: XmlWriter, product: ProductFacts): void {
  intTo(out, T.idArticle, a.idArticle);
  intTo(out, T.idProduct, a.idProduct);
  const language = a.language;
  if (typeof language === 'object' && language !== null) {
    out.bytes(M.LANGUAGE);
    intTo(out, T.idLanguage, language.idLanguage);
    textTo(out, T.languageName, language.languageName);
    out.bytes(M.LANGUAGE_END);
  } else out.markup(xmlElement('language', language));
  textTo(out, T.comments, a.comments);
  if (a.price instanceof Money) moneyTo(out, T.price, a.price.cents);
  else out.markup(xmlElement('price', a.price));
  if (a.idCurrency === 1 && a.currencyCode === 'EUR') out.bytes(M.EUROS);
  else out.markup(xmlElement('idCurrency', a.idCurrency) + xmlElement('currencyCode', a.currencyCode));
  if (a.prices !== undefined) out.markup(pricesXml(a.prices));
  intTo(out, T.count, a.count);
  boolOrTo(out, T.inShoppingCart, a.inShoppingCart);
  if (a.product !== undefined) {
    out.bytes(M.PRODUCT);
    shortProductTo(out, product);
    out.bytes(M.PRODUCT_END);
  }
  if (a.seller !== undefined) out.markup(xmlElement('seller', a.seller));
  if (a.lastEdited !== undefined) textTo(out, T.lastEdited, a.lastEdited);
  if (a.onSale !== undefined) boolOrTo(out, T.onSale, a.onSale);
  if (a.condition !== undefined) textTo(out, T.condition, a.condition);
  if (a.isFoil !== undefined) boolOrTo(out, T.isFoil, a.isFoil);
  if (a.isReverseHolo !== undefined) boolOrTo(out, T.isReverseHolo, a.isReverseHolo);
  if (a.isSigned !== undefined) boolOrTo(out, T.isSigned, a.isSigned);
  if (a.isPlayset !== undefined) boolOrTo(out, T.isPlayset, a.isPlayset);
  if (a.isAltered !== undefined) boolOrTo(out, T.isAltered, a.isAltered);
  if (a.isFirstEd !== undefined) boolOrTo(out, T.isFirstEd, a.isFirstEd);
  for (const l of a.links) {
    const opening = LINK_OPENING_BYTES.get(l.rel);
    if (opening !== undefined && l.method === 'GET') {
      out.bytes(opening);
      textTo(out, T.href, l.href);
      out.bytes(M.GET_LINK_END);
    } else out.markup(xmlElement('links', l));
  }
}

/** The `prices` of a marketplace offer, as `articleXml` writes them. */
function pricesXml(prices: NonNullable<Article['prices']>): string {
  const only = prices.length === 1 ? prices[0]! : undefined;
  return only !== undefined &&
    only.idCurrency === 1 &&
    only.currencyCode === 'EUR' &&
    only.price instanceof Money
    ? '<prices><price>' +
        only.price.toXml() +
        '</price><idCurrency>1</idCurrency><currencyCode>EUR</currencyCode></prices>'
    : xmlElement('prices', prices);
}

/** `booleanXml`: anything not a boolean through the generic writer. */
function boolOrTo(out: XmlWriter, t: Tag, value: unknown): void {
  if (typeof value === 'boolean') boolTo(out, t, value);
  else out.markup(xmlElement(t.name, value));
}

function mapSeller(seller: ShownUser, options: ArticleMapOptions) {
  const context = options.sellerContext ?? 'public';
  return options.once ? options.once.of(seller, (u) => mapUser(u, context)) : mapUser(seller, context);
}

const T = {
  idArticle: tag('idArticle'),
  idProduct: tag('idProduct'),
  idLanguage: tag('idLanguage'),
  languageName: tag('languageName'),
  comments: tag('comments'),
  price: tag('price'),
  count: tag('count'),
  idGame: tag('idGame'),
  enName: tag('enName'),
  locName: tag('locName'),
  image: tag('image'),
  idExpansion: tag('idExpansion'),
  expansion: tag('expansion'),
  abbreviation: tag('abbreviation'),
  nr: tag('nr'),
  expIcon: tag('expIcon'),
  rarity: tag('rarity'),
  condition: tag('condition'),
  isFoil: tag('isFoil'),
  isReverseHolo: tag('isReverseHolo'),
  isSigned: tag('isSigned'),
  isPlayset: tag('isPlayset'),
  isAltered: tag('isAltered'),
  isFirstEd: tag('isFirstEd'),
  inShoppingCart: tag('inShoppingCart'),
  lastEdited: tag('lastEdited'),
  onSale: tag('onSale'),
  href: tag('href'),
};

/** The markup between the values of the writers into bytes below, encoded once. */
const M = {
  LANGUAGE: xmlBytes('<language>'),
  LANGUAGE_END: xmlBytes('</language>'),
  EUROS: xmlBytes('<idCurrency>1</idCurrency><currencyCode>EUR</currencyCode>'),
  NOT_IN_CART_PRODUCT: xmlBytes('<inShoppingCart>false</inShoppingCart><product>'),
  PRODUCT_END: xmlBytes('</product>'),
  SELF_ARTICLES: xmlBytes('<links><rel>self</rel><href>/articles/'),
  GET_PRODUCT_PRODUCTS: xmlBytes(
    '</href><method>GET</method></links><links><rel>product</rel><href>/products/',
  ),
  GET_END: xmlBytes('</href><method>GET</method></links>'),
  EUROS_PRICES: xmlBytes('<idCurrency>1</idCurrency><currencyCode>EUR</currencyCode><prices>'),
  EUROS_PRICES_END: xmlBytes('<idCurrency>1</idCurrency><currencyCode>EUR</currencyCode></prices>'),
  PRODUCT: xmlBytes('<product>'),
  SELLER: xmlBytes('<seller>'),
  SELLER_END: xmlBytes('</seller>'),
  GET_LINK_END: xmlBytes('<method>GET</method></links>'),
};

/** `LINK_OPENINGS` as bytes. */
const LINK_OPENING_BYTES = new Map([...LINK_OPENINGS].map(([rel, text]) => [rel, xmlBytes(text)]));

/**
 * An order's line as the Article of `mapArticle(line, { context: 'order' })`, its XML children
 * written straight into an answer's bytes from the line, without the article's tree (a page of
 * 100 orders writes 100): byte for byte what the generic writer gives for that tree
 * (`order.test.ts` compares them).
 */
export function orderLineTo(out: XmlWriter, view: ArticleView): void {
  articleHeadTo(out, view);
  out.bytes(M.EUROS);
  intTo(out, T.count, view.count);
  out.bytes(M.NOT_IN_CART_PRODUCT);
  shortProductTo(out, view.product);
  out.bytes(M.PRODUCT_END);
  articleTailTo(out, view);
}

/** An article's children up to its price, as every context writes them (order lines, offers). */
function articleHeadTo(out: XmlWriter, view: ArticleView): void {
  intTo(out, T.idArticle, view.idArticle);
  intTo(out, T.idProduct, view.idProduct);
  out.bytes(M.LANGUAGE);
  intTo(out, T.idLanguage, view.idLanguage);
  textTo(out, T.languageName, languageName(view.idLanguage));
  out.bytes(M.LANGUAGE_END);
  textTo(out, T.comments, view.comments);
  moneyTo(out, T.price, view.price);
}

/** `mapShortProduct(p)`'s children. */
function shortProductTo(out: XmlWriter, p: ProductFacts): void {
  intTo(out, T.idGame, p.idGame);
  textTo(out, T.enName, p.enName);
  textTo(out, T.locName, p.locName);
  textTo(out, T.image, p.image);
  intTo(out, T.idExpansion, p.idExpansion);
  textTo(out, T.expansion, p.expansionName);
  textTo(out, T.abbreviation, p.expansionAbbreviation);
  textTo(out, T.nr, p.number);
  intTo(out, T.expIcon, p.expansionIcon);
  textTo(out, T.rarity, p.rarity);
}

/** What follows the seller of an article shown anywhere but in the own stock: condition, flags, links. */
function articleTailTo(out: XmlWriter, view: ArticleView): void {
  const idProduct = view.idProduct;
  const p = view.product;
  if (p.isSingle) textTo(out, T.condition, view.condition);
  const flags = gameRules(p.idGame).flags;
  // In `mapArticle`'s order, each read by its name (a keyed read of six names was a lookup each).
  if (flags.includes('isFoil')) boolTo(out, T.isFoil, bool(view.isFoil));
  if (flags.includes('isReverseHolo')) boolTo(out, T.isReverseHolo, bool(view.isReverseHolo));
  if (flags.includes('isSigned')) boolTo(out, T.isSigned, bool(view.isSigned));
  if (flags.includes('isPlayset')) boolTo(out, T.isPlayset, bool(view.isPlayset));
  if (flags.includes('isAltered')) boolTo(out, T.isAltered, bool(view.isAltered));
  if (flags.includes('isFirstEd')) boolTo(out, T.isFirstEd, bool(view.isFirstEd));
  if (typeof idProduct === 'number') {
    out.bytes(M.SELF_ARTICLES);
    out.number(idProduct);
    out.bytes(M.GET_PRODUCT_PRODUCTS);
    out.number(idProduct);
    out.bytes(M.GET_END);
  } else {
    out.markup(
      xmlElement('links', [
        link('self', `/articles/${idProduct}`),
        link('product', `/products/${idProduct}`),
      ]),
    );
  }
}

/** The offers of one page of the marketplace, with their sellers and what the viewer has in the cart. */
export interface OfferList {
  articles: readonly ArticleView[];
  sellers: ReadonlyMap<number, ShownUser>;
  inCart: ReadonlySet<number>;
}

/** What the offers of one answer share: each product and seller mapped once, and written once. */
interface OfferPage {
  once: MappedOnce;
  /** Each product's and seller's bytes, written once in an answer. */
  written: WrittenOnce<object>;
}

interface OfferSource {
  view: ArticleView;
  seller: ShownUser | undefined;
  inShoppingCart: boolean;
  page: OfferPage;
}

class CompiledOffer extends CompiledTree<OfferSource> {
  // JSON (and anything else that reads the tree) gets `mapArticle`'s tree.
  override toJSON(): OfferSource {
    const { view, seller, inShoppingCart, page } = this.tree;
    return articleTree(view, {
      context: 'marketplace',
      seller,
      inShoppingCart,
      once: page.once,
    }) as unknown as OfferSource;
  }
}

/**
 * A page of the marketplace's offers (a product's, a user's), each the Article of
 * `mapArticle(view, { context: 'marketplace', seller, inShoppingCart, once })`. XML is written
 * straight from the views into the answer's bytes (`offerTo`): as a tree of forty fields and a
 * string for each of a hundred offers, a page was a third of its answer's time and most of its
 * garbage. JSON writes `mapArticle`'s tree, built when it is asked for.
 */
export function mapOffers(offers: OfferList): Article[] {
  const page: OfferPage = { once: new MappedOnce(), written: new WrittenOnce() };
  // Typed as the tree it stands for: both writers render it as that tree.
  return offers.articles.map(
    (view) =>
      new CompiledOffer(
        {
          view,
          seller: offers.sellers.get(view.idUser),
          inShoppingCart: offers.inCart.has(view.idArticle),
          page,
        },
        undefined,
        undefined,
        offerTo,
      ) as unknown as Article,
  );
}

/**
 * A marketplace offer's XML children written into the answer's bytes (`CompiledTree.writeTo`):
 * byte for byte what the generic writer gives for `mapArticle`'s tree (`article.test.ts` compares
 * them).
 */
function offerTo({ view, seller, inShoppingCart, page }: OfferSource, out: XmlWriter): void {
  articleHeadTo(out, view);
  out.bytes(M.EUROS_PRICES);
  moneyTo(out, T.price, view.price);
  out.bytes(M.EUROS_PRICES_END);
  intTo(out, T.count, view.count);
  boolTo(out, T.inShoppingCart, inShoppingCart);
  out.bytes(M.PRODUCT);
  page.written.write(out, view.product, shortProductTo);
  out.bytes(M.PRODUCT_END);
  if (seller !== undefined) {
    out.bytes(M.SELLER);
    page.written.write(out, seller, publicUserTo);
    out.bytes(M.SELLER_END);
  }
  articleTailTo(out, view);
}
