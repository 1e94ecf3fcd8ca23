import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isHexId } from '../domain/hex-id.js';
import { deleteMessage, deleteThread, listThreads, readThread, sendMessage } from '../domain/messages.js';
import { publicUser } from '../domain/public-users.js';
import { isSystemUser } from '../domain/system-messages.js';
import { ApiError, notFound } from '../errors.js';
import type { Services } from '../services.js';
import { type Errors, fields, formErrors, redirectWithFlash } from './forms.js';
import { LIST_PAGE_SIZE, pageOf, pager, pathId } from './paging.js';
import { render } from './render.js';
import { requireUser } from './session.js';

/**
 * Messages (the same domain functions as `GET/POST/DELETE /account/messages…`): the threads with
 * their unread counts, one thread (reading a page marks what it shows read, as the API does),
 * writing, deleting a message or a whole thread from one's own side. The system's wants-list
 * alerts arrive in a thread of their own, which takes no reply. `MESSAGES_ENABLED=false` shuts
 * these pages as it shuts the API's message requests.
 */
export function messagePages(app: FastifyInstance, services: Services): void {
  const signedIn = { onRequest: requireUser };
  const form = { onRequest: requireUser, preHandler: app.csrfProtection };

  const enabled = () => {
    if (!services.config.messagesEnabled) {
      throw new ApiError(404, 'The messages are temporarily shut down by the operator of this marketplace.', {
        code: 'messages_disabled',
      });
    }
  };

  app.get('/messages', signedIn, async (request, reply) => {
    enabled();
    const p = pageOf(request, LIST_PAGE_SIZE);
    const { total, threads } = await listThreads(services, request.user!.idUser, { ...p, paginated: true });
    return render(request, reply, 'messages', {
      title: 'messages.title',
      threads: await Promise.all(
        threads.map(async (th) => ({ ...th, system: await isSystemUser(services, th.partner.idUser) })),
      ),
      pager: pager(request, p, total),
      values: { username: '', message: '' },
      errors: {},
    });
  });

  // A new thread: to a user by name.
  app.post('/messages', form, async (request, reply) => {
    enabled();
    const values = fields(request, ['username', 'message']);
    try {
      const partner = await publicUser(services, values.username.trim()).catch((err: unknown) => {
        if (err instanceof ApiError)
          throw new ApiError(err.status, err.message, {
            field: 'username',
            reason: err.reason,
            params: err.params,
          });
        throw err;
      });
      await sendMessage(services, request.user!.idUser, partner.idUser, values.message);
      return redirectWithFlash(reply, `/messages/${partner.idUser}`, 'flash.message.sent');
    } catch (err) {
      const errors = formErrors(request.t, err, ['username', 'message', 'idOtherUser']);
      if (errors.idOtherUser) errors.username = errors.idOtherUser;
      const p = pageOf(request, LIST_PAGE_SIZE);
      const { total, threads } = await listThreads(services, request.user!.idUser, { ...p, paginated: true });
      return render(
        request,
        reply,
        'messages',
        {
          title: 'messages.title',
          threads: await Promise.all(
            threads.map(async (th) => ({ ...th, system: await isSystemUser(services, th.partner.idUser) })),
          ),
          pager: pager(request, p, total),
          values,
          errors,
        },
        400,
      );
    }
  });

  const partnerId = (request: FastifyRequest) => {
    const id = pathId(request.params, 'idOtherUser');
    if (id === undefined) throw notFound('There is no such thread.', { reason: 'unknown_thread' });
    return id;
  };

  const showThread = async (
    request: FastifyRequest,
    reply: FastifyReply,
    idPartner: number,
    failed?: { message: string; errors: Errors },
  ) => {
    const p = pageOf(request, LIST_PAGE_SIZE);
    const viewer = request.user!.idUser;
    const { total, thread } = await readThread(services, viewer, idPartner, { ...p, paginated: true });
    return render(
      request,
      reply,
      'thread',
      {
        title: 'thread.title',
        titleParams: { username: thread.partner.username },
        thread,
        viewer,
        system: await isSystemUser(services, idPartner),
        pager: pager(request, p, total),
        message: failed?.message ?? '',
        errors: failed?.errors ?? {},
      },
      failed ? 400 : 200,
    );
  };

  app.get('/messages/:idOtherUser', signedIn, async (request, reply) => {
    enabled();
    return showThread(request, reply, partnerId(request));
  });

  app.post('/messages/:idOtherUser', form, async (request, reply) => {
    enabled();
    const idPartner = partnerId(request);
    const { message } = fields(request, ['message']);
    try {
      await sendMessage(services, request.user!.idUser, idPartner, message);
      return redirectWithFlash(reply, `/messages/${idPartner}#last`, 'flash.message.sent');
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) throw err;
      return showThread(request, reply, idPartner, {
        message,
        errors: formErrors(request.t, err, ['message']),
      });
    }
  });

  app.post('/messages/:idOtherUser/delete', form, async (request, reply) => {
    enabled();
    await deleteThread(services, request.user!.idUser, partnerId(request));
    return redirectWithFlash(reply, '/messages', 'flash.message.threadDeleted');
  });

  app.post('/messages/:idOtherUser/:idMessage/delete', form, async (request, reply) => {
    enabled();
    const idPartner = partnerId(request);
    const idMessage = ((request.params as { idMessage: string }).idMessage ?? '').toLowerCase();
    if (!isHexId(idMessage)) throw notFound('There is no such message.', { reason: 'unknown_message' });
    await deleteMessage(services, request.user!.idUser, idPartner, idMessage);
    return redirectWithFlash(reply, `/messages/${idPartner}`, 'flash.message.deleted');
  });
}
