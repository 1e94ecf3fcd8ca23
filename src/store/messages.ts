import { type ExpressionBuilder, sql } from 'kysely';
import { isHexId } from '../domain/hex-id.js';
import type { Executor } from './db.js';
import { integerAt } from './packed.js';
import { pageBound, prepared, preparedFirst, unplanned } from './prepared.js';
import type { DB, Message } from './schema.js';
import { DATA_GENERATION } from './faults.js';
import { findShownUserById, packedShownUser, type ShownUser } from './users.js';

/**
 * Messages as one user sees them. Every query here is written from the viewer's side: a message is
 * visible to its sender until the sender deletes it, and to its receiver until the receiver does.
 */

/** The messages between `viewer` and `partner` that `viewer` still has. */
function visibleBetween(viewer: number, partner: number) {
  return (eb: ExpressionBuilder<DB, 'messages'>) =>
    eb.or([
      eb.and([eb('idSender', '=', viewer), eb('idReceiver', '=', partner), eb('senderDeleted', '=', 0)]),
      eb.and([eb('idSender', '=', partner), eb('idReceiver', '=', viewer), eb('receiverDeleted', '=', 0)]),
    ]);
}

export async function insertMessage(db: Executor, message: Omit<Message, 'seq'>): Promise<Message> {
  // Every stored `idMessage` is the API's form, so a thread writes them without escaping.
  if (!isHexId(message.idMessage))
    throw new Error(`A message id must be 24 hex digits: ${message.idMessage}`);
  return db.insertInto('messages').values(message).returningAll().executeTakeFirstOrThrow();
}

/**
 * Reading a thread is what clients poll, so its two queries are compiled once (`prepared`). Their
 * parameters are the values in the order the SQL uses them, hence the repeated ids; the flags are
 * literals so they are not parameters.
 */
const visiblePair = (
  eb: ExpressionBuilder<DB, 'messages'>,
  viewer: number,
  partner: number,
  p2: number,
  v2: number,
) =>
  eb.or([
    eb.and([
      eb('idSender', '=', viewer),
      eb('idReceiver', '=', partner),
      eb('senderDeleted', '=', sql.lit(0)),
    ]),
    eb.and([eb('idSender', '=', p2), eb('idReceiver', '=', v2), eb('receiverDeleted', '=', sql.lit(0))]),
  ]);

const threadStatsQuery = prepared(
  (db, v0: number, viewer: number, partner: number, p2: number, v2: number) =>
    db
      .selectFrom('messages')
      .select((eb) => [
        eb.fn.countAll<number>().as('total'),
        eb.fn
          .sum<number>(
            eb
              .case()
              .when(eb.and([eb('idReceiver', '=', v0), eb('unread', '=', sql.lit(1))]))
              .then(sql.lit(1))
              .else(sql.lit(0))
              .end(),
          )
          .as('unread'),
      ])
      .where((eb) => visiblePair(eb, viewer, partner, p2, v2)),
  [0, 0, 0, 0, 0],
);

/** How many messages `viewer` has with `partner`, and how many of those are unread by `viewer`. */
export async function threadStats(
  db: Executor,
  viewer: number,
  partner: number,
): Promise<{ total: number; unread: number }> {
  const [row] = await threadStatsQuery(db, viewer, viewer, partner, partner, viewer);
  return { total: Number(row?.total ?? 0), unread: Number(row?.unread ?? 0) };
}

/** Unread messages `viewer` received from anyone (the website's header shows it). */
export async function countUnreadReceived(db: Executor, viewer: number): Promise<number> {
  return Number((await unreadReceived(db, viewer))[0]?.n ?? 0);
}

// The header of every page a signed-in browser asks for shows it.
const unreadReceived = prepared(
  (db, viewer: number) =>
    db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('idReceiver', '=', viewer)
      .where('unread', '=', sql.lit(1))
      .where('receiverDeleted', '=', sql.lit(0)),
  [0],
);

/** Unread messages `viewer` received from `partner`. */
export async function countUnreadFrom(db: Executor, viewer: number, partner: number): Promise<number> {
  const row = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('idReceiver', '=', viewer)
    .where('idSender', '=', partner)
    .where('unread', '=', 1)
    .where('receiverDeleted', '=', 0)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The two directions of a thread as two index-ordered branches (`messages_by_pair` and
 * `messages_by_receiver_pair` both end in `seq`) under one `order by seq`: SQLite walks both
 * indexes in order and merges them (MERGE (UNION ALL)) where the `or` of the two pairs collected the
 * thread into a temporary B-tree to sort it. PostgreSQL (15) appends the two index scans and sorts,
 * as it did the `or`.
 */
/** What a thread shows of a message: not the delete flags, which the query's conditions fix. */
export type ThreadMessage = Omit<Message, 'senderDeleted' | 'receiverDeleted'>;

/**
 * A thread's message as one text, `seq|sent|date|unread|idMessage|text` (the text last, so it may
 * hold any character; `sent` 1 for what the viewer sent, 0 for what they received, which says who
 * the sender and the receiver are), with `seq` beside it only for the union's ORDER BY and not read
 * (`preparedFirst`): better-sqlite3 hands each value of a row to JavaScript through a slow call of
 * V8's API, which made the seven columns of a page of messages cost more than reading them, and
 * two columns a row still a third more than one. `concat_ws` builds the text at once (a chain of
 * `||` copied it again for every column). The same text on both dialects (both write numbers as
 * their digits).
 */
const threadColumns = (sent: 0 | 1) =>
  [
    sql<string>`concat_ws('|', ${sql.ref('seq')}, ${sql.lit(sent)}, ${sql.join(
      ['date', 'unread', 'idMessage', 'text'].map((c) => sql.ref(c)),
    )})`.as('packed'),
    'seq',
  ] as const;

function unpackMessage(packed: string, viewer: number, partner: number): ThreadMessage {
  const a = packed.indexOf('|');
  // `sent` is one digit.
  const b = a + 2;
  const c = packed.indexOf('|', b + 1);
  // `unread` is one digit and `idMessage` 24 (`insertMessage`): the separators after them are
  // where they say, as is checked (a search of the row costs more than the rest of reading it).
  let d = c + 2;
  if (packed.charCodeAt(d) !== 124 /* | */) d = packed.indexOf('|', c + 1);
  let e = d + 25;
  if (packed.charCodeAt(e) !== 124 /* | */) e = packed.indexOf('|', d + 1);
  const sent = packed.charCodeAt(a + 1) === 49; /* 1 */
  return {
    seq: integerAt(packed, 0, a),
    idMessage: packed.slice(d + 1, e),
    idSender: sent ? viewer : partner,
    idReceiver: sent ? partner : viewer,
    text: packed.slice(e + 1),
    date: integerAt(packed, b + 1, c),
    unread: integerAt(packed, c + 1, d),
  };
}

const threadPageQuery = preparedFirst<
  string,
  [viewer: number, partner: number, p2: number, v2: number, limit: number, offset: number]
>(
  (db, viewer, partner, p2, v2, limit, offset) =>
    db
      .selectFrom('messages')
      .select(threadColumns(1))
      .where('idSender', '=', viewer)
      .where('idReceiver', '=', partner)
      .where('senderDeleted', '=', sql.lit(0))
      .unionAll(
        db
          .selectFrom('messages')
          .select(threadColumns(0))
          .where('idSender', '=', p2)
          .where('idReceiver', '=', v2)
          .where('receiverDeleted', '=', sql.lit(0)),
      )
      .orderBy('seq')
      .limit(pageBound(limit))
      .offset(pageBound(offset)),
  [0, 0, 0, 0, 0, 0],
  'packed',
);

/**
 * One page of a thread, oldest first. Given the pair's `version` (`threadPartner`, outside a
 * transaction), the page is kept per viewer, partner and bounds until the version moves: a thread
 * polled again is then one number read instead of its messages (reading, unpacking and then
 * collecting a page of 40 was some 30 µs). A kept page is frozen and shared by the answers that
 * read it, and what is made of it may be kept beside it by object (`src/mappers/message.ts`).
 */
export async function threadPage(
  db: Executor,
  viewer: number,
  partner: number,
  offset: number,
  limit: number,
  version?: string,
): Promise<readonly ThreadMessage[]> {
  const keep = version !== undefined && !db.isTransaction;
  let kept: KeptPages | undefined;
  let key = '';
  if (keep) {
    kept = keptPages.get(db);
    if (kept === undefined) {
      kept = { pages: new Map(), size: 0 };
      keptPages.set(db, kept);
    }
    key = `${viewer} ${partner} ${offset} ${limit}`;
    const page = kept.pages.get(key);
    if (page !== undefined && page.version === version) return page.messages;
  }
  const rows = await threadPageQuery(db, viewer, partner, partner, viewer, limit, offset);
  const messages = new Array<ThreadMessage>(rows.length);
  for (let i = 0; i < rows.length; i++) messages[i] = unpackMessage(rows[i]!, viewer, partner);
  if (kept !== undefined) {
    let size = 0;
    for (const m of messages) {
      Object.freeze(m);
      size += m.text.length + 100;
    }
    Object.freeze(messages);
    const before = kept.pages.get(key);
    if (before !== undefined) kept.size -= before.size;
    if (kept.size + size > MAX_KEPT_SIZE) {
      kept.pages.clear();
      kept.size = 0;
    }
    kept.pages.set(key, { version: version!, messages, size });
    kept.size += size;
  }
  return messages;
}

/** The pages `threadPage` keeps, per database; `size` counts their texts' characters and 100 a message. */
interface KeptPages {
  pages: Map<string, { version: string; messages: readonly ThreadMessage[]; size: number }>;
  size: number;
}
const keptPages = new WeakMap<Executor, KeptPages>();
/** Some 8 MB of texts at most: past it the kept pages are dropped and kept again as they are read. */
const MAX_KEPT_SIZE = 1 << 22;

/**
 * A thread's partner as others see them (packed as `findShownUserById` reads it), the version of
 * the pair's messages (`0023_message_pair_versions`) and the data's generation (a loaded snapshot's
 * is new), in one statement. The ids of the pair are bound behind a cast (`unplanned`) as the index
 * they are compared to asks.
 */
const threadPartnerQuery = prepared(
  (db, low: number, high: number, partner: number) =>
    db
      .selectFrom('users')
      .select((eb) => [
        packedShownUser.select().as('packed'),
        eb
          .selectFrom('messagePairVersions')
          .select('version')
          .where('idUserLow', '=', unplanned(low))
          .where('idUserHigh', '=', unplanned(high))
          .as('version'),
        eb
          .selectFrom('settings')
          .select('value')
          .where('key', '=', sql.lit(DATA_GENERATION))
          .as('generation'),
      ])
      .where('idUser', '=', partner),
  [0, 0, 0],
);

/**
 * The partner of `viewer`'s thread with `partner` (undefined when there is no such user) and, outside
 * a transaction, the version of their messages for `threadPage`: read before the page, so a write
 * between the two moves it and the next read reads the page again. A pair without messages yet
 * has no row: version 0, which no row ever has (a row's version only grows, from 1).
 */
export async function threadPartner(
  db: Executor,
  viewer: number,
  partner: number,
): Promise<{ partner: ShownUser | undefined; version: string | undefined }> {
  const [row] = await threadPartnerQuery(db, Math.min(viewer, partner), Math.max(viewer, partner), partner);
  if (row === undefined) return { partner: undefined, version: undefined };
  if (db.isTransaction) return { partner: await unpackPartner(db, partner, row.packed), version: undefined };
  // A loaded snapshot brings its own versions (and a new generation): a version stands for a state
  // of the thread within one generation of the data only.
  const version = `${row.generation ?? ''} ${row.version ?? 0}`;
  // The same text is the same user: the one unpacked before (frozen, with what the mappers keep
  // beside it by object), or this one kept for the next read.
  let kept = keptPartners.get(db);
  if (kept === undefined) {
    kept = new Map();
    keptPartners.set(db, kept);
  }
  const before = kept.get(partner);
  if (before !== undefined && before.packed === row.packed) return { partner: before.user, version };
  const user = await unpackPartner(db, partner, row.packed);
  if (user !== undefined) {
    if (kept.size >= MAX_KEPT_PARTNERS) kept.clear();
    kept.set(partner, { packed: row.packed, user: Object.freeze(user) });
  }
  return { partner: user, version };
}

async function unpackPartner(
  db: Executor,
  partner: number,
  packed: string | null,
): Promise<ShownUser | undefined> {
  // The rare user whose texts hold the separator is read the ordinary way.
  return packedShownUser.unpack(packed) ?? (await findShownUserById(db, partner));
}

/** The partners `threadPartner` read last, by id, with the text they were unpacked from. */
const keptPartners = new WeakMap<Executor, Map<number, { packed: string | null; user: ShownUser }>>();
const MAX_KEPT_PARTNERS = 10_000;

export async function findVisibleMessage(
  db: Executor,
  viewer: number,
  partner: number,
  idMessage: string,
): Promise<Message | undefined> {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('idMessage', '=', idMessage)
    .where(visibleBetween(viewer, partner))
    .executeTakeFirst();
}

/** Marks read what `viewer` received among these messages. */
export async function markRead(db: Executor, viewer: number, seqs: number[]): Promise<void> {
  if (seqs.length === 0) return;
  await db
    .updateTable('messages')
    .set({ unread: 0 })
    .where('idReceiver', '=', viewer)
    .where('seq', 'in', seqs)
    .where('unread', '=', 1)
    .execute();
}

/**
 * Removes messages from `viewer`'s side only (all of the thread, or one message). A removed unread
 * message stops counting as unread. Rows both sides have removed are deleted for good.
 */
export async function hideMessages(
  db: Executor,
  viewer: number,
  partner: number,
  idMessage?: string,
): Promise<number> {
  const sent = db
    .updateTable('messages')
    .set({ senderDeleted: 1 })
    .where('idSender', '=', viewer)
    .where('idReceiver', '=', partner)
    .where('senderDeleted', '=', 0)
    .$if(idMessage !== undefined, (q) => q.where('idMessage', '=', idMessage!));
  const received = db
    .updateTable('messages')
    .set({ receiverDeleted: 1, unread: 0 })
    .where('idSender', '=', partner)
    .where('idReceiver', '=', viewer)
    .where('receiverDeleted', '=', 0)
    .$if(idMessage !== undefined, (q) => q.where('idMessage', '=', idMessage!));
  const a = await sent.executeTakeFirst();
  const b = await received.executeTakeFirst();
  await db
    .deleteFrom('messages')
    .where('senderDeleted', '=', 1)
    .where('receiverDeleted', '=', 1)
    .where((eb) =>
      eb.or([
        eb.and([eb('idSender', '=', viewer), eb('idReceiver', '=', partner)]),
        eb.and([eb('idSender', '=', partner), eb('idReceiver', '=', viewer)]),
      ]),
    )
    .execute();
  return Number(a.numUpdatedRows) + Number(b.numUpdatedRows);
}

export interface ThreadSummary {
  partner: number;
  /** `seq` of the latest message the viewer has in the thread. */
  lastSeq: number;
  unreadMessages: number;
}

/** The viewer's side of every message, as (partner, seq, unread-for-viewer). */
function viewerSide(db: Executor, viewer: number) {
  const sent = db
    .selectFrom('messages')
    .select(['idReceiver as partner', 'seq', sql<number>`0`.as('unreadFlag')])
    .where('idSender', '=', viewer)
    .where('senderDeleted', '=', 0);
  const received = db
    .selectFrom('messages')
    .select(['idSender as partner', 'seq', 'unread as unreadFlag'])
    .where('idReceiver', '=', viewer)
    .where('receiverDeleted', '=', 0);
  return sent.unionAll(received);
}

export async function countThreads(db: Executor, viewer: number): Promise<number> {
  const row = await db
    .selectFrom(viewerSide(db, viewer).as('m'))
    .select(sql<number>`count(distinct m.partner)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The viewer's threads, the most recently active first. */
export async function threadSummaries(
  db: Executor,
  viewer: number,
  offset: number,
  limit: number,
): Promise<ThreadSummary[]> {
  const rows = await db
    .selectFrom(viewerSide(db, viewer).as('m'))
    .select([
      'm.partner',
      (eb) => eb.fn.max('m.seq').as('lastSeq'),
      (eb) => eb.fn.sum<number>('m.unreadFlag').as('unreadMessages'),
    ])
    .groupBy('m.partner')
    .orderBy('lastSeq', 'desc')
    .limit(pageBound(limit))
    .offset(pageBound(offset))
    .execute();
  return rows.map((r) => ({
    partner: Number(r.partner),
    lastSeq: Number(r.lastSeq),
    unreadMessages: Number(r.unreadMessages),
  }));
}

export async function messagesBySeq(db: Executor, seqs: number[]): Promise<Message[]> {
  if (seqs.length === 0) return [];
  return db.selectFrom('messages').selectAll().where('seq', 'in', seqs).execute();
}

export interface ReceivedFilter {
  unreadOnly: boolean;
  from?: number;
  to?: number;
}

function received(db: Executor, viewer: number, filter: ReceivedFilter) {
  let q = db.selectFrom('messages').where('idReceiver', '=', viewer).where('receiverDeleted', '=', 0);
  if (filter.unreadOnly) q = q.where('unread', '=', 1);
  if (filter.from !== undefined) q = q.where('date', '>=', filter.from);
  if (filter.to !== undefined) q = q.where('date', '<=', filter.to);
  return q;
}

export async function countReceived(db: Executor, viewer: number, filter: ReceivedFilter): Promise<number> {
  const row = await received(db, viewer, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function receivedPage(
  db: Executor,
  viewer: number,
  filter: ReceivedFilter,
  offset: number,
  limit: number,
): Promise<Message[]> {
  return received(db, viewer, filter)
    .selectAll()
    .orderBy('seq')
    .limit(pageBound(limit))
    .offset(pageBound(offset))
    .execute();
}
