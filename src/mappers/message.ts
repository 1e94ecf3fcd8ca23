import type { ThreadView } from '../domain/messages.js';
import type { ThreadMessage } from '../store/messages.js';
import { type Static, Type } from '@sinclair/typebox';
import { mapUser, UserSchema } from './user.js';
import { CompiledTree, xmlElement } from '../http/xml.js';
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

const boolXml = (open: string, value: unknown, close: string, name: string): string =>
  value === true ? open + 'true' + close : value === false ? open + 'false' + close : xmlElement(name, value);

/**
 * A message's XML children, compiled for its schema (a thread writes up to a hundred): byte for
 * byte what the generic writer gives for the same tree (`message.test.ts` compares them), without
 * its walk over the keys and a lookup of each name's tags; JSON writes the tree.
 */
export function messageXml(m: MappedMessage): string {
  return (
    xmlElement('idMessage', m.idMessage) +
    boolXml('<isSending>', m.isSending, '</isSending>', 'isSending') +
    xmlElement('date', m.date) +
    xmlElement('text', m.text) +
    boolXml('<unread>', m.unread, '</unread>', 'unread')
  );
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
  const messages = thread.messages.map((m) =>
    // Typed as the tree it stands for, which both formats render it as.
    form === 'thread'
      ? (new CompiledTree(mapMessage(m, viewer), messageXml) as unknown as MappedMessage)
      : mapMessage(m, viewer),
  );
  return {
    partner: mapUser(thread.partner, 'public'),
    message: form === 'overview' ? messages[0] : messages,
    unreadMessages: thread.unreadMessages,
    links: threadLinks(thread.partner.idUser),
  };
}
