import type { Executor } from '../store/db.js';
import { appendEvent } from '../store/events.js';
import { insertMessage } from '../store/messages.js';
import type { Message } from '../store/schema.js';
import { findSystemAccount, insertSystemAccount, isSystemAccount } from '../store/system-accounts.js';
import { insertUser } from '../store/users.js';
import { EVENTS } from './events.js';
import { newHexId } from './hex-id.js';
import { NEW_ACCOUNT } from './users.js';

/**
 * The marketplace's own voice: messages it sends on its own (a wants-list alert today; order and
 * reservation notices can use the same function). They come from one system account, a user row
 * recorded in `systemAccounts`, which:
 *  - is created the first time it is needed, so an empty database stays empty (the sandbox loads
 *    its demo data only into one without users);
 *  - has a username no one can register (it contains a space), no password, and can have no apps
 *    or access tokens (`auth/apps.ts` refuses), so nobody can act as it;
 *  - receives nothing: sending it a message is refused. It keeps no copy of what it sends.
 */
export const SYSTEM_ROLE = 'system';
export const SYSTEM_USERNAME = 'Cardbazaar System';

/** The system account's user id, creating it on first use (inside the caller's transaction). */
export async function systemAccountId(db: Executor, now: number): Promise<number> {
  const existing = await findSystemAccount(db, SYSTEM_ROLE);
  if (existing !== undefined) return existing;
  const user = await insertUser(db, {
    ...NEW_ACCOUNT,
    username: SYSTEM_USERNAME,
    country: 'D',
    isCommercial: 0,
    maySell: 0,
    sellerActivation: 0,
    firstName: 'Cardbazaar',
    lastName: 'System',
    company: null,
    addressName: '',
    street: '',
    zip: '',
    city: '',
    email: '',
    phoneNumber: '',
    legalInformation: 'Messages sent by the marketplace itself. Replies are not read.',
    registerDate: now,
    moneyBalance: 0,
    accountOwner: '',
  });
  await insertSystemAccount(db, SYSTEM_ROLE, user.idUser);
  return user.idUser;
}

export { isSystemAccount };

/**
 * Sends `text` from the system to a user, in the caller's transaction (an event handler's, so the
 * message exists exactly when the event counts as delivered). The receiver sees it unread.
 */
export async function sendSystemMessage(
  db: Executor,
  now: number,
  idReceiver: number,
  text: string,
): Promise<Message> {
  const idSender = await systemAccountId(db, now);
  const message = await insertMessage(db, {
    idMessage: newHexId(),
    idSender,
    idReceiver,
    text,
    date: now,
    unread: 1,
    // The system keeps no copy: once the receiver deletes the message, the row goes.
    senderDeleted: 1,
    receiverDeleted: 0,
  });
  await appendEvent(db, EVENTS.messageSent, { seq: message.seq }, now);
  return message;
}

/** Whether a user is the marketplace's own voice (the website offers no reply to it). */
export async function isSystemUser(ctx: { database: { db: Executor } }, idUser: number): Promise<boolean> {
  return isSystemAccount(ctx.database.db, idUser);
}
