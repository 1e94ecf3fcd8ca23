import { badRequest, forbidden, notFound } from '../errors.js';
import { findOrder } from '../store/orders.js';
import type { DomainContext } from './context.js';
import { loadOrderView, type OrderView } from './order-views.js';
import { payOrderInTx } from './orders.js';
import { fundUser } from './users.js';

/**
 * Paying from the website (issue 17): the buyer pays their own bought order from their balances
 * through `payOrderInTx`, the very function the operator's `cardbazaar order pay` runs, so the
 * order of charges (money first, then bonus), the state check and the seller's counters are one
 * rule. The only difference is who may ask: the buyer, and only for their own order; anyone
 * else's order (the seller's too) does not exist for them, as the API answers other users' ids.
 */
export async function payOwnOrder(ctx: DomainContext, idBuyer: number, idOrder: number): Promise<OrderView> {
  return ctx.database.transaction(async (tx) => {
    const order = await findOrder(tx, idOrder);
    if (!order || order.idBuyer !== idBuyer) throw notFound(`There is no order ${idOrder} of yours to pay.`);
    await payOrderInTx(tx, order, ctx.clock.now());
    return loadOrderView(tx, idOrder);
  });
}

/** What one click of the sandbox's "add test money" button credits: 100.00 EUR. */
export const TEST_MONEY_CENTS = 10_000;

/**
 * The sandbox's "add test money": credits the money balance as `cardbazaar user fund` does. In
 * production money enters only through the operator (`user fund`), so this is refused there.
 */
export async function addTestMoney(
  ctx: DomainContext,
  mode: 'sandbox' | 'production',
  idUser: number,
  cents = TEST_MONEY_CENTS,
): Promise<void> {
  if (mode === 'production') {
    throw forbidden(
      'Test money exists only in the sandbox; the operator credits top-ups with `cardbazaar user fund`.',
      {
        code: 'test_money_production',
      },
    );
  }
  if (!Number.isInteger(cents) || cents <= 0 || cents > TEST_MONEY_CENTS) {
    throw badRequest(`Test money comes in amounts up to ${TEST_MONEY_CENTS / 100} EUR.`, { field: 'amount' });
  }
  await fundUser(ctx, idUser, cents);
}
