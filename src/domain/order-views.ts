import { badRequest, notFound } from '../errors.js';
import type { ArticleView } from '../store/articles.js';
import type { Executor } from '../store/db.js';
import {
  ACTOR_BUYER,
  ACTOR_SELLER,
  type Actor,
  evaluationsOf,
  findOrder,
  findOrders,
  orderCount,
  orderCountsByState,
  orderLineViews,
  pageOfOrders,
} from '../store/orders.js';
import type { Order, OrderEvaluation, OrderState } from '../store/schema.js';
import { type ShownUser, shownUsersByIds } from '../store/users.js';
import type { DomainContext } from './context.js';

/** The two sides of an order, as the API numbers them (`actor`), for the pages that pick one. */
export { ACTOR_BUYER, ACTOR_SELLER, type Actor };
export type { OrderState };

/** Everything the Order entity shows (reference §2.11). */
export interface OrderView {
  order: Order;
  seller: ShownUser;
  buyer: ShownUser;
  /** The frozen lines: `count` and `price` are what was bought. */
  lines: ArticleView[];
  evaluation: OrderEvaluation | undefined;
}

/** State names and the codes that may replace them in list paths (spec §3). */
export const ORDER_STATE_CODES: Record<OrderState, number> = {
  bought: 1,
  paid: 2,
  sent: 4,
  received: 8,
  lost: 32,
  cancelled: 128,
};

export function parseOrderState(text: string): OrderState {
  const t = text.trim().toLowerCase();
  for (const [name, code] of Object.entries(ORDER_STATE_CODES)) {
    if (t === name || t === String(code)) return name as OrderState;
  }
  throw badRequest(
    `Unknown order state "${text}": use bought (1), paid (2), sent (4), received (8), lost (32) or cancelled (128).`,
    { field: 'state' },
  );
}

export function parseActor(text: string): Actor {
  const t = text.trim().toLowerCase();
  if (t === 'seller' || t === '1') return ACTOR_SELLER;
  if (t === 'buyer' || t === '2') return ACTOR_BUYER;
  throw badRequest(`Unknown actor "${text}": use seller (1) or buyer (2).`, { field: 'actor' });
}

export async function loadOrderViews(db: Executor, orders: Order[]): Promise<OrderView[]> {
  if (orders.length === 0) return [];
  const ids = orders.map((o) => o.idOrder);
  const [users, lines, evaluations] = await Promise.all([
    shownUsersByIds(
      db,
      orders.flatMap((o) => [o.idSeller, o.idBuyer]),
    ),
    orderLineViews(db, orders),
    evaluationsOf(db, ids),
  ]);
  const linesOf = new Map<number, ArticleView[]>();
  for (const l of lines) {
    const list = linesOf.get(l.idOrder) ?? [];
    list.push(l.view);
    linesOf.set(l.idOrder, list);
  }
  return orders.map((order) => ({
    order,
    seller: users.get(order.idSeller)!,
    buyer: users.get(order.idBuyer)!,
    lines: linesOf.get(order.idOrder) ?? [],
    evaluation: evaluations.get(order.idOrder),
  }));
}

export async function loadOrderView(db: Executor, idOrder: number): Promise<OrderView> {
  const order = await findOrder(db, idOrder);
  if (!order) throw notFound(`There is no order ${idOrder}.`);
  return (await loadOrderViews(db, [order]))[0]!;
}

export async function loadOrdersByIds(db: Executor, idOrders: number[]): Promise<OrderView[]> {
  return loadOrderViews(db, await findOrders(db, idOrders));
}

/** An order its buyer or seller may see; anyone else is told it does not exist. */
export async function partyOrder(db: Executor, idUser: number, idOrder: number): Promise<Order> {
  const order = await findOrder(db, idOrder);
  if (!order || (order.idBuyer !== idUser && order.idSeller !== idUser)) {
    throw notFound(`There is no order ${idOrder} of yours.`, { reason: 'unknown_order' });
  }
  return order;
}

export async function getOrder(ctx: DomainContext, idUser: number, idOrder: number): Promise<OrderView> {
  const db = ctx.database.db;
  const order = await partyOrder(db, idUser, idOrder);
  return (await loadOrderViews(db, [order]))[0]!;
}

/** One page of the caller's orders in one role and state, and how many there are in all. */
/**
 * The side of the orders list a link that names none opens (the website's "Orders"): the seller's
 * when the user has sold orders in this state (a seller's paid orders are the ones to send), else
 * the buyer's.
 */
export async function defaultOrderActor(
  ctx: DomainContext,
  idUser: number,
  state: OrderState,
): Promise<Actor> {
  return (await orderCount(ctx.database.db, idUser, ACTOR_SELLER, state)) > 0 ? ACTOR_SELLER : ACTOR_BUYER;
}

/** How many orders the user has as one party in each state (the website's order tabs). */
export async function orderTabCounts(
  ctx: DomainContext,
  idUser: number,
  actor: Actor,
): Promise<Map<OrderState, number>> {
  return orderCountsByState(ctx.database.db, idUser, actor);
}

export async function listOrders(
  ctx: DomainContext,
  idUser: number,
  actor: Actor,
  state: OrderState,
  offset: number,
  limit: number,
): Promise<{ total: number; orders: OrderView[] }> {
  const db = ctx.database.db;
  const total = await orderCount(db, idUser, actor, state);
  if (total === 0 || offset >= total) return { total, orders: [] };
  const page = await pageOfOrders(db, idUser, actor, state, offset, limit, total);
  return { total, orders: await loadOrderViews(db, page) };
}
