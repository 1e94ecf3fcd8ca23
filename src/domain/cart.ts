import { badRequest, notFound } from '../errors.js';
import type { Executor } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import {
  addReservedCopies,
  buyerReservationHolding,
  buyerReservations,
  cartShippingAddress,
  claimReservationLines,
  deleteReservation,
  expiredReservations,
  expiredReservationsHoldingAny,
  findReservation,
  lockArticles,
  lockReservation,
  openReservation,
  type PostalAddress,
  putCartShippingAddress,
  type ReservationLine,
  removeReservedCopies,
  reservationHoldsAny,
  reservationLines,
  returnToStock,
  sellerReservations,
  setReservationShippingMethod,
  takeFromStock,
  touchReservation,
} from '../store/reservations.js';
import type { Reservation, ShippingMethod, User } from '../store/schema.js';
import { shippingMethods } from '../store/shipping.js';
import { findUserById, usersByIds } from '../store/users.js';
import { type AccountView, loadAccount } from './account.js';
import type { DomainContext } from './context.js';
import { EVENTS } from './events.js';
import { availableMethods, effectiveMethod, type PricedMethod, shippingZone } from './shipping.js';
import { copies } from './stock-rules.js';
import { MAX_CART_ARTICLES, type TradingContext } from './trading.js';

/**
 * The shopping cart (spec §2.3, §4.2; reference §1.5, §2.16): one reservation per seller, holding
 * copies that have left the seller's available count until checkout, removal or expiry.
 */

export interface ReservationView {
  reservation: Reservation;
  seller: User;
  lines: ReservationLine[];
  articleCount: number;
  /** Cents, at the articles' current prices. */
  articleValue: number;
  /** The method the shipment would go by; undefined only if no method carries it. */
  shipping: PricedMethod | undefined;
  totalValue: number;
}

export interface CartView {
  account: AccountView;
  shippingAddress: PostalAddress;
  reservations: ReservationView[];
}

export interface CartItem {
  idArticle: number;
  count: number;
}

/** Why one article could not be added or removed: the API's text, and the pages' (`errors.<reason>`). */
interface Refusal {
  error: string;
  reason: string;
  params?: Record<string, string | number>;
}

export interface CartItemFailure extends CartItem, Refusal {}

export function homeAddress(
  user: Pick<User, 'addressName' | 'addressExtra' | 'street' | 'zip' | 'city' | 'country'>,
): PostalAddress {
  return {
    name: user.addressName,
    extra: user.addressExtra,
    street: user.street,
    zip: user.zip,
    city: user.city,
    country: user.country,
  };
}

export async function shippingAddressOf(
  db: Executor,
  buyer: Pick<User, 'idUser'> & Parameters<typeof homeAddress>[0],
): Promise<PostalAddress> {
  return (await cartShippingAddress(db, buyer.idUser)) ?? homeAddress(buyer);
}

/**
 * Prices reservations: article count and value, the shipping method and the total. `methods`: the
 * shipping methods when the caller has read them already (the checkout needs them again).
 */
export async function reservationViews(
  db: Executor,
  reservations: Reservation[],
  destinationCountry: string,
  knownMethods?: ShippingMethod[],
): Promise<ReservationView[]> {
  if (reservations.length === 0) return [];
  const [lines, sellers, methods] = await Promise.all([
    reservationLines(
      db,
      reservations.map((r) => r.idReservation),
    ),
    usersByIds(
      db,
      reservations.map((r) => r.idSeller),
    ),
    knownMethods ?? shippingMethods(db),
  ]);
  return reservations.map((reservation) => {
    const own = lines.filter((l) => l.idReservation === reservation.idReservation);
    const seller = sellers.get(reservation.idSeller)!;
    const articleCount = own.reduce((n, l) => n + l.reserved, 0);
    const articleValue = own.reduce((n, l) => n + l.reserved * l.view.price, 0);
    const zone = shippingZone(seller.country, destinationCountry);
    const shipping = effectiveMethod(methods, reservation.idShippingMethod, zone, articleCount, articleValue);
    return {
      reservation,
      seller,
      lines: own,
      articleCount,
      articleValue,
      shipping,
      totalValue: articleValue + (shipping?.price ?? 0),
    };
  });
}

export async function loadCart(db: Executor, idBuyer: number, now: number): Promise<CartView> {
  const account = await loadAccount(db, idBuyer, now);
  const shippingAddress = await shippingAddressOf(db, account.user);
  const reservations = await reservationViews(
    db,
    await buyerReservations(db, idBuyer),
    shippingAddress.country,
  );
  return { account, shippingAddress, reservations };
}

/**
 * Releases a reservation: its copies go back to the articles' available counts. An article that
 * was sold out and becomes available again raises `articleListed` (wants-list alerts). With
 * `onlyIfExpired`, a reservation renewed meanwhile (by a concurrent add) is left alone. Returns
 * whether it was released.
 */
export async function releaseReservation(
  db: Executor,
  reservation: Reservation,
  now: number,
  onlyIfExpired = false,
): Promise<boolean> {
  return (await releaseReservations(db, [reservation], now, onlyIfExpired)) === 1;
}

/**
 * Releases reservations together, taking the rows in one order on every path (docs/developing.md,
 * "Locks in one order"): first every reservation, by id, then the articles their copies go back to,
 * by id.
 * Two releases of reservations that share articles, or a release beside a cart change or a
 * checkout (which lock their reservations before their articles, too), then wait for each other
 * instead of deadlocking on PostgreSQL. Returns how many were released.
 */
export async function releaseReservations(
  db: Executor,
  reservations: readonly Reservation[],
  now: number,
  onlyIfExpired = false,
): Promise<number> {
  const ids = [...new Set(reservations.map((r) => r.idReservation))].sort((a, b) => a - b);
  const released: number[] = [];
  for (const id of ids) {
    if (await lockReservation(db, id, onlyIfExpired ? now : undefined)) released.push(id);
  }
  const copies = new Map<number, number>();
  for (const id of released) {
    for (const line of await claimReservationLines(db, id)) {
      copies.set(line.idArticle, (copies.get(line.idArticle) ?? 0) + line.count);
    }
  }
  for (const idArticle of [...copies.keys()].sort((a, b) => a - b)) {
    await returnCopies(db, idArticle, copies.get(idArticle)!, now);
  }
  for (const id of released) await deleteReservation(db, id);
  return released.length;
}

/** Copies back on offer; an article sold out until now raises `articleListed` (wants-list alerts). */
async function returnCopies(db: Executor, idArticle: number, n: number, now: number): Promise<void> {
  const count = await returnToStock(db, idArticle, n);
  if (count === n) await appendEvent(db, EVENTS.articleListed, { idArticle }, now);
}

/** A reservation left without lines leaves the cart. */
async function dropIfEmpty(db: Executor, idReservation: number): Promise<void> {
  if (!(await reservationHoldsAny(db, idReservation))) await deleteReservation(db, idReservation);
}

/** Releases expired reservations (one buyer's, or everyone's); returns how many. */
export async function releaseExpired(db: Executor, now: number, idBuyer?: number): Promise<number> {
  return releaseReservations(db, await expiredReservations(db, now, { idBuyer }), now, true);
}

/** The background sweep: expired reservations of everyone, in batches of their own transactions. */
export async function sweepExpiredReservations(ctx: DomainContext): Promise<number> {
  let total = 0;
  for (;;) {
    const [found, released] = await ctx.database.transaction(async (tx) => {
      const now = ctx.clock.now();
      const expired = await expiredReservations(tx, now, { limit: 100 });
      return [expired.length, await releaseReservations(tx, expired, now, true)];
    });
    total += released;
    if (found < 100) return total;
  }
}

/** Releases every reservation holding a seller's articles (the seller went on vacation). */
export async function releaseSellerReservations(db: Executor, idSeller: number, now: number): Promise<void> {
  await releaseReservations(db, await sellerReservations(db, idSeller), now);
}

export async function getCart(ctx: DomainContext, idBuyer: number): Promise<CartView> {
  return ctx.database.transaction(async (tx) => {
    await releaseExpired(tx, ctx.clock.now(), idBuyer);
    return loadCart(tx, idBuyer, ctx.clock.now());
  });
}

function checkItems(items: CartItem[]): void {
  if (items.length === 0)
    throw badRequest('Name at least one <article> with <idArticle> and <count>.', { field: 'article' });
  if (items.length > MAX_CART_ARTICLES) {
    throw badRequest(
      `At most ${MAX_CART_ARTICLES} articles per request (got ${items.length}); nothing was changed.`,
      {
        field: 'article',
      },
    );
  }
}

async function addOne(ctx: TradingContext, tx: Executor, idBuyer: number, item: CartItem, now: number) {
  const article = await tx
    .selectFrom('articles')
    .select(['idArticle', 'idUser', 'count'])
    .where('idArticle', '=', item.idArticle)
    .executeTakeFirst();
  if (!article)
    return {
      error: `Article ${item.idArticle} does not exist or is no longer offered.`,
      reason: 'offer_gone',
    };
  if (article.idUser === idBuyer)
    return { error: `Article ${item.idArticle} is your own: you cannot buy it.`, reason: 'offer_own' };
  const seller = await findUserById(tx, article.idUser);
  if (!seller || seller.onVacation)
    return { error: `The seller of article ${item.idArticle} is on vacation.`, reason: 'seller_on_vacation' };
  // The reservation first (its row lock orders this add with a release or checkout of it), then
  // the copies.
  const reservation = await openReservation(
    tx,
    idBuyer,
    seller.idUser,
    now,
    now + ctx.config.reservationExpiryMs,
  );
  // Copies held by reservations that expired but were not swept yet were released before any row
  // was locked (`changeCartInTx`), so they are on offer here.
  const taken = await takeFromStock(tx, item.idArticle, item.count);
  if (!taken) {
    await dropIfEmpty(tx, reservation.idReservation);
    const left = await tx
      .selectFrom('articles')
      .select('count')
      .where('idArticle', '=', item.idArticle)
      .executeTakeFirst();
    const available = left?.count ?? 0;
    return {
      error: `Only ${copies(available)} of article ${item.idArticle} available; ${item.count} requested.`,
      reason: 'offer_short',
      params: { available },
    };
  }
  await addReservedCopies(tx, reservation.idReservation, item.idArticle, item.count);
  await appendEvent(tx, EVENTS.articleReserved, { idArticle: item.idArticle, count: item.count }, now);
  return undefined;
}

async function removeOne(ctx: TradingContext, tx: Executor, idBuyer: number, item: CartItem, now: number) {
  const holding = await buyerReservationHolding(tx, idBuyer, item.idArticle);
  // Renewing the expiry locks the reservation before its lines change.
  const reservation =
    holding && (await touchReservation(tx, holding.idReservation, now + ctx.config.reservationExpiryMs));
  const reserved = reservation && (await buyerReservationHolding(tx, idBuyer, item.idArticle));
  if (!reservation || !reserved)
    return { error: `Article ${item.idArticle} is not in your shopping cart.`, reason: 'not_in_cart' };
  if (!(await removeReservedCopies(tx, reservation.idReservation, item.idArticle, item.count))) {
    return {
      error: `Only ${copies(reserved.reserved)} of article ${item.idArticle} in your shopping cart; ${item.count} to remove.`,
      reason: 'cart_short',
      params: { available: reserved.reserved },
    };
  }
  await returnCopies(tx, item.idArticle, item.count, now);
  await dropIfEmpty(tx, reservation.idReservation);
  return undefined;
}

/**
 * `PUT /shoppingcart`: adds or removes (one action per request) up to 100 articles, in one
 * transaction. An article that cannot be added or removed is reported with the reason; the others
 * still are.
 */
export async function changeCart(
  ctx: TradingContext,
  idBuyer: number,
  action: 'add' | 'remove',
  items: CartItem[],
): Promise<{ cart: CartView; failed: CartItemFailure[] }> {
  checkItems(items);
  return ctx.database.transaction(async (tx) => {
    const failed = await changeCartInTx(ctx, tx, idBuyer, action, items, ctx.clock.now());
    return { cart: await loadCart(tx, idBuyer, ctx.clock.now()), failed };
  });
}

/** The work of `changeCart` inside a transaction the caller holds; returns the refusals. */
export async function changeCartInTx(
  ctx: TradingContext,
  tx: Executor,
  idBuyer: number,
  action: 'add' | 'remove',
  items: CartItem[],
  now: number,
): Promise<CartItemFailure[]> {
  // The buyer's expired reservations, and for an add the expired reservations holding the articles
  // named (their copies are available), released first, before this transaction locks any row.
  const expired = await expiredReservations(tx, now, { idBuyer });
  if (action === 'add') {
    const named = [...new Set(items.map((i) => i.idArticle))];
    expired.push(...(await expiredReservationsHoldingAny(tx, named, now)));
  }
  await releaseReservations(tx, expired, now, true);
  // Then the articles named, in id order (PostgreSQL), so two adds naming the same articles in
  // other orders wait for each other instead of deadlocking.
  if (action === 'add')
    await lockArticles(
      tx,
      items.map((i) => i.idArticle),
    );
  const failed: CartItemFailure[] = [];
  for (const item of items) {
    const refusal: Refusal | undefined =
      action === 'add'
        ? await addOne(ctx, tx, idBuyer, item, now)
        : await removeOne(ctx, tx, idBuyer, item, now);
    if (refusal) failed.push({ ...item, ...refusal });
  }
  return failed;
}

/** `DELETE /shoppingcart`: every reservation released. */
export async function emptyCart(ctx: DomainContext, idBuyer: number): Promise<CartView> {
  return ctx.database.transaction(async (tx) => {
    const now = ctx.clock.now();
    await releaseReservations(tx, await buyerReservations(tx, idBuyer), now);
    return loadCart(tx, idBuyer, ctx.clock.now());
  });
}

export async function setCartShippingAddress(
  ctx: DomainContext,
  idBuyer: number,
  address: PostalAddress,
): Promise<CartView> {
  return ctx.database.transaction(async (tx) => {
    await releaseExpired(tx, ctx.clock.now(), idBuyer);
    await putCartShippingAddress(tx, idBuyer, address);
    return loadCart(tx, idBuyer, ctx.clock.now());
  });
}

/** The caller's live reservation, or 404 (another buyer's reservation is not theirs to see). */
async function ownReservation(tx: Executor, idBuyer: number, idReservation: number): Promise<Reservation> {
  const reservation = await findReservation(tx, idReservation);
  if (!reservation || reservation.idBuyer !== idBuyer) {
    throw notFound(`There is no reservation ${idReservation} in your shopping cart.`);
  }
  return reservation;
}

async function methodsFor(tx: Executor, idBuyer: number, reservation: Reservation): Promise<PricedMethod[]> {
  const buyer = await findUserById(tx, idBuyer);
  const address = await shippingAddressOf(tx, buyer!);
  const [view] = await reservationViews(tx, [reservation], address.country);
  const zone = shippingZone(view!.seller.country, address.country);
  return availableMethods(await shippingMethods(tx), zone, view!.articleCount, view!.articleValue);
}

/** `GET /shoppingcart/shippingmethod/:idReservation`: the methods that can carry it, cheapest first. */
export async function reservationShippingMethods(
  ctx: DomainContext,
  idBuyer: number,
  idReservation: number,
): Promise<PricedMethod[]> {
  return ctx.database.transaction(async (tx) => {
    await releaseExpired(tx, ctx.clock.now(), idBuyer);
    return methodsFor(tx, idBuyer, await ownReservation(tx, idBuyer, idReservation));
  });
}

/** `PUT /shoppingcart/shippingmethod/:idReservation`: a method that can carry the reservation. */
export async function setReservationMethod(
  ctx: DomainContext,
  idBuyer: number,
  idReservation: number,
  idShippingMethod: number,
): Promise<CartView> {
  return ctx.database.transaction(async (tx) => {
    await releaseExpired(tx, ctx.clock.now(), idBuyer);
    const available = await methodsFor(tx, idBuyer, await ownReservation(tx, idBuyer, idReservation));
    if (!available.some((m) => m.method.idShippingMethod === idShippingMethod)) {
      throw badRequest(
        `Shipping method ${idShippingMethod} is not available for reservation ${idReservation}; available: ${available
          .map((m) => m.method.idShippingMethod)
          .join(', ')}.`,
        { field: 'idShippingMethod', reason: 'shipping_method_unavailable' },
      );
    }
    await setReservationShippingMethod(tx, idReservation, idShippingMethod);
    return loadCart(tx, idBuyer, ctx.clock.now());
  });
}

/**
 * Releases expired reservations every few seconds, so copies of abandoned carts return to the
 * marketplace even if their buyer never comes back (a buyer's own cart, and an add that finds too
 * few copies, release expired reservations at once). Returns the function that stops it.
 */
export function startReservationSweeper(ctx: DomainContext, intervalMs = 5000): () => Promise<void> {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    running ??= sweepExpiredReservations(ctx)
      .catch(() => {})
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
