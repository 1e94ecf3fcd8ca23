import { badRequest, preconditionFailed } from '../errors.js';
import { appendEvent } from '../store/events.js';
import { insertEvaluation } from '../store/orders.js';
import type { Order } from '../store/schema.js';
import { limitedOrderText, MAX_ORDER_TEXT_LENGTH } from './orders.js';
import type { DomainContext } from './context.js';
import { EVENTS } from './events.js';
import { loadOrderView, type OrderView, partyOrder } from './order-views.js';
import { recordEvaluation } from './seller-stats.js';

/** Evaluation grades (reference §2.12): 1 very good, 2 good, 3 neutral, 4 bad, 10 not applicable. */
export const GRADES = [1, 2, 3, 4, 10] as const;

/** Complaint codes of the current documentation, and two older ones still seen. */
export const COMPLAINTS = [
  'badCommunication',
  'incompleteShipment',
  'refusedCancel',
  'shipDamage',
  'unorderedShipment',
  'wrongEd',
  'wrongLang',
  'wrongGrading',
  'refundIssued',
  'notFoil',
  'rudeSeller',
] as const;

export interface EvaluationInput {
  evaluationGrade: number;
  itemDescription: number;
  packaging: number;
  /** Optional on input; stored as 10 (not applicable) when absent. */
  speed: number | undefined;
  comment: string;
  complaint: string[];
}

function checkGrade(value: number, field: string): number {
  if (!(GRADES as readonly number[]).includes(value)) {
    throw badRequest(`"${field}" must be 1 (very good), 2 (good), 3 (neutral), 4 (bad) or 10 (n/a).`, {
      field,
      reason: 'grade_invalid',
    });
  }
  return value;
}

function checkEvaluation(e: EvaluationInput): void {
  limitedOrderText(e.comment, 'comment', MAX_ORDER_TEXT_LENGTH);
  checkGrade(e.evaluationGrade, 'evaluationGrade');
  checkGrade(e.itemDescription, 'itemDescription');
  checkGrade(e.packaging, 'packaging');
  if (e.speed !== undefined) checkGrade(e.speed, 'speed');
  for (const c of e.complaint) {
    if (!(COMPLAINTS as readonly string[]).includes(c)) {
      throw badRequest(`Unknown complaint "${c}": use one of ${COMPLAINTS.join(', ')}.`, {
        field: 'complaint',
        reason: 'complaint_invalid',
      });
    }
  }
  const grades = [
    e.evaluationGrade,
    e.itemDescription,
    e.packaging,
    ...(e.speed === undefined ? [] : [e.speed]),
  ];
  if (e.comment.trim() === '' && grades.some((g) => g !== 1)) {
    throw badRequest('A comment is required unless every grade is 1 (very good).', {
      field: 'comment',
      reason: 'evaluation_comment_required',
    });
  }
}

/** Only the buyer evaluates, once, a received order (the page offers the form exactly then). */
export function mayEvaluate(order: Order, idUser: number, evaluated: boolean): boolean {
  return order.idBuyer === idUser && order.state === 'received' && !evaluated;
}

/** `POST /order/:idOrder/evaluation`: the buyer evaluates a received order, once. */
export async function evaluateOrder(
  ctx: DomainContext,
  idUser: number,
  idOrder: number,
  input: EvaluationInput,
): Promise<OrderView> {
  checkEvaluation(input);
  return ctx.database.transaction(async (tx) => {
    const order = await partyOrder(tx, idUser, idOrder);
    if (!mayEvaluate(order, idUser, false)) {
      throw preconditionFailed(
        `Cannot evaluate order ${idOrder}: it is ${order.state} and you are its ${order.idBuyer === idUser ? 'buyer' : 'seller'}; only the buyer evaluates, after reception.`,
        { reason: 'evaluation_not_allowed' },
      );
    }
    const stored = await insertEvaluation(tx, {
      idOrder,
      idSeller: order.idSeller,
      evaluationGrade: input.evaluationGrade,
      itemDescription: input.itemDescription,
      packaging: input.packaging,
      speed: input.speed ?? 10,
      comment: input.comment.trim(),
      complaints: JSON.stringify(input.complaint),
      createdAt: ctx.clock.now(),
    });
    if (!stored)
      throw preconditionFailed(`Order ${idOrder} has been evaluated already.`, {
        reason: 'evaluated_already',
      });
    await recordEvaluation(tx, order.idSeller, input.evaluationGrade);
    await appendEvent(tx, EVENTS.orderChanged, { idOrder, change: 'evaluated' }, ctx.clock.now());
    return loadOrderView(tx, idOrder);
  });
}
