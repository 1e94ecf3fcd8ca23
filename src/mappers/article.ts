import { type ArticleFlag, gameRules, languageName } from '../domain/catalog.js';
import type { ArticleView } from '../store/articles.js';
import type { User } from '../store/schema.js';
import { mapShortProduct } from './product.js';
import { mapUser, type UserContext } from './user.js';
import { bool, link, money, timestamp } from './values.js';

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
  seller?: User;
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
}

/**
 * The order the flags are written in, as recorded responses write them (`isFoil, isSigned,
 * isPlayset, isAltered`); the game-specific ones where the reference lists them.
 */
const FLAG_ORDER: readonly ArticleFlag[] = [
  'isFoil',
  'isReverseHolo',
  'isSigned',
  'isPlayset',
  'isAltered',
  'isFirstEd',
];

export function mapArticle(view: ArticleView, options: ArticleMapOptions) {
  const { context } = options;
  const price = money(options.price ?? view.price);
  const out: Record<string, unknown> = {
    idArticle: view.idArticle,
    idProduct: view.idProduct,
    language: { idLanguage: view.idLanguage, languageName: languageName(view.idLanguage) },
    comments: view.comments,
    price,
    idCurrency: 1,
    currencyCode: 'EUR',
  };
  if (context === 'marketplace') out.prices = [{ price, idCurrency: 1, currencyCode: 'EUR' }];
  out.count = options.count ?? view.count;
  out.inShoppingCart = options.inShoppingCart ?? false;
  if (options.withProduct !== false) out.product = mapShortProduct(view.product);
  if (context !== 'stock' && options.seller)
    out.seller = mapUser(options.seller, options.sellerContext ?? 'public');
  if (context === 'stock') {
    out.lastEdited = timestamp(view.lastEdited);
    out.onSale = view.count > 0;
  }
  if (view.product.isSingle) out.condition = view.condition;
  const flags = gameRules(view.product.idGame).flags;
  for (const flag of FLAG_ORDER) if (flags.includes(flag)) out[flag] = bool(view[flag]);
  out.links = [
    link('self', context === 'stock' ? `/stock/article/${view.idArticle}` : `/articles/${view.idProduct}`),
    link('product', `/products/${view.idProduct}`),
  ];
  return out;
}
