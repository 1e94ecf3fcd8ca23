import type { CartItemFailure, CartView, ReservationView } from '../domain/cart.js';
import { mapAccount } from './account.js';
import { mapAddress } from './address.js';
import { mapArticle } from './article.js';
import { mapPricedMethod } from './shipping-method.js';
import { mapUser } from './user.js';
import { money, presentList } from './values.js';

/** A Reservation (reference §2.16): the part of the cart one seller's articles make up. */
export function mapReservation(r: ReservationView) {
  return {
    idReservation: r.reservation.idReservation,
    isBuyer: true,
    seller: mapUser(r.seller, 'public'),
    article: r.lines.map((l) =>
      mapArticle(l.view, { context: 'cart', count: l.reserved, inShoppingCart: true }),
    ),
    articleValue: money(r.articleValue),
    articleCount: r.articleCount,
    shippingMethod: r.shipping ? mapPricedMethod(r.shipping) : null,
    totalValue: money(r.totalValue),
  };
}

/** The ShoppingCart entity (reference §2.16). */
export function mapShoppingCart(cart: CartView) {
  return {
    account: mapAccount(cart.account),
    shippingAddress: mapAddress(cart.shippingAddress),
    // Always there, empty or not (reference §2.16): clients iterate it without checking.
    shoppingCart: presentList(cart.reservations.map(mapReservation)),
  };
}

/** An article a `PUT /shoppingcart` could not add or remove, and why. */
export function mapCartFailure(f: CartItemFailure) {
  return { idArticle: f.idArticle, count: f.count, error: f.error };
}
