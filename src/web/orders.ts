import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { COMPLAINTS, evaluateOrder, GRADES, mayEvaluate } from '../domain/evaluations.js';
import {
  ACTOR_SELLER,
  getOrder,
  defaultOrderActor,
  listOrders,
  ORDER_STATE_CODES,
  orderTabCounts,
  type OrderState,
  parseActor,
  parseOrderState,
} from '../domain/order-views.js';
import {
  actOnOrder,
  allowedOrderActions,
  mayChangeTrackingNumber,
  ORDER_ACTIONS,
  type OrderAction,
  setTrackingNumber,
} from '../domain/orders.js';
import { notFound } from '../errors.js';
import type { Services } from '../services.js';
import { type Errors, fields, formErrors, redirectWithFlash, type Values } from './forms.js';
import { LIST_PAGE_SIZE, pageOf, pager, pathId } from './paging.js';
import { render } from './render.js';
import { requireUser } from './session.js';

const STATES = Object.keys(ORDER_STATE_CODES) as OrderState[];
const ACTION_FIELDS = ['trackingNumber', 'reason', 'relist'] as const;
const TRACKING_FIELDS = ['trackingNumber'] as const;
const EVALUATION_FIELDS = [
  'evaluationGrade',
  'itemDescription',
  'packaging',
  'speed',
  'comment',
  'complaint',
];

/** Which form of the order page failed, with what was typed and why. */
interface Failed {
  form: OrderAction | 'evaluation' | 'tracking';
  values: Values;
  errors: Errors;
}

/** The path segment of each action (`/orders/7/confirm-reception`) and back. */
const ACTION_PATHS: Record<OrderAction, string> = {
  send: 'send',
  confirmReception: 'confirm-reception',
  cancel: 'cancel',
  requestCancellation: 'request-cancellation',
  acceptCancellation: 'accept-cancellation',
};

/**
 * Orders as buyer and as seller (the same domain functions as `GET /orders/:actor/:state`,
 * `GET /order/:idOrder`, `PUT /order/:idOrder` and `POST /order/:idOrder/evaluation`). The order
 * page offers exactly the actions `allowedOrderActions` lists for this person now (the state
 * machine's own refusals), and the evaluation form only while `mayEvaluate`.
 */
export function orderPages(app: FastifyInstance, services: Services): void {
  const signedIn = { onRequest: requireUser };
  const form = { onRequest: requireUser, preHandler: app.csrfProtection };

  app.get('/orders', signedIn, async (request, reply) => {
    const q = request.query as { actor?: string; state?: string };
    const state = parseOrderState(q.state || 'paid');
    const p = pageOf(request, LIST_PAGE_SIZE);
    const idUser = request.user!.idUser;
    const actorName =
      q.actor === 'seller' || q.actor === 'buyer'
        ? q.actor
        : (await defaultOrderActor(services, idUser, state)) === ACTOR_SELLER
          ? 'seller'
          : 'buyer';
    const { total, orders } = await listOrders(
      services,
      idUser,
      parseActor(actorName),
      state,
      p.offset,
      p.limit,
    );
    const counts = await orderTabCounts(services, idUser, parseActor(actorName));
    return render(request, reply, 'orders', {
      title: 'orders.title',
      counts,
      actor: actorName,
      state,
      states: STATES,
      orders: orders.map((v) => ({
        view: v,
        counterparty: parseActor(actorName) === ACTOR_SELLER ? v.buyer : v.seller,
      })),
      pager: pager(request, p, total),
    });
  });

  const showOrder = async (
    request: FastifyRequest,
    reply: FastifyReply,
    idOrder: number,
    failed?: Failed,
  ) => {
    const idUser = request.user!.idUser;
    const view = await getOrder(services, idUser, idOrder);
    const actions = await allowedOrderActions(services, idUser, idOrder);
    const isSeller = view.order.idSeller === idUser;
    return render(
      request,
      reply,
      'order',
      {
        title: 'order.title',
        titleParams: { idOrder },
        view,
        isSeller,
        counterparty: isSeller ? view.buyer : view.seller,
        actions,
        actionPaths: ACTION_PATHS,
        evaluate: mayEvaluate(view.order, idUser, view.evaluation !== undefined),
        // The send form takes a tracking number itself; once sent, this form corrects it.
        tracking: mayChangeTrackingNumber(view.order, idUser) && !actions.includes('send'),
        grades: GRADES,
        complaints: COMPLAINTS,
        failed: failed ?? null,
      },
      failed ? 400 : 200,
    );
  };

  app.get('/orders/:idOrder', signedIn, async (request, reply) => {
    const idOrder = pathId(request.params, 'idOrder');
    if (idOrder === undefined) throw notFound('There is no such order.', { reason: 'unknown_order' });
    return showOrder(request, reply, idOrder);
  });

  app.post('/orders/:idOrder/:action', form, async (request, reply) => {
    const idOrder = pathId(request.params, 'idOrder');
    const segment = (request.params as { action: string }).action;
    const action = ORDER_ACTIONS.find((a) => ACTION_PATHS[a] === segment);
    if (idOrder === undefined || action === undefined)
      throw notFound('There is no such order action.', { reason: 'unknown_order_action' });
    const values = fields(request, ACTION_FIELDS);
    try {
      await actOnOrder(services, request.user!.idUser, idOrder, {
        action,
        reason: values.reason === '' ? undefined : values.reason,
        relist: values.relist === 'true' ? true : undefined,
        trackingNumber: values.trackingNumber === '' ? undefined : values.trackingNumber,
      });
      return redirectWithFlash(reply, `/orders/${idOrder}`, `flash.order.${action}`);
    } catch (err) {
      const errors = formErrors(request.t, err, ACTION_FIELDS);
      return showOrder(request, reply, idOrder, { form: action, values, errors });
    }
  });

  app.post('/orders/:idOrder/tracking', form, async (request, reply) => {
    const idOrder = pathId(request.params, 'idOrder');
    if (idOrder === undefined) throw notFound('There is no such order.', { reason: 'unknown_order' });
    const values = fields(request, TRACKING_FIELDS);
    try {
      await setTrackingNumber(services, request.user!.idUser, idOrder, values.trackingNumber);
      return redirectWithFlash(reply, `/orders/${idOrder}`, 'flash.order.tracking');
    } catch (err) {
      const errors = formErrors(request.t, err, TRACKING_FIELDS);
      return showOrder(request, reply, idOrder, { form: 'tracking', values, errors });
    }
  });

  app.post('/orders/:idOrder/evaluation', form, async (request, reply) => {
    const idOrder = pathId(request.params, 'idOrder');
    if (idOrder === undefined) throw notFound('There is no such order.', { reason: 'unknown_order' });
    const values = fields(request, EVALUATION_FIELDS);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const complaint = ([] as unknown[])
      .concat(body.complaint ?? [])
      .filter((c): c is string => typeof c === 'string');
    const grade = (v: string) => (/^\d{1,2}$/.test(v) ? Number(v) : Number.NaN);
    try {
      await evaluateOrder(services, request.user!.idUser, idOrder, {
        evaluationGrade: grade(values.evaluationGrade),
        itemDescription: grade(values.itemDescription),
        packaging: grade(values.packaging),
        speed: values.speed === '' ? undefined : grade(values.speed),
        comment: values.comment,
        complaint,
      });
      return redirectWithFlash(reply, `/orders/${idOrder}`, 'flash.order.evaluated');
    } catch (err) {
      const errors = formErrors(request.t, err, EVALUATION_FIELDS);
      return showOrder(request, reply, idOrder, { form: 'evaluation', values, errors });
    }
  });
}
