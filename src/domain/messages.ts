import { badRequest, notFound } from '../errors.js';
import type { Executor } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import {
  countReceived,
  countThreads,
  countUnreadFrom,
  countUnreadReceived,
  findVisibleMessage,
  hideMessages,
  insertMessage,
  markRead,
  messagesBySeq,
  type ReceivedFilter,
  receivedPage,
  threadPage,
  threadPartner,
  threadStats,
  threadSummaries,
  type ThreadMessage,
} from '../store/messages.js';
import type { Message } from '../store/schema.js';
import { findShownUserById, type ShownUser } from '../store/users.js';
import type { DomainContext } from './context.js';
import { EVENTS } from './events.js';
import { newHexId } from './hex-id.js';
import { isSystemAccount } from './system-messages.js';

/**
 * Private messages between users (spec §2.2, §4.1; reference §1.2, §2.15). A thread is everything
 * between the caller and one other user. Rules chosen where the sources are silent:
 *  - a message is stored once; deleting removes it from the caller's side only;
 *  - reading a thread page, one message, or `find?unread=true` marks what the caller received there
 *    as read; the response still shows those messages as they were (`unread: true`) so a client
 *    can tell what is new, and the next read shows them read;
 *  - the caller's own messages are never `unread` for the caller.
 */
export const MAX_MESSAGE_LENGTH = 5000;

export interface Page {
  offset: number;
  limit: number;
  /** An unpaginated request for more than `limit` is redirected (307): nothing is shown or read. */
  paginated: boolean;
}

/** Whether the page's entities will be shown (and so may be marked read). */
function shown(page: Page, total: number): boolean {
  return total > page.offset && (page.paginated || total <= page.limit);
}

export interface ThreadView {
  /** As others see them: a thread shows its partner in the public form. */
  partner: ShownUser;
  /** Shared with other answers when the page is kept (`threadPage`): never changed in place. */
  messages: readonly ThreadMessage[];
  /** Messages of this thread the caller has not read (before this request marked any). */
  unreadMessages: number;
}

async function requirePartner(db: Executor, viewer: number, idPartner: number): Promise<ShownUser> {
  refuseSelf(viewer, idPartner);
  return found(await findShownUserById(db, idPartner), idPartner);
}

function refuseSelf(viewer: number, idPartner: number): void {
  if (idPartner === viewer) {
    throw badRequest('A thread is with another user: idOtherUser is your own user id.', {
      field: 'idOtherUser',
      reason: 'message_to_self',
    });
  }
}

function found(partner: ShownUser | undefined, idPartner: number): ShownUser {
  if (!partner)
    throw notFound(`User ${idPartner} does not exist.`, { field: 'idOtherUser', reason: 'unknown_user' });
  return partner;
}

/**
 * Marks the page's received unread messages read; one statement, so atomic on its own. A page with
 * none (a thread polled again) costs no statement and nothing to await.
 */
function markReceivedRead(
  db: Executor,
  viewer: number,
  messages: readonly ThreadMessage[],
): Promise<void> | undefined {
  let seqs: number[] | undefined;
  for (const m of messages) if (m.idReceiver === viewer && m.unread === 1) (seqs ??= []).push(m.seq);
  return seqs && markRead(db, viewer, seqs);
}

export interface ThreadOverview {
  total: number;
  threads: ThreadView[];
}

/** The caller's threads, most recently active first, each with its latest message. */
export async function listThreads(ctx: DomainContext, viewer: number, page: Page): Promise<ThreadOverview> {
  const db = ctx.database.db;
  const total = await countThreads(db, viewer);
  if (!shown(page, total)) return { total, threads: [] };
  const summaries = await threadSummaries(db, viewer, page.offset, page.limit);
  const latest = new Map(
    (
      await messagesBySeq(
        db,
        summaries.map((s) => s.lastSeq),
      )
    ).map((m) => [m.seq, m]),
  );
  const threads: ThreadView[] = [];
  for (const s of summaries) {
    const partner = await findShownUserById(db, s.partner);
    const message = latest.get(s.lastSeq);
    if (!partner || !message) continue;
    threads.push({ partner, messages: [message], unreadMessages: s.unreadMessages });
  }
  return { total, threads };
}

/** One page of the thread with `idPartner`, oldest first; what the caller received there is read now. */
export async function readThread(
  ctx: DomainContext,
  viewer: number,
  idPartner: number,
  page: Page,
): Promise<{ total: number; thread: ThreadView }> {
  const db = ctx.database.db;
  refuseSelf(viewer, idPartner);
  // The partner with the version of the pair's messages, by which a first page is kept.
  const read = await threadPartner(db, viewer, idPartner);
  const partner = found(read.partner, idPartner);
  // A first page that comes back shorter than the limit is the whole thread (most threads are):
  // its length is the total and its received unread messages the unread count, with no count read.
  const first =
    page.offset === 0 ? await threadPage(db, viewer, idPartner, 0, page.limit, read.version) : undefined;
  if (first && first.length < page.limit) {
    let unreadMessages = 0;
    for (const m of first) if (m.idReceiver === viewer && m.unread === 1) unreadMessages++;
    const messages = shown(page, first.length) ? first : [];
    const marking = markReceivedRead(db, viewer, messages);
    if (marking) await marking;
    return { total: first.length, thread: { partner, messages, unreadMessages } };
  }
  const { total, unread: unreadMessages } = await threadStats(db, viewer, idPartner);
  const messages = !shown(page, total)
    ? []
    : (first ?? (await threadPage(db, viewer, idPartner, page.offset, page.limit)));
  await markReceivedRead(db, viewer, messages);
  return { total, thread: { partner, messages, unreadMessages } };
}

export async function readMessage(
  ctx: DomainContext,
  viewer: number,
  idPartner: number,
  idMessage: string,
): Promise<ThreadView> {
  const db = ctx.database.db;
  const partner = await requirePartner(db, viewer, idPartner);
  const message = await findVisibleMessage(db, viewer, idPartner, idMessage);
  if (!message) {
    throw notFound(`You have no message ${idMessage} in your thread with user ${idPartner}.`, {
      field: 'idMessage',
    });
  }
  const unreadMessages = await countUnreadFrom(db, viewer, idPartner);
  await markReceivedRead(db, viewer, [message]);
  return { partner, messages: [message], unreadMessages };
}

/** Sends a message; answers the thread with the new message only. */
export async function sendMessage(
  ctx: DomainContext,
  viewer: number,
  idPartner: number,
  rawText: string,
): Promise<ThreadView> {
  const text = rawText.trim();
  if (text === '') throw badRequest('The message is empty.', { field: 'message', reason: 'message_empty' });
  if (text.length > MAX_MESSAGE_LENGTH) {
    throw badRequest(
      `A message has at most ${MAX_MESSAGE_LENGTH} characters (this one has ${text.length}).`,
      {
        field: 'message',
        reason: 'message_too_long',
        params: { max: MAX_MESSAGE_LENGTH, length: text.length },
      },
    );
  }
  return ctx.database.transaction(async (tx) => {
    const partner = await requirePartner(tx, viewer, idPartner);
    if (await isSystemAccount(tx, idPartner)) {
      throw badRequest(
        'The system account only sends notices; it does not receive messages. Write to the user concerned instead.',
        { field: 'idOtherUser', reason: 'message_to_system' },
      );
    }
    const message = await insertMessage(tx, {
      idMessage: newHexId(),
      idSender: viewer,
      idReceiver: idPartner,
      text,
      date: ctx.clock.now(),
      unread: 1,
      senderDeleted: 0,
      receiverDeleted: 0,
    });
    await appendEvent(tx, EVENTS.messageSent, { seq: message.seq }, message.date);
    const unreadMessages = await countUnreadFrom(tx, viewer, idPartner);
    return { partner, messages: [message], unreadMessages };
  });
}

/** Deletes the whole thread from the caller's side; the other user keeps theirs. */
export async function deleteThread(ctx: DomainContext, viewer: number, idPartner: number): Promise<void> {
  await ctx.database.transaction(async (tx) => {
    await requirePartner(tx, viewer, idPartner);
    const hidden = await hideMessages(tx, viewer, idPartner);
    if (hidden === 0) {
      throw notFound(`You have no messages with user ${idPartner}.`, { field: 'idOtherUser' });
    }
  });
}

/** Deletes one message from the caller's side; the other user keeps theirs. */
export async function deleteMessage(
  ctx: DomainContext,
  viewer: number,
  idPartner: number,
  idMessage: string,
): Promise<void> {
  await ctx.database.transaction(async (tx) => {
    await requirePartner(tx, viewer, idPartner);
    const hidden = await hideMessages(tx, viewer, idPartner, idMessage);
    if (hidden === 0) {
      throw notFound(`You have no message ${idMessage} in your thread with user ${idPartner}.`, {
        field: 'idMessage',
      });
    }
  });
}

export type FindFilter = ReceivedFilter;

/**
 * Messages the caller received (reference §1.2, find): unread ones, or those within dates. With
 * `unreadOnly`, what is returned is marked read.
 */
export async function findMessages(
  ctx: DomainContext,
  viewer: number,
  filter: FindFilter,
  page: Page,
): Promise<{ total: number; messages: Message[] }> {
  const db = ctx.database.db;
  const total = await countReceived(db, viewer, filter);
  const messages = shown(page, total) ? await receivedPage(db, viewer, filter, page.offset, page.limit) : [];
  if (filter.unreadOnly) await markReceivedRead(db, viewer, messages);
  return { total, messages };
}

/** How many messages the user has not read yet, from anyone. */
export async function unreadMessageCount(ctx: DomainContext, viewer: number): Promise<number> {
  return countUnreadReceived(ctx.database.db, viewer);
}
