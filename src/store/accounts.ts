import type { Executor } from './db.js';

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

export async function accountCounters(_db: Executor, _idUser: number): Promise<AccountCounters> {
  return { articlesInShoppingCart: 0, unreadMessages: 0, unpaidAmount: 0 };
}
