import { SqliteAdapter, sql } from 'kysely';
import { prefixUpperBound } from '../domain/search-text.js';
import type { Executor } from './db.js';
import type { User } from './schema.js';

/**
 * Username prefix search as a range of the `users_by_lower_username` expression index (migration
 * 0003). Usernames are ASCII letters, digits, `.`, `_` and `-` (see createUser), on which `lower()`
 * agrees on both databases; PostgreSQL compares it byte-wise (`collate "C"`) like SQLite does.
 */
function lowerName(db: Executor) {
  return db.getExecutor().adapter instanceof SqliteAdapter
    ? sql<string>`lower(${sql.ref('username')})`
    : sql<string>`(lower(${sql.ref('username')}) collate "C")`;
}

function byPrefix(db: Executor, prefix: string) {
  return db
    .selectFrom('users')
    .where(lowerName(db), '>=', prefix)
    .where(lowerName(db), '<', prefixUpperBound(prefix));
}

export async function countUsersByPrefix(db: Executor, prefix: string): Promise<number> {
  const row = await byPrefix(db, prefix)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function usersByPrefix(
  db: Executor,
  prefix: string,
  offset: number,
  limit: number,
): Promise<User[]> {
  return byPrefix(db, prefix)
    .selectAll()
    .orderBy(lowerName(db))
    .orderBy('idUser')
    .limit(limit)
    .offset(offset)
    .execute();
}
