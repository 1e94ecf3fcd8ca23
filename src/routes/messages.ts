import { isHexId } from '../domain/hex-id.js';
import {
  deleteMessage,
  MAX_MESSAGE_LENGTH,
  deleteThread,
  type FindFilter,
  findMessages,
  listThreads,
  readMessage,
  readThread,
  sendMessage,
} from '../domain/messages.js';
import { badRequest, notFound } from '../errors.js';
import { requireBody } from '../http/body.js';
import { parseDateParam } from '../http/dates.js';
import { boolean, idParam, text } from '../http/fields.js';
import { pagedResponse, pageFromQuery } from '../http/pagination.js';
import { type ApiRequest, type Handler, ok, type Router, USER_KINDS } from '../http/routing.js';
import { mapMessage, mapThread } from '../mappers/message.js';
import type { Services } from '../services.js';
import { Type } from '@sinclair/typebox';
import { Answer, IdParam, pageQuery, RequestBody, RequiredText } from '../http/route-schema.js';
import { DATE_PATTERN } from '../http/dates.js';

/** A date of the query; blank is as if not given. */
const BLANK_OR_DATE = `^\\s*$|${DATE_PATTERN}`;
import { HexIdSchema, MessageSchema, ThreadSchema } from '../mappers/message.js';

/** Messages between users (spec §2.2, §4.1; reference §1.2, §2.15). */
export function messageRoutes(r: Router, services: Services): void {
  // The operator's switch (MESSAGES_ENABLED=false): the spec's 404 for a temporary shutdown of the
  // message requests. Everything else keeps working.
  const guarded =
    (handler: Handler): Handler =>
    async (req) => {
      if (!services.config.messagesEnabled) {
        throw notFound(
          'The message requests are temporarily shut down by the operator of this marketplace; the rest of the API works. Try again later.',
          { code: 'messages_disabled' },
        );
      }
      return handler(req);
    };
  const options = { kinds: USER_KINDS };
  const viewerOf = (req: ApiRequest) => req.auth.idUser!;

  r.get(
    '/account/messages',
    {
      ...options,
      schema: {
        summary: 'Message threads, one message each (the latest)',
        query: pageQuery(),
        paginated: true,
        responses: { 200: Answer({ thread: Type.Array(ThreadSchema) }) },
      },
    },
    guarded(async (req) => {
      const page = pageFromQuery(req.query);
      const viewer = viewerOf(req);
      const { total, threads } = await listThreads(services, viewer, page);
      return pagedResponse(req, services.config, page, total, threads.length, () => ({
        thread: threads.map((t) => mapThread(t, viewer, 'overview')),
      }));
    }),
  );

  r.get(
    '/account/messages/find',
    {
      ...options,
      schema: {
        summary: 'Find received messages: unread, or between two dates',
        query: {
          unread: Type.Boolean({ description: '`true`: the unread messages (`false` is as if not given).' }),
          startDate: Type.String({
            pattern: BLANK_OR_DATE,
            description:
              'ISO 8601, e.g. `2017-12-08T14:41:12+0100` (without an offset: Berlin time); required unless `unread=true`.',
          }),
          endDate: Type.String({ pattern: BLANK_OR_DATE, description: 'ISO 8601; default now.' }),
          ...pageQuery(),
        },
        requiredOneOf: ['unread', 'startDate'],
        paginated: true,
        responses: { 200: Answer({ message: Type.Array(MessageSchema) }) },
      },
    },
    guarded(async (req) => {
      const page = pageFromQuery(req.query);
      const viewer = viewerOf(req);
      const { total, messages } = await findMessages(
        services,
        viewer,
        findFilter(req, services.clock.now()),
        page,
      );
      return pagedResponse(req, services.config, page, total, messages.length, () => ({
        message: messages.map((m) => mapMessage(m, viewer)),
      }));
    }),
  );

  r.get(
    '/account/messages/:idOtherUser',
    {
      ...options,
      schema: {
        summary: 'The thread with a user (100 messages a page)',
        params: { idOtherUser: IdParam },
        query: pageQuery(),
        paginated: true,
        responses: { 200: ThreadSchema },
      },
    },
    guarded(async (req) => {
      const page = pageFromQuery(req.query);
      const viewer = viewerOf(req);
      const { total, thread } = await readThread(services, viewer, idParam(req.params, 'idOtherUser'), page);
      return pagedResponse(req, services.config, page, total, thread.messages.length, () =>
        mapThread(thread, viewer, 'thread'),
      );
    }),
  );

  r.post(
    '/account/messages/:idOtherUser',
    {
      ...options,
      schema: {
        summary: 'Write to a user',
        params: { idOtherUser: IdParam },
        body: RequestBody({ message: RequiredText(MAX_MESSAGE_LENGTH) }),
        responses: { 200: ThreadSchema },
      },
    },
    guarded(async (req) => {
      const idOtherUser = idParam(req.params, 'idOtherUser');
      const body = requireBody(req.body, '<message>text</message>');
      const message = text(body, 'message');
      if (message === undefined) throw badRequest('"message" is required.', { field: 'message' });
      const viewer = viewerOf(req);
      const thread = await sendMessage(services, viewer, idOtherUser, message);
      return ok(mapThread(thread, viewer, 'thread'));
    }),
  );

  r.delete(
    '/account/messages/:idOtherUser',
    {
      ...options,
      schema: {
        summary: "Delete a thread (the caller's side)",
        params: { idOtherUser: IdParam },
        responses: { 200: Answer({}) },
      },
    },
    guarded(async (req) => {
      await deleteThread(services, viewerOf(req), idParam(req.params, 'idOtherUser'));
      return ok({});
    }),
  );

  r.get(
    '/account/messages/:idOtherUser/:idMessage',
    {
      ...options,
      schema: {
        summary: 'One message (marked read)',
        params: { idOtherUser: IdParam, idMessage: HexIdSchema },
        responses: { 200: ThreadSchema },
      },
    },
    guarded(async (req) => {
      const viewer = viewerOf(req);
      const thread = await readMessage(
        services,
        viewer,
        idParam(req.params, 'idOtherUser'),
        messageIdParam(req),
      );
      return ok(mapThread(thread, viewer, 'thread'));
    }),
  );

  r.delete(
    '/account/messages/:idOtherUser/:idMessage',
    {
      ...options,
      schema: {
        summary: "Delete one message (the caller's side)",
        params: { idOtherUser: IdParam, idMessage: HexIdSchema },
        responses: { 200: Answer({}) },
      },
    },
    guarded(async (req) => {
      await deleteMessage(services, viewerOf(req), idParam(req.params, 'idOtherUser'), messageIdParam(req));
      return ok({});
    }),
  );
}

function messageIdParam(req: ApiRequest): string {
  const id = (req.params.idMessage ?? '').toLowerCase();
  if (!isHexId(id)) {
    throw badRequest(
      `"idMessage" must be a message id of 24 hexadecimal digits (got "${req.params.idMessage}").`,
      {
        field: 'idMessage',
      },
    );
  }
  return id;
}

/**
 * `?unread=true` (wins over dates), or `?startDate=…[&endDate=…]` (a missing end is now). Received
 * messages only. A date given is read either way: one that is no date is a 400, as the OpenAPI
 * document's pattern says, even beside `unread=true`.
 */
function findFilter(req: ApiRequest, now: number): FindFilter {
  const start = text(req.query, 'startDate');
  const end = text(req.query, 'endDate');
  const given = (v: string | undefined): v is string => v !== undefined && v.trim() !== '';
  if (boolean(req.query, 'unread') === true) {
    if (given(start)) parseDateParam(start, 'startDate');
    if (given(end)) parseDateParam(end, 'endDate');
    return { unreadOnly: true };
  }
  if (start === undefined || start.trim() === '') {
    throw badRequest(
      'Give unread=true, or a startDate (and optionally an endDate), e.g. ?startDate=2017-12-08T14:41:12%2B0100.',
      {
        field: 'startDate',
      },
    );
  }
  const from = parseDateParam(start, 'startDate');
  const to = end === undefined || end.trim() === '' ? now : parseDateParam(end, 'endDate');
  if (to < from) throw badRequest('endDate is before startDate.', { field: 'endDate' });
  return { unreadOnly: false, from, to };
}
