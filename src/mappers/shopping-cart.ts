import type { CartItemFailure, CartView, ReservationView } from '../domain/cart.js';
import { type Static, Type } from '@sinclair/typebox';
import { AccountSchema, mapAccount } from './account.js';
import { AddressSchema, mapAddress } from './address.js';
import { ArticleSchema, mapArticle } from './article.js';
import { mapPricedMethod, ShippingMethodSchema } from './shipping-method.js';
import { mapUser, UserSchema } from './user.js';
import { money, MoneySchema, Nullable, presentList } from './values.js';

export const ReservationSchema = Type.Object(
  {
    idReservation: Type.Integer(),
    isBuyer: Type.Literal(true),
    seller: UserSchema,
    article: Type.Array(ArticleSchema),
    articleValue: MoneySchema,
    articleCount: Type.Integer(),
    shippingMethod: Nullable(ShippingMethodSchema),
    totalValue: MoneySchema,
  },
  { $id: 'Reservation', description: "Reservation (reference §2.16): one seller's part of the cart." },
);

export const ShoppingCartSchema = Type.Object(
  {
    account: AccountSchema,
    shippingAddress: AddressSchema,
    shoppingCart: Type.Array(ReservationSchema, { description: 'Always present, empty or not.' }),
  },
  { $id: 'ShoppingCart', description: 'ShoppingCart (reference §2.16).' },
);

export const CartFailureSchema = Type.Object(
  { idArticle: Type.Integer(), count: Type.Integer(), error: Type.String() },
  { $id: 'CartFailure' },
);

/** A Reservation (reference §2.16): the part of the cart one seller's articles make up. */
export function mapReservation(r: ReservationView): Static<typeof ReservationSchema> {
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
export function mapShoppingCart(cart: CartView): Static<typeof ShoppingCartSchema> {
  return {
    account: mapAccount(cart.account),
    shippingAddress: mapAddress(cart.shippingAddress),
    // Always there, empty or not (reference §2.16): clients iterate it without checking.
    shoppingCart: presentList(cart.reservations.map(mapReservation)),
  };
}

/** An article a `PUT /shoppingcart` could not add or remove, and why. */
export function mapCartFailure(f: CartItemFailure): Static<typeof CartFailureSchema> {
  return { idArticle: f.idArticle, count: f.count, error: f.error };
}
