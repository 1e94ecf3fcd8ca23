import { sql } from 'kysely';
import type { Executor } from './db.js';
import { prepared } from './prepared.js';
import type { User } from './schema.js';

/** The account's numbers that live in other features' tables. */
export interface AccountCounters {
  /** Copies in the user's shopping cart (their reservations). */
  articlesInShoppingCart: number;
  /** Messages the user received and has not read (a deleted message is never unread). */
  unreadMessages: number;
  /** Cents owed for orders bought and not yet paid (merged orders count once, in the survivor). */
  unpaidAmount: number;
}

/**
 * The user's columns the account shows (and the rules that load it read): not the password hash,
 * the company or the unsent shipments, which SQLite would otherwise read and convert on every
 * GET /account for nothing.
 */
const ACCOUNT_COLUMNS = [
  'u.idUser',
  'u.username',
  'u.country',
  'u.isCommercial',
  'u.maySell',
  'u.sellerActivation',
  'u.riskGroup',
  'u.lossPercentage',
  'u.reputation',
  'u.shipsFast',
  'u.onVacation',
  'u.idDisplayLanguage',
  'u.firstName',
  'u.lastName',
  'u.addressName',
  'u.addressExtra',
  'u.street',
  'u.zip',
  'u.city',
  'u.email',
  'u.phoneNumber',
  'u.vat',
  'u.legalInformation',
  'u.registerDate',
  'u.isActivated',
  'u.moneyBalance',
  'u.bonusBalance',
  'u.providerRechargeAmount',
  'u.accountOwner',
  'u.iban',
  'u.bic',
  'u.bankName',
  'u.sellCount',
  'u.soldItems',
  'u.avgShippingTime',
] as const;

/** The user as the account loads them. */
export type AccountUser = Omit<User, 'passwordHash' | 'company' | 'unsentShipments'>;

/**
 * GET /account is the API's hot path: the user's row and the three counters come from one
 * statement, compiled once, each counter answered by an index (reservations by buyer,
 * messages_unread, the partial orders_by_buyer_state). The literals stay literals so the prepared
 * statement takes exactly the user's id, four times.
 */
const accountRow = prepared(
  (db, idUser: number, idBuyer: number, idReceiver: number, idOrderBuyer: number) =>
    db
      .selectFrom('users as u')
      .select(ACCOUNT_COLUMNS)
      .select((eb) => [
        eb
          .selectFrom('reservationArticles as ra')
          .innerJoin('reservations as r', 'r.idReservation', 'ra.idReservation')
          .select(sql<number>`coalesce(sum(ra."count"), 0)`.as('n'))
          .where('r.idBuyer', '=', idBuyer)
          .as('c_articlesInShoppingCart'),
        eb
          .selectFrom('messages')
          .select(eb.fn.countAll<number>().as('n'))
          .where('idReceiver', '=', idReceiver)
          .where('unread', '=', sql.lit(1))
          // A message the receiver deleted is gone from their side, read or not.
          .where('receiverDeleted', '=', sql.lit(0))
          .as('c_unreadMessages'),
        eb
          .selectFrom('orders')
          .select(sql<number>`coalesce(sum("totalValue"), 0)`.as('n'))
          .where('idBuyer', '=', idOrderBuyer)
          .where('state', '=', sql.lit('bought'))
          .where('wasMergedInto', 'is', null)
          .as('c_unpaidAmount'),
      ])
      .where('u.idUser', '=', idUser),
  [0, 0, 0, 0],
);

/** The user and their counters, or undefined when there is no such user. */
export async function findAccount(
  db: Executor,
  idUser: number,
): Promise<{ user: AccountUser; counters: AccountCounters } | undefined> {
  const row = (await accountRow(db, idUser, idUser, idUser, idUser))[0];
  if (!row) return undefined;
  return {
    // The row itself, its three counter columns still on it: copying the other columns out (an
    // object rest) built a dictionary-mode object on every request, slow to make and to read.
    user: row as AccountUser,
    counters: {
      articlesInShoppingCart: Number(row.c_articlesInShoppingCart ?? 0),
      unreadMessages: Number(row.c_unreadMessages ?? 0),
      unpaidAmount: Number(row.c_unpaidAmount ?? 0),
    },
  };
}
