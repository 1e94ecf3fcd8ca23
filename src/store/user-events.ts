import type { Executor } from './db.js';
import { sql } from 'kysely';
import { preparedBySize } from './prepared.js';
import type { UserEvent } from './schema.js';

/** The public events users receive (docs/api.md, "Events and webhooks"). */

export interface NewUserEvent {
  idUser: number;
  type: string;
  /** Already encoded (`encodeEventData`). */
  payload: string;
}

/** Rows to a statement: a checkout's 102 events go in two. */
const ROWS_PER_INSERT = 100;

/** An inserted event as the insert answers it: whose it is and of what kind, with its id. */
export interface InsertedUserEvent {
  idEvent: number;
  idUser: number;
  type: string;
}

/** Inserts events of one transaction; answers each with its id, by id. */
export async function insertUserEvents(
  db: Executor,
  events: NewUserEvent[],
  createdAt: number,
): Promise<InsertedUserEvent[]> {
  const inserted: InsertedUserEvent[] = [];
  // Many rows to a statement (a checkout's hundred events one at a time cost 70% more on SQLite,
  // and a round trip each on PostgreSQL). Both dialects insert a VALUES list in its order, each row
  // taking the next id, so the ids follow the order the events happened in. `returning` promises no
  // order of its rows, so each comes back with its user and kind, which is all a delivery needs:
  // no event is matched to its id by position.
  for (let from = 0; from < events.length; from += ROWS_PER_INSERT) {
    const chunk = events.slice(from, from + ROWS_PER_INSERT);
    const { rows } = await insertRows(db, chunk, createdAt);
    if (rows.length !== chunk.length)
      throw new Error(`${chunk.length} events inserted, ${rows.length} ids back`);
    for (const r of rows)
      inserted.push({ idEvent: Number(r.idEvent), idUser: Number(r.idUser), type: r.type });
  }
  return inserted.sort((x, y) => x.idEvent - y.idEvent);
}

// Compiled once per number of rows. Only the id, user and kind come back: the payload, an order of
// a hundred lines for two of a checkout's events, was read back for nothing.
const insertRows = preparedBySize(
  (db: Executor, events: NewUserEvent[], createdAt: number) =>
    sql<InsertedUserEvent>`insert into "userEvents" ("idUser", "type", "payload", "createdAt")
      values ${sql.join(events.map((e) => sql`(${e.idUser}, ${e.type}, ${e.payload}, ${createdAt})`))}
      returning "idEvent", "idUser", "type"`.compile(db),
  (events) => events.length,
  (events, createdAt) => events.flatMap((e) => [e.idUser, e.type, e.payload, createdAt]),
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
