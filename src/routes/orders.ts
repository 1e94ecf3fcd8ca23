import { evaluateOrder } from '../domain/evaluations.js';
import { getOrder, listOrders, parseActor, parseOrderState } from '../domain/order-views.js';
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
import { mapOrder } from '../mappers/order.js';
import type { Services } from '../services.js';

const MAX_TRACKING = MAX_TRACKING_LENGTH;
const MAX_TEXT = MAX_ORDER_TEXT_LENGTH;
const limited = limitedOrderText;

/** Orders (spec §3, §4.3; reference §1.4, §2.11, §2.12). */
export function orderRoutes(r: Router, services: Services): void {
  const list = async (req: ApiRequest) => {
    const actor = parseActor(req.params.actor ?? '');
    const state = parseOrderState(req.params.state ?? '');
    const page = pageFromPathOrQuery(req.params.start, req.query);
    const idUser = req.auth.idUser!;
    const { total, orders } = await listOrders(services, idUser, actor, state, page.offset, page.limit);
    return pagedResponse(req, services.config, page, total, orders.length, () => ({
      order: orders.map((o) => mapOrder(o, idUser)),
    }));
  };
  r.get('/orders/:actor/:state', { kinds: USER_KINDS }, list);
  r.get('/orders/:actor/:state/:start', { kinds: USER_KINDS }, list);

  r.get('/order/:idOrder', { kinds: USER_KINDS }, async (req) => {
    const idUser = req.auth.idUser!;
    return ok({ order: mapOrder(await getOrder(services, idUser, idParam(req.params, 'idOrder')), idUser) });
  });

  r.put('/order/:idOrder', { kinds: USER_KINDS }, async (req) => {
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
  });

  r.put('/order/:idOrder/tracking', { kinds: USER_KINDS }, async (req) => {
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
  });

  r.post('/order/:idOrder/evaluation', { kinds: USER_KINDS }, async (req) => {
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
  });
}
