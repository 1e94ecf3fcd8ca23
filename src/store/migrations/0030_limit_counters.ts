import type { Kysely } from 'kysely';
import { withoutRowid } from './helpers.js';

/**
 * The request limits' counters and concurrency places when several processes share them without
 * Redis (`serve --workers N`, src/limits/database-store.ts): one row per counter (a user's minute
 * per app, day, marketplace day; a sign-in attempt key) and one per place taken. Rows carry when
 * they stop counting, so a new window starts from zero without a reset; expired rows are swept off
 * the request path.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withoutRowid(
    db,
    db.schema
      .createTable('limitCounters')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('count', 'integer', (c) => c.notNull())
      .addColumn('expiresAt', 'bigint', (c) => c.notNull()),
  ).execute();
  await withoutRowid(
    db,
    db.schema
      .createTable('limitPlaces')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('expiresAt', 'bigint', (c) => c.notNull()),
  ).execute();
}
