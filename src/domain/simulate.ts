import { badRequest, notFound, preconditionFailed } from '../errors.js';
import { findOrder } from '../store/orders.js';
import { buyerReservations } from '../store/reservations.js';
import type { User } from '../store/schema.js';
import { addMoneyBalance, findUserByUsername } from '../store/users.js';
import { changeCartInTx, releaseReservation } from './cart.js';
import { checkoutInTx } from './checkout.js';
import { loadOrdersByIds, type OrderView } from './order-views.js';
import { payOrderInTx } from './orders.js';
import { MAX_CART_ARTICLES, type TradingContext } from './trading.js';
import { createUser } from './users.js';

/**
 * `cardbazaar simulate purchase` (sandbox): a demo buyer buys copies of a seller's articles (and
 * pays, with `--pay`), so a seller's tool has real orders to work on. The buyer is a user of its
 * own, `sandbox-buyer`, created on first use; its cart is used for nothing else.
 */
export const SIMULATED_BUYER = 'sandbox-buyer';

export interface SimulatedPurchase {
  buyer: User;
  /** The orders that hold the articles bought: new ones, or the unpaid ones they were merged into. */
  orders: OrderView[];
  /** Cents the buyer's balance was topped up by to pay (money entering the marketplace). */
  toppedUp: number;
}

async function simulatedBuyer(ctx: TradingContext): Promise<User> {
  const existing = await findUserByUsername(ctx.database.db, SIMULATED_BUYER);
  if (existing) return existing;
  return createUser(ctx, {
    username: SIMULATED_BUYER,
    country: 'D',
    accountType: 'private',
    firstName: 'Sandra',
    lastName: 'Sandbox',
    street: 'Testweg 1',
    zip: '10115',
    city: 'Berlin',
    email: 'sandbox-buyer@demo.cardbazaar.test',
    phoneNumber: '+49 30 1234567',
  });
}

export async function simulatePurchase(
  ctx: TradingContext,
  sellerName: string,
  copies: number,
  pay: boolean,
): Promise<SimulatedPurchase> {
  if (!Number.isInteger(copies) || copies < 1) throw badRequest('--articles must be a positive integer.');
  const buyer = await simulatedBuyer(ctx);
  return ctx.database.transaction(async (tx) => {
    const now = ctx.clock.now();
    const seller = await findUserByUsername(tx, sellerName);
    if (!seller) throw notFound(`There is no user "${sellerName}".`);
    if (seller.idUser === buyer.idUser) throw badRequest(`${SIMULATED_BUYER} cannot buy from itself.`);
    if (seller.onVacation)
      throw preconditionFailed(`${sellerName} is on vacation: nobody can buy from them.`);

    // A fresh cart: whatever an earlier run left there goes back to the marketplace first.
    for (const r of await buyerReservations(tx, buyer.idUser)) await releaseReservation(tx, r, now);

    // Oldest articles first: the same stock always makes the same purchase.
    const stock = await tx
      .selectFrom('articles')
      .select(['idArticle', 'count'])
      .where('idUser', '=', seller.idUser)
      .where('count', '>', 0)
      .orderBy('idArticle')
      .limit(MAX_CART_ARTICLES)
      .execute();
    const items: Array<{ idArticle: number; count: number }> = [];
    let left = copies;
    for (const a of stock) {
      if (left === 0) break;
      const n = Math.min(a.count, left);
      items.push({ idArticle: a.idArticle, count: n });
      left -= n;
    }
    if (items.length === 0) throw preconditionFailed(`${sellerName} has no articles available to buy.`);
    const failed = await changeCartInTx(ctx, tx, buyer.idUser, 'add', items, now);
    if (failed.length > 0) throw preconditionFailed(failed.map((f) => f.error).join(' '));
    const ids = await checkoutInTx(tx, buyer.idUser, now);

    const holding: number[] = [];
    for (const id of ids) {
      const created = (await findOrder(tx, id))!;
      const target = created.wasMergedInto ?? id;
      if (!holding.includes(target)) holding.push(target);
    }

    let toppedUp = 0;
    if (pay) {
      for (const id of holding) {
        const target = (await findOrder(tx, id))!;
        const funds = await tx
          .selectFrom('users')
          .select(['moneyBalance', 'bonusBalance'])
          .where('idUser', '=', buyer.idUser)
          .executeTakeFirstOrThrow();
        const missing = target.totalValue - funds.moneyBalance - funds.bonusBalance;
        if (missing > 0) {
          await addMoneyBalance(tx, buyer.idUser, missing);
          toppedUp += missing;
        }
        await payOrderInTx(tx, target, now);
      }
    }
    return { buyer, orders: await loadOrdersByIds(tx, holding), toppedUp };
  });
}
