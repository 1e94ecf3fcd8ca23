import { badRequest, preconditionFailed } from '../errors.js';
import type { Executor } from '../store/db.js';
import type { ArticleView } from '../store/articles.js';
import { appendEvents } from '../store/events.js';
import {
  insertOrder,
  insertOrderLines,
  mergeOrderLines,
  moveOrderCounts,
  openOrderBetween,
  orderLineRows,
  updateOrderIf,
} from '../store/orders.js';
import {
  buyerReservations,
  claimReservationLines,
  deleteClaimedReservation,
  lockArticles,
  lockReservation,
  type PostalAddress,
} from '../store/reservations.js';
import type { Order, OrderArticle } from '../store/schema.js';
import { shippingMethods } from '../store/shipping.js';
import { deleteSoldOutArticles } from '../store/stock.js';
import { findUserById } from '../store/users.js';
import { type ReservationView, releaseExpired, reservationViews, shippingAddressOf } from './cart.js';
import type { DomainContext } from './context.js';
import { EVENTS } from './events.js';
import type { OrderView } from './order-views.js';
import { effectiveMethod, shippingZone } from './shipping.js';

/**
 * `PUT /shoppingcart/checkout` (reference §1.5): one order per reservation, in state `bought`, the
 * article prices frozen into order lines, shipping by the reservation's method.
 *
 * A checkout with a seller while an earlier order of the same buyer and seller is still unpaid is
 * merged into that order: the surviving order takes all the articles (its shipping chosen anew for
 * the larger shipment, its total recomputed), and the new order is kept as a record of this checkout
 * with `wasMergedInto` naming the survivor. A merged order is never listed, counted or acted on.
 */

function requireAddress(a: PostalAddress): void {
  for (const field of ['name', 'street', 'zip', 'city', 'country'] as const) {
    if (!a[field]?.trim()) {
      throw badRequest(
        `The shipping address has no ${field}: set it with PUT /shoppingcart/shippingaddress before checking out.`,
        // The code lets the cart page say it in the reader's language, without the API call.
        { field: 'shippingAddress', code: 'shipping_address_incomplete' },
      );
    }
  }
}

function frozenLines(r: ReservationView, idOrder: number): OrderArticle[] {
  // Named field by field: a key added after a spread takes V8's slow path (about 1 µs a line).
  return r.lines.map(({ view, reserved }) => ({
    idOrder,
    idArticle: view.idArticle,
    idProduct: view.idProduct,
    idLanguage: view.idLanguage,
    comments: view.comments,
    price: view.price,
    condition: view.condition,
    isFoil: view.isFoil,
    isSigned: view.isSigned,
    isAltered: view.isAltered,
    isPlayset: view.isPlayset,
    isFirstEd: view.isFirstEd,
    isReverseHolo: view.isReverseHolo,
    count: reserved,
  }));
}

/**
 * The unpaid order a checkout with this seller merges into, claimed (its revision bumped) so that
 * a concurrent payment or cancellation of it either happens before, and it is not merged into, or
 * waits for this checkout. Undefined when there is none.
 */
async function claimSurvivor(tx: Executor, idBuyer: number, idSeller: number): Promise<Order | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const survivor = await openOrderBetween(tx, idBuyer, idSeller);
    if (!survivor || (await updateOrderIf(tx, survivor.idOrder, survivor.revision, {}))) return survivor;
  }
  throw preconditionFailed('An unpaid order with this seller keeps changing; try the checkout again.', {
    reason: 'checkout_retry',
  });
}

/**
 * Whether the unpaid order already holds one of these articles at another price (the seller
 * changed it since): an order has one line per article, so such a checkout is not merged and
 * becomes an order of its own, each copy keeping the price it was bought at.
 */
async function priceConflict(tx: Executor, idOrder: number, r: ReservationView): Promise<boolean> {
  const prices = new Map((await orderLineRows(tx, idOrder)).map((l) => [l.idArticle, l.price]));
  return r.lines.some(({ view }) => prices.has(view.idArticle) && prices.get(view.idArticle) !== view.price);
}

/**
 * Whether the lines claimed are exactly the ones priced (same articles, same copies): a reservation
 * holds one line per article, so equal counts and every claimed line found with its copies will do.
 */
function sameLines(r: ReservationView, claimed: Array<{ idArticle: number; count: number }>): boolean {
  if (claimed.length !== r.lines.length) return false;
  const reserved = new Map<number, number>();
  for (const l of r.lines) reserved.set(l.view.idArticle, l.reserved);
  for (const l of claimed) if (reserved.get(l.idArticle) !== l.count) return false;
  return true;
}

/** Checks out the buyer's whole cart inside `tx`; returns the ids of the orders it created. */
export async function checkoutInTx(tx: Executor, idBuyer: number, now: number): Promise<number[]> {
  return (await checkoutViewsInTx(tx, idBuyer, now)).map((v) => v.order.idOrder);
}

/**
 * The checkout, answering the created orders as `loadOrdersByIds` would read them back: built from
 * what the transaction wrote (the order row as inserted, the lines frozen from the cart's article
 * views, the parties as read at its start, no evaluation yet) instead of reading one order row, two
 * users and every line joined with its product again.
 */
async function checkoutViewsInTx(tx: Executor, idBuyer: number, now: number): Promise<OrderView[]> {
  await releaseExpired(tx, now, idBuyer);
  const buyer = (await findUserById(tx, idBuyer))!;
  const address = await shippingAddressOf(tx, buyer);
  const methods = await shippingMethods(tx);
  const reservations: ReservationView[] = [];
  for (const listed of await buyerReservations(tx, idBuyer)) {
    // Locked before its lines are read: no add, removal or release of it can interleave.
    const locked = await lockReservation(tx, listed.idReservation);
    if (!locked) continue;
    const [view] = await reservationViews(tx, [locked], address.country, methods);
    // A seller who went on vacation while the add was in flight keeps their articles: the
    // reservation stays in the cart until it expires.
    if (view!.lines.length > 0 && !view!.seller.onVacation) reservations.push(view!);
  }
  if (reservations.length === 0)
    throw badRequest('Your shopping cart is empty: there is nothing to check out.', { reason: 'cart_empty' });
  requireAddress(address);
  await lockArticles(
    tx,
    reservations.flatMap((r) => r.lines.map((l) => l.view.idArticle)),
  );
  const created: OrderView[] = [];
  const events: Array<{ type: string; payload: unknown }> = [];

  for (const r of reservations) {
    const claimed = await claimReservationLines(tx, r.reservation.idReservation);
    if (!sameLines(r, claimed)) {
      throw preconditionFailed('Your shopping cart changed during the checkout; check it and try again.', {
        reason: 'cart_changed',
      });
    }
    let survivor = await claimSurvivor(tx, idBuyer, r.seller.idUser);
    if (survivor && (await priceConflict(tx, survivor.idOrder, r))) survivor = undefined;
    const shipping = r.shipping;
    if (!shipping)
      throw badRequest(`No shipping method can carry the articles of ${r.seller.username}.`, {
        reason: 'no_shipping_method',
        params: { seller: r.seller.username },
      });
    const order = await insertOrder(tx, {
      idBuyer,
      idSeller: r.seller.idUser,
      state: 'bought',
      dateBought: now,
      datePaid: null,
      dateSent: null,
      dateReceived: null,
      dateCancelled: null,
      dateLost: null,
      lastStateChange: now,
      wasMergedInto: survivor?.idOrder ?? null,
      idShippingMethod: shipping.method.idShippingMethod,
      shippingMethodName: shipping.method.name,
      // A merged order ships with the survivor: its own record carries no shipping cost.
      shippingPrice: survivor ? 0 : shipping.price,
      isLetter: shipping.method.isLetter,
      isInsured: shipping.method.isInsured,
      trackingNumber: null,
      shippingName: address.name,
      shippingExtra: address.extra,
      shippingStreet: address.street,
      shippingZip: address.zip,
      shippingCity: address.city,
      shippingCountry: address.country,
      articleCount: r.articleCount,
      articleValue: r.articleValue,
      totalValue: r.articleValue + (survivor ? 0 : shipping.price),
      cancellationRequestBuyer: null,
      cancellationRequestSeller: null,
      relistOnCancel: 0,
      note: '',
      revision: 0,
      paidFromMoney: 0,
      paidFromBonus: 0,
      cancellationReason: null,
      cancellationRequestBuyerDate: null,
      cancellationRequestSellerDate: null,
    });
    const lines = frozenLines(r, order.idOrder);
    await insertOrderLines(tx, lines);

    if (survivor) {
      await mergeOrderLines(tx, survivor.idOrder, lines);
      const all = await orderLineRows(tx, survivor.idOrder);
      const articleCount = all.reduce((n, l) => n + l.count, 0);
      const articleValue = all.reduce((n, l) => n + l.count * l.price, 0);
      const zone = shippingZone(r.seller.country, survivor.shippingCountry);
      const method =
        effectiveMethod(methods, survivor.idShippingMethod, zone, articleCount, articleValue) ?? shipping;
      const applied = await updateOrderIf(tx, survivor.idOrder, survivor.revision + 1, {
        articleCount,
        articleValue,
        idShippingMethod: method.method.idShippingMethod,
        shippingMethodName: method.method.name,
        shippingPrice: method.price,
        isLetter: method.method.isLetter,
        isInsured: method.method.isInsured,
        totalValue: articleValue + method.price,
      });
      if (!applied)
        throw preconditionFailed(`Order ${survivor.idOrder} changed during the checkout; try again.`, {
          reason: 'checkout_retry',
        });
      events.push({ type: EVENTS.orderMerged, payload: { idOrder: order.idOrder, into: survivor.idOrder } });
    } else {
      await moveOrderCounts(tx, order, null, 'bought');
      events.push({
        type: EVENTS.orderStateChanged,
        payload: { idOrder: order.idOrder, from: null, to: 'bought' },
      });
    }

    // Its lines were all claimed above, under its lock: only the row is left.
    await deleteClaimedReservation(tx, r.reservation.idReservation);
    await deleteSoldOutArticles(
      tx,
      r.lines.map((l) => l.view.idArticle),
    );
    created.push({ order, seller: r.seller, buyer, lines: lineViews(r, order), evaluation: undefined });
  }
  // One statement for the whole checkout, in the order the orders were created.
  await appendEvents(tx, events, now);
  return created;
}

/**
 * The created order's lines as `orderLineViews` reads them back: the article's attributes and
 * product facts (the line was frozen from them in this transaction), the copies bought, and the
 * seller and purchase time standing for the article's owner and times.
 */
function lineViews(r: ReservationView, order: Order): ArticleView[] {
  // Named field by field, in the view's order, as frozenLines does.
  return r.lines.map(({ view, reserved }) => ({
    idArticle: view.idArticle,
    idUser: order.idSeller,
    idProduct: view.idProduct,
    idLanguage: view.idLanguage,
    comments: view.comments,
    price: view.price,
    condition: view.condition,
    isFoil: view.isFoil,
    isSigned: view.isSigned,
    isAltered: view.isAltered,
    isPlayset: view.isPlayset,
    isFirstEd: view.isFirstEd,
    isReverseHolo: view.isReverseHolo,
    count: reserved,
    createdAt: order.dateBought,
    lastEdited: order.dateBought,
    product: view.product,
  }));
}

export async function checkout(ctx: DomainContext, idBuyer: number): Promise<OrderView[]> {
  return ctx.database.transaction((tx) => checkoutViewsInTx(tx, idBuyer, ctx.clock.now()));
}
