import type { Executor } from './db.js';

export async function insertCoupon(
  db: Executor,
  couponCode: string,
  value: number,
  createdAt: number,
): Promise<void> {
  await db
    .insertInto('coupons')
    .values({ couponCode, value, createdAt, redeemedBy: null, redeemedAt: null })
    .execute();
}

export async function findCoupon(db: Executor, couponCode: string) {
  return db.selectFrom('coupons').selectAll().where('couponCode', '=', couponCode).executeTakeFirst();
}

/** Marks the coupon redeemed if nobody has yet; the condition in SQL makes a double spend impossible. */
export async function claimCoupon(
  db: Executor,
  couponCode: string,
  idUser: number,
  at: number,
): Promise<boolean> {
  const r = await db
    .updateTable('coupons')
    .set({ redeemedBy: idUser, redeemedAt: at })
    .where('couponCode', '=', couponCode)
    .where('redeemedBy', 'is', null)
    .executeTakeFirst();
  return r.numUpdatedRows === 1n;
}
