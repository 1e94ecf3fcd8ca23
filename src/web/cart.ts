import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  changeCart,
  emptyCart,
  getCart,
  reservationShippingMethods,
  setCartShippingAddress,
  setReservationMethod,
} from '../domain/cart.js';
import { getAccount } from '../domain/account.js';
import { checkout } from '../domain/checkout.js';
import { payOwnOrder } from '../domain/payments.js';
import { checkPostalAddress } from '../domain/postal-address.js';
import type { PricedMethod } from '../domain/shipping.js';
import { idParam, parseInteger } from '../http/fields.js';
import type { Services } from '../services.js';
import { formatMoney } from '../format.js';
import { type Errors, failureText, fields, formErrors, redirectWithFlash, type Values } from './forms.js';
import { countries } from './accounts.js';
import { render } from './render.js';
import { requireUser } from './session.js';

const ADDRESS_FIELDS = ['name', 'extra', 'street', 'zip', 'city', 'country'] as const;

/**
 * The cart (issue 17): one reservation per seller with its lines, shipping method and cost, the
 * shipping address, totals and when the reservation expires; checkout into orders. Each form is one
 * `/shoppingcart` call of the API through the same domain function: remove (`PUT` action remove),
 * address (`PUT …/shippingaddress`), method (`PUT …/shippingmethod/:idReservation`), checkout
 * (`PUT …/checkout`), empty (`DELETE`). A refusal re-renders the cart (400) with the API's
 * description beside the form at fault; another buyer's reservation id is a 404, as in the API.
 */
export function cartPages(app: FastifyInstance, services: Services): void {
  const signedIn = { onRequest: requireUser };
  const form = { onRequest: requireUser, preHandler: app.csrfProtection };

  /** What the buyer's balances can pay now: money first, then bonus, as `payOrderInTx` charges them. */
  async function spendable(idUser: number): Promise<number> {
    const { user } = await getAccount(services, idUser);
    return user.moneyBalance + user.bonusBalance;
  }

  async function cartPage(
    request: FastifyRequest,
    reply: FastifyReply,
    { errors = {}, values }: { errors?: Errors; values?: Values } = {},
    status = 200,
  ) {
    const idUser = request.user!.idUser;
    const [cart, balance] = await Promise.all([getCart(services, idUser), spendable(idUser)]);
    const methods = new Map<number, PricedMethod[]>();
    for (const r of cart.reservations) {
      const id = r.reservation.idReservation;
      methods.set(id, await reservationShippingMethods(services, idUser, id));
    }
    const a = cart.shippingAddress;
    const address: Values = values ?? {
      name: a.name ?? '',
      extra: a.extra ?? '',
      street: a.street ?? '',
      zip: a.zip ?? '',
      city: a.city ?? '',
      country: a.country ?? '',
    };
    const totals = cart.reservations.reduce(
      (s, r) => ({
        articles: s.articles + r.articleCount,
        articleValue: s.articleValue + r.articleValue,
        shipping: s.shipping + (r.shipping?.price ?? 0),
        total: s.total + r.totalValue,
      }),
      { articles: 0, articleValue: 0, shipping: 0, total: 0 },
    );
    return render(
      request,
      reply,
      'cart',
      {
        title: 'cart.title',
        cart,
        methods,
        address,
        errors,
        totals,
        balance,
        countries: countries(request.lang),
      },
      status,
    );
  }

  app.get('/cart', signedIn, async (request, reply) => cartPage(request, reply));

  app.post('/cart/remove', form, async (request, reply) => {
    const f = fields(request, ['idArticle', 'count']);
    const key = /^\d{1,10}$/.test(f.idArticle) ? `line-${f.idArticle}` : '_form';
    try {
      const idArticle = parseInteger(f.idArticle, 'idArticle', { min: 1 });
      const count = parseInteger(f.count, 'count', { min: 1 });
      const { failed } = await changeCart(services, request.user!.idUser, 'remove', [{ idArticle, count }]);
      if (failed[0])
        return cartPage(request, reply, { errors: { [key]: failureText(request.t, failed[0]) } }, 400);
      return redirectWithFlash(reply, '/cart', 'flash.removedFromCart', { count });
    } catch (err) {
      const message = Object.values(formErrors(request.t, err))[0] ?? '';
      return cartPage(request, reply, { errors: { [key]: message } }, 400);
    }
  });

  app.post('/cart/address', form, async (request, reply) => {
    const values = fields(request, ADDRESS_FIELDS);
    try {
      await setCartShippingAddress(services, request.user!.idUser, checkPostalAddress(values));
      return redirectWithFlash(reply, '/cart#address', 'flash.addressSaved');
    } catch (err) {
      const errors = formErrors(request.t, err, ADDRESS_FIELDS);
      return cartPage(request, reply, { errors, values }, 400);
    }
  });

  app.post('/cart/reservations/:idReservation/method', form, async (request, reply) => {
    const idReservation = idParam(request.params as Record<string, string>, 'idReservation');
    const f = fields(request, ['idShippingMethod']);
    try {
      const idShippingMethod = parseInteger(f.idShippingMethod, 'idShippingMethod', { min: 1 });
      await setReservationMethod(services, request.user!.idUser, idReservation, idShippingMethod);
      return redirectWithFlash(reply, `/cart#reservation-${idReservation}`, 'flash.methodSaved');
    } catch (err) {
      // Another buyer's reservation is not in this cart: the error page's 404, as the API answers.
      if ((err as { status?: number }).status === 404) throw err;
      const message = Object.values(formErrors(request.t, err))[0] ?? '';
      return cartPage(request, reply, { errors: { [`method-${idReservation}`]: message } }, 400);
    }
  });

  app.post('/cart/checkout', form, async (request, reply) => {
    try {
      const orders = await checkout(services, request.user!.idUser);
      return redirectWithFlash(reply, '/balance#unpaid', 'flash.checkedOut', { count: orders.length });
    } catch (err) {
      const message = Object.values(formErrors(request.t, err))[0] ?? '';
      return cartPage(request, reply, { errors: { checkout: message } }, 400);
    }
  });

  /**
   * **Buy and pay** (docs/using-the-website.md, "Buying a card"): the checkout, then each order it
   * made paid by `payOwnOrder`, the balance page's **Pay**: the same domain functions, in the same
   * order as a buyer clicking both. Offered only when the balances cover the cart's total, and
   * checked again here (nothing happens when they do not). Each order is paid whole or not at all,
   * as the domain pays it; should one payment fail after the checkout (a top-up spent meanwhile),
   * the orders stay bought and the balance page says which are left to pay.
   */
  app.post('/cart/buy-and-pay', form, async (request, reply) => {
    const idUser = request.user!.idUser;
    const [cart, balance] = await Promise.all([getCart(services, idUser), spendable(idUser)]);
    const total = cart.reservations.reduce((s, r) => s + r.totalValue, 0);
    if (cart.reservations.length === 0 || total > balance) {
      const message =
        cart.reservations.length === 0
          ? request.t('cart.empty')
          : request.t('front.missing', {
              balance: formatMoney(balance, request.lang),
              missing: formatMoney(total - balance, request.lang),
              total: formatMoney(total, request.lang),
            });
      return cartPage(request, reply, { errors: { checkout: message } }, 400);
    }
    let orders;
    try {
      orders = await checkout(services, idUser);
    } catch (err) {
      const message = Object.values(formErrors(request.t, err))[0] ?? '';
      return cartPage(request, reply, { errors: { checkout: message } }, 400);
    }
    for (const o of orders) {
      try {
        await payOwnOrder(services, idUser, o.order.idOrder);
      } catch (err) {
        const reason = Object.values(formErrors(request.t, err))[0] ?? '';
        return redirectWithFlash(reply, '/balance#unpaid', 'front.boughtNotPaid', {
          count: orders.length,
          reason,
        });
      }
    }
    return redirectWithFlash(reply, '/orders?actor=buyer&state=paid', 'front.boughtAndPaid', {
      count: orders.length,
    });
  });

  app.post('/cart/empty', form, async (request, reply) => {
    await emptyCart(services, request.user!.idUser);
    return redirectWithFlash(reply, '/cart', 'flash.cartEmptied');
  });
}
