import { sql } from 'kysely';
import type { Executor } from './db.js';
import { preparedBySize } from './prepared.js';

/**
 * The request limits' shared counters and places (src/limits/database-store.ts). A counter whose
 * `expiresAt` has passed counts as zero, as a Redis key past its TTL would; expired rows are
 * deleted by `sweepLimits`, off the request path.
 */

export interface CounterUse {
  key: string;
  /** When the counter stops counting, if this use starts it (epoch ms, real time). */
  expiresAt: number;
}

/**
 * Adds one to each counter (a counter that had expired starts again at one, with its new expiry)
 * and answers the counts after, by key. One statement: on PostgreSQL its row locks order two
 * charges of the same counters, so the counts answered are exact.
 */
export async function incrementCounters(
  db: Executor,
  uses: readonly CounterUse[],
  now: number,
): Promise<Map<string, { count: number; expiresAt: number }>> {
  const result = await increment(db, uses, now);
  const counts = new Map<string, { count: number; expiresAt: number }>();
  for (const row of result.rows) {
    counts.set(row.key, { count: Number(row.count), expiresAt: Number(row.expiresAt) });
  }
  return counts;
}

const increment = preparedBySize(
  (db: Executor, uses: readonly CounterUse[], now: number) =>
    db
      .insertInto('limitCounters')
      .values(uses.map((u) => ({ key: u.key, count: 1, expiresAt: u.expiresAt })))
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          count: sql<number>`case when "limitCounters"."expiresAt" > ${now} then "limitCounters"."count" + 1 else 1 end`,
          expiresAt: sql<number>`case when "limitCounters"."expiresAt" > ${now} then "limitCounters"."expiresAt" else excluded."expiresAt" end`,
        }),
      )
      .returning(['key', 'count', 'expiresAt'])
      .compile(),
  (uses) => uses.length,
  (uses, now) => [...uses.flatMap((u) => [u.key, 1, u.expiresAt]), now, now],
);

/** Takes a place unless another holder's has not expired; answers whether it was taken. */
export async function takePlace(
  db: Executor,
  key: string,
  token: string,
  expiresAt: number,
  now: number,
): Promise<boolean> {
  const result = await take(db, key, token, expiresAt, now);
  return result.rows.length === 1;
}

const take = preparedBySize(
  (db: Executor, key: string, token: string, expiresAt: number, now: number) =>
    db
      .insertInto('limitPlaces')
      .values({ key, token, expiresAt })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet({
            token: (eb) => eb.ref('excluded.token'),
            expiresAt: (eb) => eb.ref('excluded.expiresAt'),
          })
          .where('limitPlaces.expiresAt', '<=', now),
      )
      .returning('key')
      .compile(),
  () => 1,
  (key, token, expiresAt, now) => [key, token, expiresAt, now],
);

/** Frees a place only if this token still holds it. */
export async function releasePlace(db: Executor, key: string, token: string): Promise<void> {
  await db.deleteFrom('limitPlaces').where('key', '=', key).where('token', '=', token).execute();
}

/** The live counters whose keys start with `prefix`. */
export async function countersWithPrefix(
  db: Executor,
  prefix: string,
  now: number,
): Promise<Array<{ key: string; count: number }>> {
  const rows = await db
    .selectFrom('limitCounters')
    .select(['key', 'count'])
    .where('key', '>=', prefix)
    .where('key', '<', `${prefix}\uffff`)
    .where('expiresAt', '>', now)
    .execute();
  return rows.map((r) => ({ key: r.key, count: Number(r.count) }));
}

/** One live counter's count (0 when it has none or it has expired). */
export async function counterValue(db: Executor, key: string, now: number): Promise<number> {
  const row = await db
    .selectFrom('limitCounters')
    .select('count')
    .where('key', '=', key)
    .where('expiresAt', '>', now)
    .executeTakeFirst();
  return row ? Number(row.count) : 0;
}

export async function deleteCountersWithPrefix(db: Executor, prefix: string): Promise<void> {
  await db
    .deleteFrom('limitCounters')
    .where('key', '>=', prefix)
    .where('key', '<', `${prefix}\uffff`)
    .execute();
}

/** Takes one back from a counter (deleting it at zero), or deletes it with `all`. */
export async function decrementCounter(db: Executor, key: string, all: boolean): Promise<void> {
  await db
    .deleteFrom('limitCounters')
    .where('key', '=', key)
    .$if(!all, (q) => q.where('count', '<=', 1))
    .execute();
  if (all) return;
  await db
    .updateTable('limitCounters')
    .set((eb) => ({ count: eb('count', '-', 1) }))
    .where('key', '=', key)
    .execute();
}

/** Deletes expired counters and places; answers how many rows went. */
export async function sweepLimits(db: Executor, now: number): Promise<number> {
  const counters = await db.deleteFrom('limitCounters').where('expiresAt', '<=', now).executeTakeFirst();
  const places = await db.deleteFrom('limitPlaces').where('expiresAt', '<=', now).executeTakeFirst();
  return Number(counters.numDeletedRows) + Number(places.numDeletedRows);
}

/** Forgets every counter and place (a snapshot load: the restored data starts with none). */
export async function clearLimits(db: Executor): Promise<void> {
  await db.deleteFrom('limitCounters').execute();
  await db.deleteFrom('limitPlaces').execute();
}
