import type { Executor } from './db.js';
import { prepared } from './prepared.js';

export interface NonceRow {
  timestamp: number;
  nonceKey: string;
}

/** Most rows one insert carries (a statement is prepared once per size up to this). */
export const MAX_NONCE_BATCH = 64;

type Insert = (db: Executor, ...args: Array<string | number>) => Promise<NonceRow[]>;
const inserts = new Map<number, Insert>();

/** The insert of `size` rows, prepared once per size (hot path: every authenticated request). */
function insertOfSize(size: number): Insert {
  let insert = inserts.get(size);
  if (!insert) {
    const placeholders: Array<string | number> = [];
    for (let i = 0; i < size; i++) placeholders.push(0, '');
    insert = prepared(
      (db, ...args: Array<string | number>) =>
        db
          .insertInto('oauthNonces')
          .values(
            Array.from({ length: size }, (_, i) => ({
              timestamp: args[2 * i] as number,
              nonceKey: args[2 * i + 1] as string,
            })),
          )
          .onConflict((oc) => oc.columns(['timestamp', 'nonceKey']).doNothing())
          .returning(['timestamp', 'nonceKey']),
      placeholders,
    );
    inserts.set(size, insert);
  }
  return insert;
}

/**
 * Records nonces in one statement (atomic on its own, no transaction needed) and answers, for each,
 * whether it was new: a row that was already there is a replay, and of the same nonce twice in
 * `rows` only the first is new. At most MAX_NONCE_BATCH.
 */
export async function recordNonces(db: Executor, rows: readonly NonceRow[]): Promise<boolean[]> {
  const args: Array<string | number> = [];
  for (const r of rows) args.push(r.timestamp, r.nonceKey);
  const returned = await insertOfSize(rows.length)(db, ...args);
  // Every row came back: all of them were new (the usual case), nothing to match.
  if (returned.length === rows.length) return rows.map(() => true);
  const inserted = new Set(returned.map((r) => `${Number(r.timestamp)} ${r.nonceKey}`));
  // `delete` answers whether the row was there: the first of a repeated nonce takes it.
  return rows.map((r) => inserted.delete(`${r.timestamp} ${r.nonceKey}`));
}

/**
 * Deletes nonces whose timestamp is before `beforeSeconds`, a few seconds of them per statement, so
 * a large backlog never holds the database for long. Answers how many went.
 */
export async function pruneNonces(db: Executor, beforeSeconds: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const oldest = await db
      .selectFrom('oauthNonces')
      .select('timestamp')
      .orderBy('timestamp')
      .limit(1)
      .executeTakeFirst();
    if (!oldest || Number(oldest.timestamp) >= beforeSeconds) return deleted;
    const upTo = Math.min(beforeSeconds, Number(oldest.timestamp) + 10);
    const r = await db.deleteFrom('oauthNonces').where('timestamp', '<', upTo).executeTakeFirst();
    deleted += Number(r.numDeletedRows);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
