import type { Executor } from './db.js';
import { prepared } from './prepared.js';
import type { UserEvent } from './schema.js';

/** The public events users receive (README, "Events and webhooks"). */

export interface NewUserEvent {
  idUser: number;
  type: string;
  /** Already encoded (`encodeEventData`). */
  payload: string;
}

/** Inserts events of one transaction; answers their ids, in order. */
export async function insertUserEvents(
  db: Executor,
  events: NewUserEvent[],
  createdAt: number,
): Promise<number[]> {
  const ids = new Array<number>(events.length);
  // One at a time: the ids must follow the order the events happened in on both dialects, and
  // `returning` of a multi-row insert promises no order.
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const [row] = await insertUserEvent(db, e.idUser, e.type, e.payload, createdAt);
    ids[i] = row!.idEvent;
  }
  return ids;
}

// Compiled once: a checkout's outbox delivery inserts a hundred events. Only the id comes back: the
// payload, an order of a hundred lines for two of a checkout's events, was read back for nothing.
const insertUserEvent = prepared(
  (db: Executor, idUser: number, type: string, payload: string, createdAt: number) =>
    db.insertInto('userEvents').values({ idUser, type, payload, createdAt }).returning('idEvent'),
  [0, '', '', 0],
);

/** A user's events after `since`, oldest first, and how many there are after `since`. */
export async function userEventsAfter(
  db: Executor,
  idUser: number,
  since: number,
  limit: number,
): Promise<{ total: number; events: UserEvent[] }> {
  const base = db.selectFrom('userEvents').where('idUser', '=', idUser).where('idEvent', '>', since);
  const [count, events] = await Promise.all([
    base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('idEvent').limit(limit).execute(),
  ]);
  return { total: Number(count.n), events };
}

export async function findUserEvent(db: Executor, idEvent: number): Promise<UserEvent | undefined> {
  return db.selectFrom('userEvents').selectAll().where('idEvent', '=', idEvent).executeTakeFirst();
}

/** The newest event id of a user (0 if none): where a live listener starts. */
export async function latestUserEventId(db: Executor, idUser: number): Promise<number> {
  const row = await db
    .selectFrom('userEvents')
    .select((eb) => eb.fn.max('idEvent').as('m'))
    .where('idUser', '=', idUser)
    .executeTakeFirst();
  return Number(row?.m ?? 0);
}
