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
 * GET /account is the API's hot path: the user's row and the three counters come from one
 * statement, compiled once, each counter answered by an index (reservations by buyer,
 * messages_unread, the partial orders_by_buyer_state). The literals stay literals so the prepared
 * statement takes exactly the user's id, four times.
 */
const accountRow = prepared(
  (db, idUser: number, idBuyer: number, idReceiver: number, idOrderBuyer: number) =>
    db
      .selectFrom('users as u')
      .selectAll('u')
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
): Promise<{ user: User; counters: AccountCounters } | undefined> {
  const row = (await accountRow(db, idUser, idUser, idUser, idUser))[0];
  if (!row) return undefined;
  return {
    // The row itself, its three counter columns still on it: copying the other 38 columns out (an
    // object rest) built a dictionary-mode object on every request, slow to make and to read.
    user: row as User,
    counters: {
      articlesInShoppingCart: Number(row.c_articlesInShoppingCart ?? 0),
      unreadMessages: Number(row.c_unreadMessages ?? 0),
      unpaidAmount: Number(row.c_unpaidAmount ?? 0),
    },
  };
}
