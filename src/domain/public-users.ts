import { badRequest, notFound } from '../errors.js';
import type { User } from '../store/schema.js';
import { countUsersByPrefix, usersByPrefix } from '../store/user-search.js';
import { findUserByIdOrName } from '../store/users.js';
import type { DomainContext } from './context.js';

/** Users as the public marketplace shows them: a profile by id or name, and a search by name. */

export async function publicUser(ctx: DomainContext, idOrName: string): Promise<User> {
  const user = await findUserByIdOrName(ctx.database.db, idOrName);
  if (!user) throw notFound(`There is no user "${idOrName}".`, { reason: 'unknown_user' });
  return user;
}

/** Users whose name starts with `search` (any case), by name. */
export async function findUsers(
  ctx: DomainContext,
  search: string | undefined,
  window: { offset: number; limit: number },
): Promise<{ total: number; users: User[] }> {
  const prefix = (search ?? '').trim().toLowerCase();
  if (prefix === '') throw badRequest('Provide a search string ("search").', { field: 'search' });
  const db = ctx.database.db;
  const total = await countUsersByPrefix(db, prefix);
  if (total === 0 || window.offset >= total) return { total, users: [] };
  return { total, users: await usersByPrefix(db, prefix, window.offset, window.limit) };
}
