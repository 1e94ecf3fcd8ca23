import {
  type CartItem,
  changeCart,
  emptyCart,
  getCart,
  reservationShippingMethods,
  setCartShippingAddress,
  setReservationMethod,
} from '../domain/cart.js';
import { checkout } from '../domain/checkout.js';
import { MAX_CART_ARTICLES } from '../domain/trading.js';
import { checkPostalAddress } from '../domain/postal-address.js';
import { badRequest } from '../errors.js';
import { requireBody } from '../http/body.js';
import { idParam, integer, objects, requireInteger, requireText, text } from '../http/fields.js';
import { ok, type Router, USER_KINDS } from '../http/routing.js';
import type { XmlObject } from '../http/xml.js';
import { mapOrders } from '../mappers/order.js';
import { mapPricedMethod } from '../mappers/shipping-method.js';
import { mapCartFailure, mapShoppingCart } from '../mappers/shopping-cart.js';
import type { Services } from '../services.js';
import { Type } from '@sinclair/typebox';
import { Answer, CountryText, IdParam, RequestBody, RequiredText } from '../http/route-schema.js';
import { MAX_ADDRESS_FIELD } from '../domain/postal-address.js';
import { OrderSchema } from '../mappers/order.js';
import { ShippingMethodSchema } from '../mappers/shipping-method.js';
import { CartFailureSchema, ShoppingCartSchema } from '../mappers/shopping-cart.js';

const CART = ShoppingCartSchema;
import type { PostalAddress } from '../store/reservations.js';
import { presentList } from '../mappers/values.js';

/** One `<article>` of a cart request: `idArticle` and a positive `count` (or its synonym `amount`). */
function cartItem(a: XmlObject): CartItem {
  if (a.action !== undefined) {
    // Spec §4.2: one request performs only adds or only removes, named once at the top level; an
    // action inside an article would otherwise be ignored, and the article added when removal was meant.
    throw badRequest(
      'One request performs only adds or only removes: send one <action> at the top level of <request>, none inside an <article>.',
      { field: 'action' },
    );
  }
  const idArticle = requireInteger(a, 'idArticle', { min: 1 });
  const count = integer(a, 'count', { min: 1 });
  const amount = integer(a, 'amount', { min: 1 });
  if (count !== undefined && amount !== undefined && count !== amount) {
    throw badRequest(`Article ${idArticle}: <count> and <amount> say different things; send one.`, {
      field: 'count',
    });
  }
  const n = count ?? amount;
  if (n === undefined) throw badRequest(`Article ${idArticle}: <count> is required.`, { field: 'count' });
  return { idArticle, count: n };
}

/** The address elements as sent (the order of checks is the domain's: country first). */
function postalAddress(body: XmlObject): PostalAddress {
  return checkPostalAddress({
    country: text(body, 'country'),
    name: text(body, 'name'),
    extra: text(body, 'extra'),
    street: text(body, 'street'),
    zip: text(body, 'zip'),
    city: text(body, 'city'),
  });
}

/** The shopping cart (spec §2.3, §4.2; reference §1.5, §2.16). */
export function shoppingCartRoutes(r: Router, services: Services): void {
  r.get(
    '/shoppingcart',
    { kinds: USER_KINDS, schema: { summary: 'The shopping cart', responses: { 200: CART } } },
    async (req) => {
      return ok(mapShoppingCart(await getCart(services, req.auth.idUser!)));
    },
  );

  r.put(
    '/shoppingcart',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Add articles to the cart or remove them',
        body: RequestBody({
          action: Type.String({ enum: ['add', 'remove'] }),
          article: Type.Array(
            Type.Object({
              idArticle: IdParam,
              count: Type.Integer({ minimum: 1, description: 'Or `amount`.' }),
            }),
            { maxItems: MAX_CART_ARTICLES },
          ),
        }),
        responses: {
          200: Type.Composite([ShoppingCartSchema, Type.Object({ failed: Type.Array(CartFailureSchema) })]),
        },
      },
    },
    async (req) => {
      const body = requireBody(
        req.body,
        '<action>add</action><article><idArticle>…</idArticle><count>1</count></article>',
      );
      const action = requireText(body, 'action').trim();
      if (action !== 'add' && action !== 'remove') {
        throw badRequest(`"action" must be add or remove (got "${action}").`, { field: 'action' });
      }
      const articles = objects(body, 'article');
      if (articles.length > MAX_CART_ARTICLES) {
        throw badRequest(
          `At most ${MAX_CART_ARTICLES} articles per request (got ${articles.length}); nothing was changed.`,
          { field: 'article' },
        );
      }
      const { cart, failed } = await changeCart(services, req.auth.idUser!, action, articles.map(cartItem));
      return ok({ ...mapShoppingCart(cart), failed: presentList(failed.map(mapCartFailure)) });
    },
  );

  r.delete(
    '/shoppingcart',
    { kinds: USER_KINDS, schema: { summary: 'Empty the cart', responses: { 200: CART } } },
    async (req) => {
      return ok(mapShoppingCart(await emptyCart(services, req.auth.idUser!)));
    },
  );

  r.put(
    '/shoppingcart/checkout',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Buy what the cart holds: one order per seller',
        errors: [412],
        responses: { 200: Answer({ order: Type.Array(OrderSchema) }) },
      },
    },
    async (req) => {
      const idUser = req.auth.idUser!;
      const orders = await checkout(services, idUser);
      return ok({ order: mapOrders(orders, idUser) });
    },
  );

  r.put(
    '/shoppingcart/shippingaddress',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Set the shipping address of the cart',
        body: RequestBody({
          name: RequiredText(MAX_ADDRESS_FIELD),
          extra: Type.Optional(Type.String({ maxLength: MAX_ADDRESS_FIELD })),
          street: RequiredText(MAX_ADDRESS_FIELD),
          zip: RequiredText(MAX_ADDRESS_FIELD),
          city: RequiredText(MAX_ADDRESS_FIELD),
          country: CountryText,
        }),
        responses: { 200: CART },
      },
    },
    async (req) => {
      const body = requireBody(req.body, '<name/><extra/><street/><zip/><city/><country/>');
      const cart = await setCartShippingAddress(services, req.auth.idUser!, postalAddress(body));
      return ok(mapShoppingCart(cart));
    },
  );

  r.get(
    '/shoppingcart/shippingmethod/:idReservation',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'The shipping methods available to a reservation',
        params: { idReservation: IdParam },
        responses: { 200: Answer({ availableMethod: Type.Array(ShippingMethodSchema) }) },
      },
    },
    async (req) => {
      const idReservation = idParam(req.params, 'idReservation');
      const methods = await reservationShippingMethods(services, req.auth.idUser!, idReservation);
      return ok({ availableMethod: methods.map(mapPricedMethod) });
    },
  );

  r.put(
    '/shoppingcart/shippingmethod/:idReservation',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Choose the shipping method of a reservation',
        params: { idReservation: IdParam },
        body: RequestBody({ idShippingMethod: IdParam }),
        responses: { 200: CART },
      },
    },
    async (req) => {
      const idReservation = idParam(req.params, 'idReservation');
      const body = requireBody(req.body, '<idShippingMethod>…</idShippingMethod>');
      const idShippingMethod = requireInteger(body, 'idShippingMethod', { min: 1 });
      const cart = await setReservationMethod(services, req.auth.idUser!, idReservation, idShippingMethod);
      return ok(mapShoppingCart(cart));
    },
  );
}
