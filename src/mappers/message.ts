import type { ThreadView } from '../domain/messages.js';
import type { ThreadMessage } from '../store/messages.js';
import type { ShownUser } from '../store/users.js';
import { type Static, Type } from '@sinclair/typebox';
import { type ApiUser, mapUser, UserSchema, userXml } from './user.js';
import { CompiledList, CompiledTree, xmlBytes, xmlText } from '../http/xml.js';
import { boolXml, tag, textXml } from './compiled-xml.js';
import { bool, BoolSchema, link, LinksSchema, timestamp, TimestampSchema } from './values.js';

/** The ids of messages and wants: 24 hexadecimal digits, as the live API's are. */
export const HexIdSchema = Type.String({ pattern: '^[0-9a-f]{24}$' });

export const MessageSchema = Type.Object(
  {
    idMessage: HexIdSchema,
    isSending: BoolSchema,
    date: TimestampSchema,
    text: Type.String(),
    unread: BoolSchema,
  },
  { $id: 'Message', description: 'Message (reference §2.15), as the viewer sees it.' },
);

export const ThreadSchema = Type.Object(
  {
    partner: UserSchema,
    message: Type.Union([MessageSchema, Type.Array(MessageSchema)], {
      description: 'In the overview the latest message alone; in a thread every message (a page).',
    }),
    unreadMessages: Type.Integer(),
    links: LinksSchema,
  },
  { $id: 'MessageThread', description: 'A message thread (reference §2.15).' },
);
export type MessageThread = Static<typeof ThreadSchema>;

/**
 * Message and Thread (reference §2.15). A message is seen by one user: `isSending` is true for the
 * messages that user wrote, and `unread` is only ever true for messages they received.
 */
export function mapMessage(message: ThreadMessage, viewer: number): Static<typeof MessageSchema> {
  const isSending = message.idSender === viewer;
  return {
    idMessage: message.idMessage,
    isSending,
    date: timestamp(message.date),
    text: message.text,
    unread: !isSending && bool(message.unread),
  };
}

type MappedMessage = Static<typeof MessageSchema>;

const M = {
  idMessage: tag('idMessage'),
  isSending: tag('isSending'),
  text: tag('text'),
  unread: tag('unread'),
};

/**
 * A message element as the generic writer writes `mapMessage(message, viewer)`, written straight
 * from the stored message (a thread writes up to a hundred) without the mapped tree, its walk over
 * the keys and a lookup of each name's tags, and in few pieces: the tags between two values are
 * one text (`message.test.ts` compares them).
 */
export function storedMessageXml(message: ThreadMessage, viewer: number): string {
  const isSending = message.idSender === viewer;
  const unread = !isSending && bool(message.unread);
  const { idMessage, text } = message;
  // Digits, dashes, colons, `T` and the offset's sign: nothing to escape.
  const date = timestamp(message.date);
  if (text === '') {
    return (
      '<message>' +
      textXml(M.idMessage, idMessage) +
      boolXml(M.isSending, isSending) +
      `<date>${date}</date>` +
      textXml(M.text, text) +
      boolXml(M.unread, unread) +
      '</message>'
    );
  }
  return (
    '<message><idMessage>' +
    // 24 hex digits, which `insertMessage` refuses to store otherwise: nothing to escape (the test
    // costs more than writing the rest of the element).
    idMessage +
    (isSending
      ? '</idMessage><isSending>true</isSending><date>'
      : '</idMessage><isSending>false</isSending><date>') +
    date +
    '</date><text>' +
    xmlText(text) +
    (unread ? '</text><unread>true</unread></message>' : '</text><unread>false</unread></message>')
  );
}

/**
 * The XML of a kept (frozen, shared) page of a thread's messages as UTF-8 bytes, written once per
 * page and viewer and copied into every answer that shows it (`threadPage` keeps a page until the
 * pair's messages change; a new page is a new array). A fresh page is written the ordinary way.
 */
const keptXml = new WeakMap<readonly ThreadMessage[], { viewer: number; bytes: Uint8Array }>();

function keptMessagesXml(messages: readonly ThreadMessage[], viewer: number): Uint8Array {
  const kept = keptXml.get(messages);
  if (kept !== undefined && kept.viewer === viewer) return kept.bytes;
  let xml = '';
  for (const m of messages) xml += storedMessageXml(m, viewer);
  const bytes = xmlBytes(xml);
  keptXml.set(messages, { viewer, bytes });
  return bytes;
}

/** A thread's partner: JSON gets `mapUser`'s public tree, built when it is asked for. */
class PartnerTree extends CompiledTree<ShownUser> {
  override toJSON(): ShownUser {
    return mapUser(this.tree, 'public') as unknown as ShownUser;
  }
}

const partnerXml = (partner: ShownUser) => userXml(partner, 'public');

/**
 * The XML of a kept (frozen, shared) partner as UTF-8 bytes, written once per user object
 * (`threadPartner` keeps one while the user's row reads the same).
 */
const keptPartners = new WeakMap<ShownUser, readonly Uint8Array[]>();

function keptPartnerXml(partner: ShownUser): readonly Uint8Array[] {
  let pieces = keptPartners.get(partner);
  if (pieces === undefined) {
    pieces = [xmlBytes(userXml(partner, 'public'))];
    keptPartners.set(partner, pieces);
  }
  return pieces;
}

export function threadLinks(idPartner: number) {
  const href = `/account/messages/${idPartner}`;
  return [link('self', href), link('send_message', href, 'POST'), link('delete_thread', href, 'DELETE')];
}

/**
 * A thread: the partner in the public form (as `GET /users/:idUser` shows them: anyone may write to
 * anyone, so a message is no reason to hand out a surname, address or email; those belong to an
 * order's counterparty), its messages, and how many the viewer has not read. In the overview each thread carries only its
 * latest message, as a single element; a thread itself lists its messages (an array in JSON).
 */
export function mapThread(thread: ThreadView, viewer: number, form: 'overview' | 'thread'): MessageThread {
  const partner = thread.partner;
  return {
    // Typed as the tree it stands for, which both formats render it as.
    partner: new PartnerTree(
      partner,
      partnerXml,
      Object.isFrozen(partner) ? keptPartnerXml : undefined,
    ) as unknown as ApiUser,
    message:
      form === 'overview'
        ? thread.messages[0] && mapMessage(thread.messages[0], viewer)
        : // Typed as the list it stands for, which both formats render it as.
          (new CompiledList(
            'message',
            thread.messages,
            (m) => mapMessage(m, viewer),
            (m) => storedMessageXml(m, viewer),
            Object.isFrozen(thread.messages) ? () => keptMessagesXml(thread.messages, viewer) : undefined,
          ) as unknown as MappedMessage[]),
    unreadMessages: thread.unreadMessages,
    links: threadLinks(thread.partner.idUser),
  };
}
