import { randomInt } from 'node:crypto';
import { badRequest, forbidden, notFound, preconditionFailed, readEachField } from '../errors.js';
import { berlinDay } from '../limits/berlin-day.js';
import { formatCents, formatTimestamp } from '../format.js';
import type { Executor } from '../store/db.js';
import type { SellerActivationRow, User } from '../store/schema.js';
import {
  addFailedAttempt,
  deleteSellerActivation,
  findSellerActivation,
  putSellerActivation,
} from '../store/seller-activations.js';
import { findUserById, updateUser } from '../store/users.js';
import type { DomainContext } from './context.js';
import { parsePriceCents } from './money.js';

/**
 * Seller activation (reference §1.2 and §2.1; deprecated on the live API but mapped by client
 * libraries): `sellerActivation` 0 none, 1 requested (transfers pending), 2 transfers made, 3
 * activated. `maySell` is true at 3 only, and only then may a user put articles on sale.
 *
 *   0 ──POST (bank details)──▶ 1 ──next marketplace day──▶ 2 ──PUT (the two amounts)──▶ 3
 *
 * The two small transfers (1 to 99 cents each) are what proves the account is the user's: the
 * operator shows them (`cardbazaar user activation NAME`, the profile page), as a bank statement
 * would. Wrong amounts are a 400; after MAX_ACTIVATION_ATTEMPTS the activation starts over, so the
 * amounts cannot be guessed. A user made by the operator (`user create`) or the demo data starts
 * activated; an account registered on the website starts at 0.
 */
export const SELLER_ACTIVATION = { none: 0, requested: 1, transfersMade: 2, activated: 3 } as const;
export type SellerActivationStart = typeof SELLER_ACTIVATION.none | typeof SELLER_ACTIVATION.activated;

export const MAX_ACTIVATION_ATTEMPTS = 5;

/** The columns a new user starts with. */
export function initialSellerActivation(start: SellerActivationStart = SELLER_ACTIVATION.activated) {
  return { sellerActivation: start, maySell: start === SELLER_ACTIVATION.activated ? 1 : 0 };
}

/** `0` or `3` as a command line or a form gives it. */
export function parseSellerActivationStart(text: string): SellerActivationStart {
  if (text.trim() === '0') return SELLER_ACTIVATION.none;
  if (text.trim() === '3') return SELLER_ACTIVATION.activated;
  throw badRequest(`A new user's seller activation is 0 (not activated) or 3 (activated), not "${text}".`);
}

/** The state as of `now`: a request becomes "transfers made" on the marketplace day after it. */
export function effectiveSellerActivation(
  user: Pick<User, 'sellerActivation'>,
  activation: Pick<SellerActivationRow, 'transfersAt'> | undefined,
  now: number,
): number {
  if (user.sellerActivation === SELLER_ACTIVATION.requested && activation && now >= activation.transfersAt) {
    return SELLER_ACTIVATION.transfersMade;
  }
  return user.sellerActivation;
}

/** A user's row as of `now`: only a pending request needs a look at its transfers. */
export async function withEffectiveActivation<T extends { user: Pick<User, 'idUser' | 'sellerActivation'> }>(
  db: Executor,
  account: T,
  now: number,
): Promise<T> {
  if (account.user.sellerActivation !== SELLER_ACTIVATION.requested) return account;
  const activation = await findSellerActivation(db, account.user.idUser);
  const state = effectiveSellerActivation(account.user, activation, now);
  return state === account.user.sellerActivation
    ? account
    : { ...account, user: { ...account.user, sellerActivation: state } };
}

export interface BankDetails {
  accountOwner: string;
  iban: string;
  bic: string;
  bankName: string;
  phoneNumber: string;
}

const field = (description: string, name: string, reason: string, params?: Record<string, number>) =>
  badRequest(description, { field: name, reason, params });

/** ISO 13616: country, check digits, 11 to 30 letters and digits; the check digits hold (mod 97). */
function normalizeIban(text: string): string {
  const iban = text.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) {
    throw field(`"${text}" is not an IBAN (e.g. DE89 3704 0044 0532 0130 00).`, 'iban', 'iban_invalid');
  }
  const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const d of digits) rest = (rest * 10 + Number(d)) % 97;
  if (rest !== 1)
    throw field(
      `The IBAN "${text}" has wrong check digits: check it for a typo.`,
      'iban',
      'iban_check_digits',
    );
  return iban;
}

/** ISO 9362: bank (4 letters), country (2), location (2), optionally a branch (3). */
function normalizeBic(text: string): string {
  const bic = text.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic)) {
    throw field(
      `"${text}" is not a BIC (8 or 11 letters and digits, e.g. COBADEFFXXX).`,
      'bic',
      'bic_invalid',
    );
  }
  return bic;
}

function plainText(value: string | undefined, name: string, max: number): string {
  const v = (value ?? '').trim();
  if (v === '') throw field(`${name} is required for the seller activation.`, name, 'required');
  if (v.length > max)
    throw field(`${name} may have at most ${max} characters.`, name, 'too_long_max', { max });
  return v;
}

/** Checks and normalizes what `POST /account/selleractivation` (or the website's form) sent. */
export function parseBankDetails(input: Partial<BankDetails>): BankDetails {
  // Every field is checked (the page shows each problem); the API answers with the first.
  return readEachField<BankDetails>({
    accountOwner: () => plainText(input.accountOwner, 'bankAccountOwner', 100),
    iban: () => normalizeIban(plainText(input.iban, 'iban', 60)),
    bic: () => normalizeBic(plainText(input.bic, 'bic', 20)),
    bankName: () => plainText(input.bankName, 'bankName', 100),
    phoneNumber: () => {
      const phoneNumber = plainText(input.phoneNumber, 'phoneNumber', 30);
      if (!/^\+?[\d ()/-]{5,}$/.test(phoneNumber) || !/\d{4}/.test(phoneNumber.replace(/\D/g, ''))) {
        throw field(
          `"${phoneNumber}" is not a phone number (digits, spaces, + - / ( ) allowed).`,
          'phoneNumber',
          'phone_invalid',
        );
      }
      return phoneNumber;
    },
  });
}

/** Two different amounts of 1 to 99 cents. */
function twoTransfers(): [number, number] {
  const first = randomInt(1, 100);
  let second = randomInt(1, 99);
  if (second >= first) second++;
  return [first, second];
}

/**
 * `POST /account/selleractivation`: records the bank details and moves 0 → 1. The transfers are
 * made to that account and arrive on the next marketplace day. Asking again before completing
 * starts over with new transfers (a corrected IBAN, say); an activated seller has nothing to ask.
 */
export async function requestSellerActivation(
  ctx: DomainContext,
  idUser: number,
  details: BankDetails,
): Promise<void> {
  return ctx.database.transaction(async (tx) => {
    const user = await findUserById(tx, idUser);
    if (!user) throw notFound(`User ${idUser} does not exist.`);
    if (user.sellerActivation === SELLER_ACTIVATION.activated) {
      throw preconditionFailed('This account is activated as a seller already (sellerActivation 3).', {
        reason: 'activated_already',
      });
    }
    const now = ctx.clock.now();
    const [transfer1, transfer2] = twoTransfers();
    await putSellerActivation(tx, {
      idUser,
      requestedAt: now,
      transfersAt: berlinDay(now).end,
      transfer1,
      transfer2,
      failedAttempts: 0,
    });
    await updateUser(tx, idUser, {
      accountOwner: details.accountOwner,
      iban: details.iban,
      bic: details.bic,
      bankName: details.bankName,
      phoneNumber: details.phoneNumber,
      sellerActivation: SELLER_ACTIVATION.requested,
      maySell: 0,
    });
  });
}

/** The two amounts as `PUT /account/selleractivation` sends them (`<amount1>`, `<amount2>`). */
export function parseTransferAmounts(
  amount1: string | undefined,
  amount2: string | undefined,
): [number, number] {
  if (amount1 === undefined || amount1.trim() === '')
    throw field('amount1 is required: the first transfer.', 'amount1', 'required');
  if (amount2 === undefined || amount2.trim() === '')
    throw field('amount2 is required: the second transfer.', 'amount2', 'required');
  return [parsePriceCents(amount1, 'amount1'), parsePriceCents(amount2, 'amount2')];
}

/**
 * `PUT /account/selleractivation`: the two amounts the user found on their statement, in either
 * order. Right: activated (3, `maySell` true). Wrong: 400, counted; the last allowed wrong answer
 * starts the activation over (0). The count is written even though the answer is an error.
 */
export async function completeSellerActivation(
  ctx: DomainContext,
  idUser: number,
  amounts: [number, number],
): Promise<void> {
  const outcome = await ctx.database.transaction(async (tx) => {
    const user = await findUserById(tx, idUser);
    if (!user) throw notFound(`User ${idUser} does not exist.`);
    const activation = await findSellerActivation(tx, idUser);
    const now = ctx.clock.now();
    const state = effectiveSellerActivation(user, activation, now);
    if (state === SELLER_ACTIVATION.activated) {
      throw preconditionFailed('This account is activated as a seller already (sellerActivation 3).', {
        reason: 'activated_already',
      });
    }
    if (state === SELLER_ACTIVATION.none || !activation) {
      throw preconditionFailed(
        'No seller activation was requested: POST /account/selleractivation with the bank details first.',
        { reason: 'activation_not_requested' },
      );
    }
    if (state === SELLER_ACTIVATION.requested) {
      throw preconditionFailed(
        `The two transfers have not arrived yet: they arrive on ${formatTimestamp(activation.transfersAt)}.`,
        { reason: 'transfers_not_arrived' },
      );
    }
    const [a, b] = [...amounts].sort((x, y) => x - y);
    const [t1, t2] = [activation.transfer1, activation.transfer2].sort((x, y) => x - y);
    if (a === t1 && b === t2) {
      await deleteSellerActivation(tx, idUser);
      await updateUser(tx, idUser, { sellerActivation: SELLER_ACTIVATION.activated, maySell: 1 });
      return { activated: true as const };
    }
    const failed = await addFailedAttempt(tx, idUser);
    if (failed >= MAX_ACTIVATION_ATTEMPTS) {
      await deleteSellerActivation(tx, idUser);
      await updateUser(tx, idUser, { sellerActivation: SELLER_ACTIVATION.none, maySell: 0 });
      return {
        error: badRequest(
          `These are not the two transfers, for the ${MAX_ACTIVATION_ATTEMPTS}th time: the seller activation starts over. Request it again with POST /account/selleractivation.`,
          { field: 'amount1', reason: 'activation_restarted' },
        ),
      };
    }
    return {
      error: badRequest(
        `These are not the two transfers to your account (${MAX_ACTIVATION_ATTEMPTS - failed} tries left).`,
        { field: 'amount1', reason: 'transfers_wrong', params: { left: MAX_ACTIVATION_ATTEMPTS - failed } },
      ),
    };
  });
  if ('error' in outcome) throw outcome.error;
}

/** What the operator (`user activation NAME`) and the profile page show of an activation. */
export interface SellerActivationStatus {
  sellerActivation: number;
  maySell: boolean;
  requestedAt: number | null;
  /** When the transfers arrive (or arrived). */
  transfersAt: number | null;
  /** The two amounts in cents, once they have arrived (state 2); null before. */
  transfers: [number, number] | null;
  failedAttempts: number;
  bankAccount: { accountOwner: string; iban: string; bic: string; bankName: string };
}

export async function sellerActivationStatus(
  ctx: DomainContext,
  idUser: number,
): Promise<SellerActivationStatus> {
  const db = ctx.database.db;
  const user = await findUserById(db, idUser);
  if (!user) throw notFound(`User ${idUser} does not exist.`);
  const activation = await findSellerActivation(db, idUser);
  const state = effectiveSellerActivation(user, activation, ctx.clock.now());
  return {
    sellerActivation: state,
    maySell: user.maySell === 1,
    requestedAt: activation?.requestedAt ?? null,
    transfersAt: activation?.transfersAt ?? null,
    transfers:
      activation && state === SELLER_ACTIVATION.transfersMade
        ? [activation.transfer1, activation.transfer2]
        : null,
    failedAttempts: activation?.failedAttempts ?? 0,
    bankAccount: { accountOwner: user.accountOwner, iban: user.iban, bic: user.bic, bankName: user.bankName },
  };
}

/** Amounts as the operator reads them out: `0.37 EUR`. */
export const transferText = (cents: number) => `${formatCents(cents)} EUR`;

/**
 * Selling (putting copies on sale) needs an activated seller. 403: the request is well formed and
 * the resource exists, but this account is not allowed to sell until the activation is complete
 * (a 400 would blame the data, a 412 a state of the request's target; neither is at fault).
 */
export async function assertMaySell(db: Executor, idUser: number): Promise<void> {
  const user = await findUserById(db, idUser);
  if (user && user.maySell !== 1) {
    throw forbidden(
      `This account may not sell yet (sellerActivation ${user.sellerActivation}): complete the seller activation (POST, then PUT /account/selleractivation) first.`,
      { code: 'seller_not_activated' },
    );
  }
}
