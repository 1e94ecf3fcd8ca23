import { COMPLAINTS, evaluateOrder, GRADES } from '../domain/evaluations.js';
import {
  getOrder,
  listOrders,
  ORDER_STATE_CODES,
  parseActor,
  parseOrderState,
} from '../domain/order-views.js';
import {
  actOnOrder,
  limitedOrderText,
  MAX_ORDER_TEXT_LENGTH,
  MAX_TRACKING_LENGTH,
  parseOrderAction,
  setTrackingNumber,
} from '../domain/orders.js';
import { requireBody } from '../http/body.js';
import { boolean, idParam, integer, requireInteger, requireText, strings, text } from '../http/fields.js';
import { pagedResponse, pageFromPathOrQuery } from '../http/pagination.js';
import { type ApiRequest, ok, type Router, USER_KINDS } from '../http/routing.js';
import { mapOrder, mapOrders } from '../mappers/order.js';
import type { Services } from '../services.js';
import { Type } from '@sinclair/typebox';
import {
  Answer,
  IdParam,
  pageQuery,
  PathStart,
  RequestBody,
  type RouteSchema,
} from '../http/route-schema.js';
import { OrderSchema } from '../mappers/order.js';

const MAX_TRACKING = MAX_TRACKING_LENGTH;
const MAX_TEXT = MAX_ORDER_TEXT_LENGTH;
const limited = limitedOrderText;

const ORDER = Answer({ order: OrderSchema });
/** An evaluation's grade (`checkGrade`): 1 very good, 2 good, 3 neutral, 4 bad, 10 n/a. */
const GRADE = Type.Integer({
  enum: [...GRADES],
  description: '1 very good, 2 good, 3 neutral, 4 bad, 10 n/a.',
});
const ORDERS_SCHEMA = (withStart: boolean): RouteSchema => ({
  summary: withStart ? 'A page of orders (1-based start, 100 a page)' : 'Orders by role and state',
  params: {
    actor: Type.String({ enum: ['seller', 'buyer', '1', '2'] }),
    state: Type.String({
      enum: Object.entries(ORDER_STATE_CODES).flatMap(([name, code]) => [name, String(code)]),
    }),
    ...(withStart ? { start: PathStart } : {}),
  },
  query: withStart ? undefined : pageQuery(),
  paginated: true,
  responses: { 200: Answer({ order: Type.Array(OrderSchema) }) },
});

/** Orders (spec §3, §4.3; reference §1.4, §2.11, §2.12). */
export function orderRoutes(r: Router, services: Services): void {
  const list = async (req: ApiRequest) => {
    const actor = parseActor(req.params.actor ?? '');
    const state = parseOrderState(req.params.state ?? '');
    const page = pageFromPathOrQuery(req.params.start, req.query);
    const idUser = req.auth.idUser!;
    const { total, orders } = await listOrders(services, idUser, actor, state, page.offset, page.limit);
    return pagedResponse(req, services.config, page, total, orders.length, () => ({
      order: mapOrders(orders, idUser),
    }));
  };
  r.get('/orders/:actor/:state', { kinds: USER_KINDS, schema: ORDERS_SCHEMA(false) }, list);
  r.get('/orders/:actor/:state/:start', { kinds: USER_KINDS, schema: ORDERS_SCHEMA(true) }, list);

  r.get(
    '/order/:idOrder',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'One order',
        params: { idOrder: IdParam },
        responses: { 200: ORDER },
      },
    },
    async (req) => {
      const idUser = req.auth.idUser!;
      return ok({
        order: mapOrder(await getOrder(services, idUser, idParam(req.params, 'idOrder')), idUser),
      });
    },
  );

  r.put(
    '/order/:idOrder',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Change the state of an order',
        params: { idOrder: IdParam },
        body: RequestBody({
          action: Type.String({
            enum: ['send', 'confirmReception', 'cancel', 'requestCancellation', 'acceptCancellation'],
          }),
          reason: Type.Optional(Type.String({ maxLength: MAX_TEXT })),
          relistItems: Type.Optional(Type.Boolean({ description: 'Also read as `relist`.' })),
          trackingNumber: Type.Optional(Type.String({ maxLength: MAX_TRACKING })),
        }),
        errors: [412],
        responses: { 200: ORDER },
      },
    },
    async (req) => {
      const idOrder = idParam(req.params, 'idOrder');
      const body = requireBody(
        req.body,
        '<action>send|confirmReception|cancel|requestCancellation|acceptCancellation</action>',
      );
      const action = parseOrderAction(requireText(body, 'action'));
      // The spec calls the flag `relist`, the 1.1 documentation `relistItems`: both are read.
      const relist = boolean(body, 'relist') ?? boolean(body, 'relistItems');
      const idUser = req.auth.idUser!;
      const view = await actOnOrder(services, idUser, idOrder, {
        action,
        reason: limited(text(body, 'reason'), 'reason', MAX_TEXT),
        relist,
        trackingNumber: limited(text(body, 'trackingNumber'), 'trackingNumber', MAX_TRACKING),
      });
      return ok({ order: mapOrder(view, idUser) });
    },
  );

  r.put(
    '/order/:idOrder/tracking',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Set the tracking number of a sent order',
        params: { idOrder: IdParam },
        body: RequestBody({ trackingNumber: Type.String({ maxLength: MAX_TRACKING }) }),
        errors: [412],
        responses: { 200: ORDER },
      },
    },
    async (req) => {
      const idOrder = idParam(req.params, 'idOrder');
      const body = requireBody(req.body, '<trackingNumber>…</trackingNumber>');
      const trackingNumber = limited(
        requireText(body, 'trackingNumber').trim(),
        'trackingNumber',
        MAX_TRACKING,
      )!;
      const idUser = req.auth.idUser!;
      return ok({
        order: mapOrder(await setTrackingNumber(services, idUser, idOrder, trackingNumber), idUser),
      });
    },
  );

  r.post(
    '/order/:idOrder/evaluation',
    {
      kinds: USER_KINDS,
      schema: {
        summary: 'Evaluate a received order',
        params: { idOrder: IdParam },
        body: RequestBody({
          evaluationGrade: GRADE,
          itemDescription: GRADE,
          packaging: GRADE,
          speed: Type.Optional(GRADE),
          comment: Type.Optional(
            Type.String({
              maxLength: MAX_TEXT,
              description: 'Required (not blank) unless every grade is 1 (very good).',
            }),
          ),
          complaint: Type.Optional(
            Type.Array(Type.String({ enum: [...COMPLAINTS] }), { description: 'Repeatable.' }),
          ),
        }),
        errors: [412],
        responses: { 200: ORDER },
      },
    },
    async (req) => {
      const idOrder = idParam(req.params, 'idOrder');
      const body = requireBody(req.body, '<evaluationGrade/><itemDescription/><packaging/><comment/>');
      const idUser = req.auth.idUser!;
      const view = await evaluateOrder(services, idUser, idOrder, {
        evaluationGrade: requireInteger(body, 'evaluationGrade'),
        itemDescription: requireInteger(body, 'itemDescription'),
        packaging: requireInteger(body, 'packaging'),
        speed: integer(body, 'speed'),
        comment: limited(text(body, 'comment') ?? '', 'comment', MAX_TEXT)!,
        complaint: strings(body, 'complaint')
          .map((c) => c.trim())
          .filter(Boolean),
      });
      return ok({ order: mapOrder(view, idUser) });
    },
  );
}
