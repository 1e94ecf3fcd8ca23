import { sql } from 'kysely';
import type { Executor } from './db.js';
import { prepared } from './prepared.js';
import { unpaidAmount } from './orders.js';
import { articlesInShoppingCart } from './reservations.js';

/**
 * The account's numbers that live in other features' tables. Each feature adds its query here as
 * its tables arrive (cart reservations, messages, unpaid orders); until then there is nothing to
 * count and the answer is honestly zero.
 */
export interface AccountCounters {
  articlesInShoppingCart: number;
  unreadMessages: number;
  /** Cents owed for orders bought and not yet paid. */
  unpaidAmount: number;
}

// GET /account is the hot path: one indexed count (messages_unread), compiled once. A message the
// receiver deleted is never unread (deleting clears the flag).
const unreadMessageCount = prepared(
  (db, idUser: number) =>
    db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('idReceiver', '=', idUser)
      .where('unread', '=', sql.lit(1)),
  [0],
);

export async function accountCounters(db: Executor, idUser: number): Promise<AccountCounters> {
  const unread = await unreadMessageCount(db, idUser);
  return {
    articlesInShoppingCart: await articlesInShoppingCart(db, idUser),
    unreadMessages: Number(unread[0]?.n ?? 0),
    unpaidAmount: await unpaidAmount(db, idUser),
  };
}
