import { sql } from 'kysely';
import type { Executor } from './db.js';
import { preparedBySize } from './prepared.js';

/**
 * The outbox. A change that makes the marketplace act on its own (an order changing state, a wants
 * alert) appends a row in the same transaction; `domain/events.ts` delivers rows afterwards.
 */
export async function appendEvent(
  db: Executor,
  type: string,
  payload: unknown,
  createdAt: number,
): Promise<void> {
  await db
    .insertInto('events')
    .values({
      type,
      payload: JSON.stringify(payload),
      createdAt,
      deliveredAt: null,
      attempts: 0,
      lastError: null,
    })
    .execute();
}

/** Several events of one transaction in one statement (a bulk write raising one per item). */
export async function appendEvents(
  db: Executor,
  events: Array<{ type: string; payload: unknown }>,
  createdAt: number,
): Promise<void> {
  if (events.length === 0) return;
  await insertEvents(db, events, createdAt);
}

// Prepared by size: through the query builder, the hundred rows of a stock write were built and
// compiled anew for every request.
const insertEvents = preparedBySize(
  (db: Executor, events: Array<{ type: string; payload: unknown }>, createdAt: number) =>
    sql`insert into "events" ("type", "payload", "createdAt", "deliveredAt", "attempts", "lastError")
      values ${sql.join(events.map((e) => sql`(${e.type}, ${JSON.stringify(e.payload)}, ${createdAt}, null, 0, null)`))}`.compile(
      db,
    ),
  (events) => events.length,
  (events, createdAt) => events.flatMap((e) => [e.type, JSON.stringify(e.payload), createdAt]),
);

export async function pendingEvents(db: Executor, limit: number) {
  return db
    .selectFrom('events')
    .selectAll()
    .where('deliveredAt', 'is', null)
    .where('attempts', '<', 10)
    .orderBy('idEvent')
    .limit(limit)
    .execute();
}

/** Claims these events for delivery; returns the ids this process got (others got the rest first). */
export async function claimEvents(db: Executor, idEvents: number[], at: number): Promise<Set<number>> {
  if (idEvents.length === 0) return new Set();
  const { rows } = await claimRows(db, idEvents, at);
  return new Set(rows.map((r) => r.idEvent));
}

// Prepared by size: a stock write's hundred events are claimed in one pass after every request.
const claimRows = preparedBySize(
  (db: Executor, idEvents: number[], at: number) =>
    db
      .updateTable('events')
      .set({ deliveredAt: at })
      .where('idEvent', 'in', idEvents)
      .where('deliveredAt', 'is', null)
      .returning('idEvent')
      .compile(),
  (idEvents) => idEvents.length,
  (idEvents, at) => [at, ...idEvents],
);

/** Gives back events claimed in this transaction but not handled in it (the pass takes them later). */
export async function unclaimEvents(db: Executor, idEvents: number[]): Promise<void> {
  if (idEvents.length === 0) return;
  await db.updateTable('events').set({ deliveredAt: null }).where('idEvent', 'in', idEvents).execute();
}

/** Claims events no handler needs to see; returns how many this process claimed. */
export async function markAllDelivered(db: Executor, idEvents: number[], at: number): Promise<number> {
  if (idEvents.length === 0) return 0;
  const r = await db
    .updateTable('events')
    .set({ deliveredAt: at })
    .where('idEvent', 'in', idEvents)
    .where('deliveredAt', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function markFailed(db: Executor, idEvent: number, error: string): Promise<void> {
  await db
    .updateTable('events')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), lastError: error.slice(0, 1000) }))
    .where('idEvent', '=', idEvent)
    .execute();
}
