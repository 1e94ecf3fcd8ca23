import { type ApiError, badRequest, notFound, preconditionFailed } from '../errors.js';
import { formatCents, formatTimestamp } from '../format.js';
import { type Charge, chargeBalances, refundBalances } from '../store/balances.js';
import type { Executor } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import {
  adjustUserCounters,
  findOrder,
  moveOrderCounts,
  type OrderChanges,
  orderLineRows,
  sellerOrdersIn,
  updateOrderIf,
} from '../store/orders.js';
import type { Order, OrderState } from '../store/schema.js';
import { addMoneyBalance } from '../store/users.js';
import { onVacationStart } from './account.js';
import { releaseSellerReservations } from './cart.js';
import type { DomainContext } from './context.js';
import { EVENTS } from './events.js';
import { loadOrderView, type OrderView, partyOrder } from './order-views.js';
import { recordLoss, recordShipment } from './seller-stats.js';
import { attributesOf } from './stock-rules.js';
import type { TradingContext } from './trading.js';

/**
 * The order state machine (spec §3; reference §1.4):
 *
 *   bought ──pay (CLI)──▶ paid ──send──▶ sent ──confirmReception──▶ received
 *     │                    │              │
 *     └──cancel / acceptCancellation──▶ cancelled
 *                                         │
 *                                         └──requestCancellation (buyer, LOST_WAIT_PERIOD after
 *                                            sent) + acceptCancellation (seller), or the
 *                                            operator's `order lost`──▶ lost
 *
 * Money: paying takes the total from the buyer (money balance first, then bonus) and the order
 * holds it; reception releases it to the seller's money balance; cancelling a paid order, or
 * losing a sent one, gives each part back to the balance it came from. Every transition is one transaction that applies only to
 * the order revision it was decided on (a concurrent change answers 412), moves the per-user order
 * counts, keeps the seller's counters, and appends `orderStateChanged`.
 */

const STATE_DATE: Record<OrderState, keyof Order> = {
  bought: 'dateBought',
  paid: 'datePaid',
  sent: 'dateSent',
  received: 'dateReceived',
  lost: 'dateLost',
  cancelled: 'dateCancelled',
};

export type Role = 'buyer' | 'seller';

function changedMeanwhile(order: Order): ApiError {
  return preconditionFailed(
    `Order ${order.idOrder} changed while this request was processed; read it again.`,
    { reason: 'order_changed' },
  );
}

/** Moves an order to a new state, or throws 412 if it changed since it was read. */
async function transition(
  tx: Executor,
  order: Order,
  to: OrderState,
  now: number,
  changes: OrderChanges = {},
): Promise<void> {
  const applied = await updateOrderIf(tx, order.idOrder, order.revision, {
    ...changes,
    state: to,
    lastStateChange: now,
    [STATE_DATE[to]]: now,
  });
  if (!applied) throw changedMeanwhile(order);
  if (order.wasMergedInto === null) await moveOrderCounts(tx, order, order.state, to);
  await appendEvent(tx, EVENTS.orderStateChanged, { idOrder: order.idOrder, from: order.state, to }, now);
}

/** Money an order holds while paid or sent: what was taken from the buyer. */
export const heldBy = (order: Order): Charge => ({
  fromMoney: order.paidFromMoney,
  fromBonus: order.paidFromBonus,
});

/**
 * Puts an order's copies back into the seller's stock: into the article if it still exists, else
 * the article is created again under its old id with the attributes it was sold with.
 */
async function relist(tx: Executor, order: Order, now: number): Promise<void> {
  for (const line of await orderLineRows(tx, order.idOrder)) {
    // One statement: two cancellations relisting the same sold-out article cannot both create it.
    await tx
      .insertInto('articles')
      .values({
        idArticle: line.idArticle,
        idUser: order.idSeller,
        ...attributesOf(line),
        count: line.count,
        createdAt: now,
        lastEdited: now,
      })
      .onConflict((oc) =>
        oc.column('idArticle').doUpdateSet((eb) => ({
          count: eb('articles.count', '+', eb.ref('excluded.count')),
          lastEdited: now,
        })),
      )
      .execute();
    await appendEvent(tx, EVENTS.articleListed, { idArticle: line.idArticle }, now);
  }
}

/** Cancels an order (bought or paid): refund if paid, copies relisted if asked. */
async function cancel(
  tx: Executor,
  order: Order,
  now: number,
  options: { reason: string; relist: boolean },
): Promise<void> {
  await transition(tx, order, 'cancelled', now, {
    cancellationReason: options.reason,
    relistOnCancel: options.relist ? 1 : 0,
  });
  if (order.state === 'paid') {
    await refundBalances(tx, order.idBuyer, heldBy(order));
    await adjustUserCounters(tx, order.idSeller, { unsentShipments: -1 });
  }
  if (options.relist) await relist(tx, order, now);
}

/**
 * A sent order the buyer never received: the buyer gets back what the order held, to the balances
 * it came from; the copies stay sold (they left with the parcel); the seller's loss is counted.
 */
async function lose(tx: Executor, order: Order, now: number, reason: string): Promise<void> {
  await transition(tx, order, 'lost', now, { cancellationReason: reason });
  await refundBalances(tx, order.idBuyer, heldBy(order));
  await recordLoss(tx, order.idSeller);
}

function roleIn(order: Order, idUser: number): Role {
  return order.idSeller === idUser ? 'seller' : 'buyer';
}

/**
 * Why an action is refused: the clause the API's message ends with, and the website's text for it
 * (`errors.<reason>`, filled with `params`) in the reader's language.
 */
export interface Refusal {
  why: string;
  reason: string;
  params?: Record<string, string | number>;
}

const refusal = (why: string, reason: string, params?: Refusal['params']): Refusal =>
  params ? { why, reason, params } : { why, reason };

function refused(order: Order, action: string, role: Role, r: Refusal): ApiError {
  return preconditionFailed(
    `Cannot ${action} order ${order.idOrder}: it is ${order.state} and you are its ${role}; ${r.why}`,
    r.params ? { reason: r.reason, params: r.params } : { reason: r.reason },
  );
}

export const ORDER_ACTIONS = [
  'send',
  'confirmReception',
  'cancel',
  'requestCancellation',
  'acceptCancellation',
] as const;
export type OrderAction = (typeof ORDER_ACTIONS)[number];

export interface OrderActionInput {
  action: OrderAction;
  reason?: string;
  /** The seller's wish that the copies go back to their stock when the order is cancelled. */
  relist?: boolean;
  trackingNumber?: string;
}

export function parseOrderAction(text: string): OrderAction {
  const found = ORDER_ACTIONS.find((a) => a.toLowerCase() === text.trim().toLowerCase());
  if (!found) {
    throw badRequest(`Unknown action "${text}": use one of ${ORDER_ACTIONS.join(', ')}.`, {
      field: 'action',
    });
  }
  return found;
}

/**
 * Why `role` may not take `action` on `order` at `now`, or null when the state machine allows it.
 * The one statement of who may do what when: `actOnOrder` refuses with it, and the website offers
 * exactly the actions it allows (`allowedOrderActions`).
 */
export function orderActionRefusal(
  config: TradingContext['config'],
  order: Order,
  role: Role,
  action: OrderAction,
  now: number,
): Refusal | null {
  if (order.wasMergedInto !== null) {
    return refusal(
      `it was merged into order ${order.wasMergedInto}: act on that order.`,
      'order_merged_act',
      {
        into: order.wasMergedInto,
      },
    );
  }
  const open = order.state === 'bought' || order.state === 'paid';
  const mine = role === 'buyer' ? order.cancellationRequestBuyer : order.cancellationRequestSeller;
  const theirs = role === 'buyer' ? order.cancellationRequestSeller : order.cancellationRequestBuyer;
  const other = role === 'buyer' ? 'seller' : 'buyer';
  switch (action) {
    case 'send':
      return role === 'seller' && order.state === 'paid'
        ? null
        : refusal('only the seller sends, and only a paid order.', 'order_send_refused');
    case 'confirmReception':
      return role === 'buyer' && order.state === 'sent'
        ? null
        : refusal('only the buyer confirms reception, and only of a sent order.', 'order_receive_refused');
    case 'cancel': {
      const allowed =
        (role === 'buyer' && order.state === 'paid') || (role === 'seller' && order.state === 'bought');
      if (!allowed) {
        return refusal(
          'the buyer may cancel a paid order and the seller a bought (unpaid) one; otherwise request a cancellation.',
          'order_cancel_refused',
        );
      }
      const from = order.lastStateChange + config.cancelWaitingPeriodMs;
      return now < from
        ? refusal(`it may be cancelled from ${formatTimestamp(from)} on.`, 'order_cancel_not_yet', {
            from: formatTimestamp(from),
          })
        : null;
    }
    case 'requestCancellation': {
      if (order.state === 'sent') {
        // A parcel that never arrived: the buyer asks, the seller accepts, the order is lost.
        if (role !== 'buyer') {
          return refusal('only the buyer may report a sent order as not received.', 'order_lost_buyer_only');
        }
        const from = (order.dateSent ?? order.lastStateChange) + config.lostWaitPeriodMs;
        if (now < from) {
          return refusal(
            `a sent order may be reported as not received from ${formatTimestamp(from)} on (the shipping waiting period).`,
            'order_lost_not_yet',
            { from: formatTimestamp(from) },
          );
        }
      } else if (!open) {
        return refusal(
          'only an order not yet sent can be cancelled, or a sent one reported lost by its buyer.',
          'order_not_cancellable',
        );
      }
      if (mine !== null) {
        return refusal('you have requested its cancellation already.', 'cancellation_requested_already');
      }
      if (theirs !== null) {
        return refusal(
          `the ${other} has requested its cancellation: use acceptCancellation.`,
          `cancellation_requested_by_${other}`,
        );
      }
      return null;
    }
    case 'acceptCancellation':
      if (order.state === 'sent' && role === 'seller' && theirs !== null) return null;
      if (!open || theirs === null) {
        return refusal(
          `only a cancellation the ${other} requested can be accepted, of an order not yet sent (or, by the seller, of a sent order the buyer reported lost).`,
          `cancellation_not_requested_by_${other}`,
        );
      }
      return null;
  }
}

/** The actions the state machine allows this user on this order now (none for anyone else's). */
export async function allowedOrderActions(
  ctx: TradingContext,
  idUser: number,
  idOrder: number,
): Promise<OrderAction[]> {
  const order = await partyOrder(ctx.database.db, idUser, idOrder);
  const role = roleIn(order, idUser);
  const now = ctx.clock.now();
  return ORDER_ACTIONS.filter((action) => orderActionRefusal(ctx.config, order, role, action, now) === null);
}

/** Longest tracking number, and longest reason or comment, an order takes. */
export const MAX_TRACKING_LENGTH = 100;
export const MAX_ORDER_TEXT_LENGTH = 2000;

/** Refuses a text longer than the order takes (the API's and the website's message alike). */
export function limitedOrderText(value: string | undefined, field: string, max: number): string | undefined {
  if (value !== undefined && value.length > max) {
    throw badRequest(`"${field}" may have at most ${max} characters.`, {
      field,
      reason: 'too_long_max',
      params: { max },
    });
  }
  return value;
}

/** `PUT /order/:idOrder`: the caller acts on an order as its buyer or seller. */
export async function actOnOrder(
  ctx: TradingContext,
  idUser: number,
  idOrder: number,
  input: OrderActionInput,
): Promise<OrderView> {
  const { action } = input;
  limitedOrderText(input.reason, 'reason', MAX_ORDER_TEXT_LENGTH);
  limitedOrderText(input.trackingNumber, 'trackingNumber', MAX_TRACKING_LENGTH);
  if (action === 'requestCancellation' && !input.reason?.trim()) {
    throw badRequest('requestCancellation needs a <reason>.', { field: 'reason', reason: 'required' });
  }
  return ctx.database.transaction(async (tx) => {
    const now = ctx.clock.now();
    const order = await partyOrder(tx, idUser, idOrder);
    const role = roleIn(order, idUser);
    if (input.relist === true && role !== 'seller') {
      throw badRequest('Only the seller decides whether the articles are relisted.', {
        field: 'relist',
        reason: 'relist_seller_only',
      });
    }
    const why = orderActionRefusal(ctx.config, order, role, action, now);
    if (why !== null) throw refused(order, action, role, why);
    switch (action) {
      case 'send': {
        await transition(tx, order, 'sent', now, {
          trackingNumber: input.trackingNumber?.trim() || order.trackingNumber,
          // A cancellation request ends with the shipment.
          cancellationRequestBuyer: null,
          cancellationRequestSeller: null,
          cancellationRequestBuyerDate: null,
          cancellationRequestSellerDate: null,
        });
        await recordShipment(tx, order, now);
        if (input.trackingNumber?.trim()) {
          await appendEvent(
            tx,
            EVENTS.orderChanged,
            { idOrder: order.idOrder, change: 'trackingNumber' },
            now,
          );
        }
        break;
      }
      case 'confirmReception': {
        // A loss the buyer reported ends with the parcel arriving after all.
        await transition(tx, order, 'received', now, {
          cancellationRequestBuyer: null,
          cancellationRequestBuyerDate: null,
        });
        const held = heldBy(order);
        await addMoneyBalance(tx, order.idSeller, held.fromMoney + held.fromBonus);
        break;
      }
      case 'cancel': {
        const reason =
          input.reason?.trim() ||
          (role === 'buyer'
            ? 'The seller did not send the order in time.'
            : 'The buyer did not pay the order in time.');
        await cancel(tx, order, now, { reason, relist: role === 'seller' && input.relist === true });
        break;
      }
      case 'requestCancellation': {
        const reason = input.reason!.trim();
        const applied = await updateOrderIf(
          tx,
          order.idOrder,
          order.revision,
          role === 'buyer'
            ? { cancellationRequestBuyer: reason, cancellationRequestBuyerDate: now }
            : {
                cancellationRequestSeller: reason,
                cancellationRequestSellerDate: now,
                relistOnCancel: input.relist ? 1 : 0,
              },
        );
        if (!applied) throw changedMeanwhile(order);
        await appendEvent(
          tx,
          EVENTS.orderChanged,
          { idOrder: order.idOrder, change: 'cancellationRequested', by: role },
          now,
        );
        break;
      }
      case 'acceptCancellation': {
        const theirs = role === 'buyer' ? order.cancellationRequestSeller : order.cancellationRequestBuyer;
        if (order.state === 'sent') {
          await lose(tx, order, now, theirs!);
          break;
        }
        const relistItems = order.relistOnCancel === 1 || (role === 'seller' && input.relist === true);
        await cancel(tx, order, now, { reason: theirs!, relist: relistItems });
        break;
      }
    }
    return loadOrderView(tx, order.idOrder);
  });
}

/**
 * Pays an order (bought → paid): the buyer's balances pay its total, which the order holds. Not an
 * API call (spec §3); the CLI's `order pay` and `simulate purchase --pay` do it.
 */
export async function payOrderInTx(tx: Executor, order: Order, now: number): Promise<void> {
  if (order.wasMergedInto !== null) {
    throw preconditionFailed(
      `Order ${order.idOrder} was merged into order ${order.wasMergedInto}: pay that one.`,
      { reason: 'order_merged', params: { into: order.wasMergedInto } },
    );
  }
  if (order.state !== 'bought') {
    throw preconditionFailed(`Order ${order.idOrder} is ${order.state}: only a bought order can be paid.`, {
      reason: 'order_not_payable',
    });
  }
  const charge = await chargeBalances(tx, order.idBuyer, order.totalValue);
  if (!charge) {
    throw preconditionFailed(
      `The buyer's balance is less than the order's total of ${formatCents(order.totalValue)}; top it up first.`,
      // The balance page says it in the reader's language through this code.
      { code: 'balance_too_low' },
    );
  }
  await transition(tx, order, 'paid', now, {
    paidFromMoney: charge.fromMoney,
    paidFromBonus: charge.fromBonus,
  });
  await adjustUserCounters(tx, order.idSeller, { unsentShipments: 1 });
}

export async function payOrder(ctx: DomainContext, idOrder: number): Promise<OrderView> {
  return ctx.database.transaction(async (tx) => {
    const order = await findOrder(tx, idOrder);
    if (!order) throw notFound(`There is no order ${idOrder}.`);
    await payOrderInTx(tx, order, ctx.clock.now());
    return loadOrderView(tx, idOrder);
  });
}

/**
 * The operator settles a sent order as lost (`cardbazaar order lost ID`), e.g. after the carrier
 * confirmed it: the same as the seller accepting the buyer's report.
 */
export async function settleLost(ctx: DomainContext, idOrder: number, reason?: string): Promise<OrderView> {
  return ctx.database.transaction(async (tx) => {
    const order = await findOrder(tx, idOrder);
    if (!order) throw notFound(`There is no order ${idOrder}.`);
    if (order.wasMergedInto !== null) {
      throw preconditionFailed(`Order ${idOrder} was merged into order ${order.wasMergedInto}.`);
    }
    if (order.state !== 'sent') {
      throw preconditionFailed(`Order ${idOrder} is ${order.state}: only a sent order can be lost.`);
    }
    const why = reason?.trim() || order.cancellationRequestBuyer || 'Settled as lost by the operator.';
    await lose(tx, order, ctx.clock.now(), why);
    return loadOrderView(tx, idOrder);
  });
}

/** Why this person may not set the order's tracking number now (null: they may). */
function trackingNumberRefusal(order: Order, role: Role): Refusal | null {
  if (
    role !== 'seller' ||
    (order.state !== 'paid' && order.state !== 'sent') ||
    order.wasMergedInto !== null
  ) {
    return refusal('only the seller does, of a paid or sent order.', 'order_tracking_refused');
  }
  return null;
}

/** Whether `setTrackingNumber` would let this person change the tracking number (the order page's form). */
export function mayChangeTrackingNumber(order: Order, idUser: number): boolean {
  return trackingNumberRefusal(order, roleIn(order, idUser)) === null;
}

/** `PUT /order/:idOrder/tracking`: the seller gives or corrects the tracking number of a paid or sent order. */
export async function setTrackingNumber(
  ctx: DomainContext,
  idUser: number,
  idOrder: number,
  trackingNumber: string,
): Promise<OrderView> {
  const value = trackingNumber.trim();
  if (value === '')
    throw badRequest('"trackingNumber" is required.', { field: 'trackingNumber', reason: 'required' });
  limitedOrderText(value, 'trackingNumber', MAX_TRACKING_LENGTH);
  return ctx.database.transaction(async (tx) => {
    const order = await partyOrder(tx, idUser, idOrder);
    const role = roleIn(order, idUser);
    const why = trackingNumberRefusal(order, role);
    if (why) throw refused(order, 'set the tracking number of', role, why);
    if (!(await updateOrderIf(tx, idOrder, order.revision, { trackingNumber: value })))
      throw changedMeanwhile(order);
    await appendEvent(tx, EVENTS.orderChanged, { idOrder, change: 'trackingNumber' }, ctx.clock.now());
    return loadOrderView(tx, idOrder);
  });
}

/**
 * Going on vacation (`PUT /account/vacation?onVacation=true`): the seller's articles leave every
 * cart; with `cancelOrders=true` their unsent orders (bought and paid) are cancelled at once — the
 * waiting period is the buyer's protection, not the seller's — paid ones refunded, and the copies
 * relisted with `relistItems=true`.
 */
onVacationStart(async (ctx, tx, idUser, { cancelOrders, relistItems }) => {
  const now = ctx.clock.now();
  await releaseSellerReservations(tx, idUser, now);
  if (!cancelOrders) return;
  for (const order of await sellerOrdersIn(tx, idUser, ['bought', 'paid'])) {
    await cancel(tx, order, now, { reason: 'The seller went on vacation.', relist: relistItems });
  }
});
