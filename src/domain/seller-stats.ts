import type { Executor } from '../store/db.js';
import { addSellerStats, adjustUserCounters } from '../store/orders.js';
import type { Order } from '../store/schema.js';
import { updateUser } from '../store/users.js';

/**
 * The seller's public numbers (reference §2.1, §2.2), kept in the transactions of the events that
 * change them so listings read them from the users row:
 *  - `sellCount` / `soldItems`: orders sent and the articles in them (a sent order cannot be
 *    cancelled any more, so these never go back);
 *  - `unsentShipments`: paid orders not yet sent (kept by pay, send and cancel);
 *  - `avgShippingTime`: mean days from payment to shipment, rounded; `shipsFast` from it
 *    (1 very fast: two days or less, 2 fast: four days or less, else 0);
 *  - `reputation`: from the buyers' overall grades (1 very good … 4 bad; 10 "n/a" is not counted),
 *    0 until MIN_RATED evaluations exist;
 *  - `lossPercentage`: the share of sent orders that were lost, as the live API's bands
 *    (`0 - 2%`, `2 - 5%`, `5 - 10%`, and `10 - 100%` beyond).
 */
const DAY = 86_400_000;
export const MIN_RATED = 3;

export async function recordShipment(tx: Executor, order: Order, now: number): Promise<void> {
  await adjustUserCounters(tx, order.idSeller, {
    unsentShipments: -1,
    sellCount: 1,
    soldItems: order.articleCount,
  });
  const stats = await addSellerStats(tx, order.idSeller, {
    shippedOrders: 1,
    shippingTimeTotalMs: Math.max(0, now - (order.datePaid ?? now)),
  });
  const avgDays = stats.shippingTimeTotalMs / stats.shippedOrders / DAY;
  await updateUser(tx, order.idSeller, {
    avgShippingTime: Math.round(avgDays),
    shipsFast: avgDays <= 2 ? 1 : avgDays <= 4 ? 2 : 0,
  });
}

/** Reputation from the mean overall grade: 1 outstanding … 5 bad (0: not enough evaluations). */
function reputationOf(rated: number, gradeTotal: number): number {
  if (rated < MIN_RATED) return 0;
  const mean = gradeTotal / rated;
  if (mean <= 1.25) return 1;
  if (mean <= 1.75) return 2;
  if (mean <= 2.5) return 3;
  if (mean <= 3.25) return 4;
  return 5;
}

export async function recordEvaluation(
  tx: Executor,
  idSeller: number,
  evaluationGrade: number,
): Promise<void> {
  if (evaluationGrade === 10) return;
  const stats = await addSellerStats(tx, idSeller, {
    ratedEvaluations: 1,
    evaluationGradeTotal: evaluationGrade,
  });
  await updateUser(tx, idSeller, {
    reputation: reputationOf(stats.ratedEvaluations, stats.evaluationGradeTotal),
  });
}

/** The band of the live API's `lossPercentage` a share of lost shipments falls in. */
export function lossBand(lost: number, shipped: number): string {
  const share = shipped === 0 ? 0 : lost / shipped;
  if (share <= 0.02) return '0 - 2%';
  if (share <= 0.05) return '2 - 5%';
  if (share <= 0.1) return '5 - 10%';
  return '10 - 100%';
}

/** A sent order the buyer never received (`lost`): counted, and the seller's loss band moves. */
export async function recordLoss(tx: Executor, idSeller: number): Promise<void> {
  const stats = await addSellerStats(tx, idSeller, { lostOrders: 1 });
  await updateUser(tx, idSeller, { lossPercentage: lossBand(stats.lostOrders, stats.shippedOrders) });
}
