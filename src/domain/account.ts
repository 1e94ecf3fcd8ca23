import { randomBytes } from 'node:crypto';
import { badRequest, notFound } from '../errors.js';
import { type AccountCounters, type AccountUser, findAccount } from '../store/accounts.js';
import { claimCoupon, findCoupon, insertCoupon } from '../store/coupons.js';
import type { Executor } from '../store/db.js';
import { addBonusBalance, updateUser } from '../store/users.js';
import { DISPLAY_LANGUAGES } from './catalog.js';
import type { DomainContext } from './context.js';
import { withEffectiveActivation } from './seller-activation.js';

/** Everything the Account entity shows: the user's row and the numbers counted elsewhere. */
export interface AccountView {
  user: AccountUser;
  counters: AccountCounters;
}

/** The account as of `now` (a seller activation's transfers arrive with the time). */
export async function loadAccount(db: Executor, idUser: number, now: number): Promise<AccountView> {
  const account = await findAccount(db, idUser);
  if (!account) throw notFound(`User ${idUser} does not exist.`);
  // Awaited: an async function that returns a promise unawaited waits two more microtasks for it.
  return await withEffectiveActivation(db, account, now);
}

// Not async: its promise is loadAccount's, with no second one wrapped around it (GET /account's path).
export function getAccount(ctx: DomainContext, idUser: number): Promise<AccountView> {
  return loadAccount(ctx.database.db, idUser, ctx.clock.now());
}

/**
 * Hooks for what going on vacation does to other features (cancelling open orders, relisting),
 * registered by those features so the account rules need not know them.
 */
export type VacationHook = (
  ctx: DomainContext,
  tx: Executor,
  idUser: number,
  options: { cancelOrders: boolean; relistItems: boolean },
) => Promise<void>;
const vacationHooks: VacationHook[] = [];
export function onVacationStart(hook: VacationHook): void {
  vacationHooks.push(hook);
}

export async function setVacation(
  ctx: DomainContext,
  idUser: number,
  onVacation: boolean,
  cancelOrders: boolean,
  relistItems: boolean,
): Promise<{ account: AccountView; message: string }> {
  return ctx.database.transaction(async (tx) => {
    const before = await loadAccount(tx, idUser, ctx.clock.now());
    await updateUser(tx, idUser, { onVacation: onVacation ? 1 : 0 });
    if (onVacation && before.user.maySell) {
      // relistItems is honoured only together with cancelOrders, as on the real API.
      for (const hook of vacationHooks) {
        await hook(ctx, tx, idUser, { cancelOrders, relistItems: cancelOrders && relistItems });
      }
    }
    const message = onVacation
      ? 'Successfully set the account on vacation.'
      : 'Successfully returned the account from vacation.';
    return { account: await loadAccount(tx, idUser, ctx.clock.now()), message };
  });
}

export async function setDisplayLanguage(ctx: DomainContext, idUser: number, idDisplayLanguage: number) {
  if (!(DISPLAY_LANGUAGES as readonly number[]).includes(idDisplayLanguage)) {
    throw badRequest(
      'idDisplayLanguage must be one of 1 (English), 2 (French), 3 (German), 4 (Spanish), 5 (Italian).',
      {
        field: 'idDisplayLanguage',
      },
    );
  }
  return ctx.database.transaction(async (tx) => {
    await updateUser(tx, idUser, { idDisplayLanguage });
    return loadAccount(tx, idUser, ctx.clock.now());
  });
}

export interface CouponResult {
  couponCode: string;
  successful: boolean;
  message: string;
}

/** Redeems each code once, crediting the bonus balance; one code's failure does not stop the others. */
export async function redeemCoupons(
  ctx: DomainContext,
  idUser: number,
  codes: string[],
): Promise<{ account: AccountView; coupon: CouponResult[] }> {
  if (codes.length === 0) throw badRequest('Send at least one couponCode element.', { field: 'couponCode' });
  if (codes.length > 100) throw badRequest('At most 100 coupon codes per request.', { field: 'couponCode' });
  return ctx.database.transaction(async (tx) => {
    const results: CouponResult[] = [];
    const now = ctx.clock.now();
    for (const couponCode of codes) {
      const coupon = couponCode ? await findCoupon(tx, couponCode) : undefined;
      if (!coupon) {
        results.push({ couponCode, successful: false, message: 'This coupon code does not exist.' });
      } else if (coupon.redeemedBy !== null || !(await claimCoupon(tx, couponCode, idUser, now))) {
        results.push({
          couponCode,
          successful: false,
          message: 'This coupon code has already been redeemed.',
        });
      } else {
        await addBonusBalance(tx, idUser, coupon.value);
        results.push({ couponCode, successful: true, message: 'The coupon has been redeemed.' });
      }
    }
    return { account: await loadAccount(tx, idUser, ctx.clock.now()), coupon: results };
  });
}

/** A new single-use coupon worth `valueCents`; the code is random unless given. */
export async function createCoupon(ctx: DomainContext, valueCents: number, code?: string): Promise<string> {
  if (!Number.isInteger(valueCents) || valueCents <= 0)
    throw badRequest('A coupon must be worth more than 0.');
  const couponCode = code ?? randomBytes(9).toString('base64url').toUpperCase().replace(/[-_]/g, 'X');
  await insertCoupon(ctx.database.db, couponCode, valueCents, ctx.clock.now());
  return couponCode;
}
