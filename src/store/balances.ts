import type { Executor } from './db.js';

/**
 * Moving money between balances and orders. Every change is a conditional update, so a balance
 * never goes below zero whatever races above it (the CHECK constraints are the last guard).
 */

export interface Charge {
  fromMoney: number;
  fromBonus: number;
}

/**
 * Takes `cents` from a user's balances, the money balance first and the bonus balance for the rest.
 * Undefined when both together hold less (nothing changes then).
 */
export async function chargeBalances(
  db: Executor,
  idUser: number,
  cents: number,
): Promise<Charge | undefined> {
  // The split is decided on the balances read, and applied only if they still allow it: a
  // concurrent change (PostgreSQL) makes the update miss, and the split is decided again.
  for (let attempt = 0; attempt < 5; attempt++) {
    const user = await db
      .selectFrom('users')
      .select(['moneyBalance', 'bonusBalance'])
      .where('idUser', '=', idUser)
      .executeTakeFirst();
    if (!user || user.moneyBalance + user.bonusBalance < cents) return undefined;
    const fromMoney = Math.min(user.moneyBalance, cents);
    const fromBonus = cents - fromMoney;
    const r = await db
      .updateTable('users')
      .set((eb) => ({
        moneyBalance: eb('moneyBalance', '-', fromMoney),
        bonusBalance: eb('bonusBalance', '-', fromBonus),
      }))
      .where('idUser', '=', idUser)
      .where('moneyBalance', '>=', fromMoney)
      .where('bonusBalance', '>=', fromBonus)
      .executeTakeFirst();
    if (r.numUpdatedRows === 1n) return { fromMoney, fromBonus };
  }
  return undefined;
}

/** Gives money back to the balances it came from. */
export async function refundBalances(db: Executor, idUser: number, charge: Charge): Promise<void> {
  await db
    .updateTable('users')
    .set((eb) => ({
      moneyBalance: eb('moneyBalance', '+', charge.fromMoney),
      bonusBalance: eb('bonusBalance', '+', charge.fromBonus),
    }))
    .where('idUser', '=', idUser)
    .execute();
}
