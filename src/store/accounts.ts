import type { Executor } from './db.js';
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

export async function accountCounters(db: Executor, idUser: number): Promise<AccountCounters> {
  return {
    articlesInShoppingCart: await articlesInShoppingCart(db, idUser),
    unreadMessages: 0,
    unpaidAmount: await unpaidAmount(db, idUser),
  };
}
