import type { OrderView } from '../domain/order-views.js';
import type { Order, OrderEvaluation } from '../store/schema.js';
import { type Static, Type } from '@sinclair/typebox';
import { AddressSchema, mapAddress } from './address.js';
import { ArticleSchema, mapArticle } from './article.js';
import { mapShippingMethod, ShippingMethodSchema } from './shipping-method.js';
import type { ShownUser } from '../store/users.js';
import { type ApiUser, mapUser, UserSchema } from './user.js';
import { SharedTree } from '../http/xml.js';
import {
  BoolSchema,
  link,
  LinksSchema,
  money,
  MoneySchema,
  Nullable,
  presentList,
  timestamp,
  TimestampSchema,
} from './values.js';

export const EvaluationSchema = Type.Object(
  {
    evaluationGrade: Type.Integer({ minimum: 1, maximum: 3 }),
    itemDescription: Type.Integer({ minimum: 1, maximum: 3 }),
    packaging: Type.Integer({ minimum: 1, maximum: 3 }),
    speed: Nullable(Type.Integer()),
    comment: Type.String(),
    complaint: Type.Array(Type.String(), {
      description: 'Always present; one empty element in XML when none.',
    }),
  },
  { $id: 'Evaluation', description: 'Evaluation (reference §2.12).' },
);

const OrderStateSchema = Type.Object(
  {
    state: Type.String({
      enum: ['bought', 'paid', 'sent', 'received', 'evaluated', 'lost', 'cancelled'],
    }),
    dateBought: TimestampSchema,
    datePaid: Type.Optional(TimestampSchema),
    dateSent: Type.Optional(TimestampSchema),
    dateReceived: Type.Optional(TimestampSchema),
    dateLost: Type.Optional(TimestampSchema),
    dateCancelled: Type.Optional(TimestampSchema),
    reason: Type.Optional(Type.String()),
    wasMergedInto: Type.Optional(Type.Integer()),
  },
  { description: 'The state and the dates it has passed (absent ones are left out).' },
);

const CancellationRequestSchema = Nullable(
  Type.Object({ reason: Type.String(), date: Nullable(TimestampSchema) }),
);

export const OrderSchema = Type.Object(
  {
    idOrder: Type.Integer(),
    isBuyer: BoolSchema,
    seller: UserSchema,
    buyer: UserSchema,
    state: OrderStateSchema,
    shippingMethod: ShippingMethodSchema,
    trackingNumber: Type.String(),
    temporaryEmail: Type.String(),
    isPresale: BoolSchema,
    shippingAddress: AddressSchema,
    articleCount: Type.Integer(),
    note: Type.String(),
    evaluation: Nullable(EvaluationSchema),
    article: Type.Array(ArticleSchema),
    articleValue: MoneySchema,
    totalValue: MoneySchema,
    idCurrency: Type.Literal(1),
    currencyCode: Type.Literal('EUR'),
    phoneNumber: Type.String(),
    vatCollectedByCm: Type.Null(),
    cancellationRequests: Type.Object({
      cancellationRequestBuyer: CancellationRequestSchema,
      cancellationRequestSeller: CancellationRequestSchema,
    }),
    links: LinksSchema,
  },
  { $id: 'Order', description: 'Order (reference §2.11), as its buyer or seller sees it.' },
);
export type ApiOrder = Static<typeof OrderSchema>;

/** The Evaluation entity (reference §2.12). */
export function mapEvaluation(e: OrderEvaluation): Static<typeof EvaluationSchema> {
  return {
    evaluationGrade: e.evaluationGrade,
    itemDescription: e.itemDescription,
    packaging: e.packaging,
    speed: e.speed,
    comment: e.comment,
    // Always there (reference §2.12), empty or not: one empty element in XML when there is none.
    complaint: presentList(JSON.parse(e.complaints) as string[]),
  };
}

/**
 * The order's `state` object: the state name, the dates it has passed (absent ones are left out,
 * as the real API does), the cancellation reason and `wasMergedInto` where they apply. A received
 * order that has been evaluated shows `evaluated`, as on the real API; it is still listed under
 * received.
 */
function mapState(o: Order, evaluated: boolean): Static<typeof OrderStateSchema> {
  const state: Static<typeof OrderStateSchema> = {
    state: o.state === 'received' && evaluated ? 'evaluated' : o.state,
    dateBought: timestamp(o.dateBought),
  };
  if (o.datePaid !== null) state.datePaid = timestamp(o.datePaid);
  if (o.dateSent !== null) state.dateSent = timestamp(o.dateSent);
  if (o.dateReceived !== null) state.dateReceived = timestamp(o.dateReceived);
  if (o.dateLost !== null) state.dateLost = timestamp(o.dateLost);
  if (o.dateCancelled !== null) state.dateCancelled = timestamp(o.dateCancelled);
  if (o.cancellationReason !== null) state.reason = o.cancellationReason;
  if (o.wasMergedInto !== null) state.wasMergedInto = o.wasMergedInto;
  return state;
}

/**
 * A party as the other one sees it, mapped once per list: a page of a seller's orders names the
 * same seller in each of them (and a buyer in each of theirs), and the loaded views share one
 * user object per party. The entity is written the same wherever it appears in the tree.
 */
function counterparty(user: ShownUser, users: Map<ShownUser, ApiUser> | undefined): ApiUser {
  let mapped = users?.get(user);
  if (mapped === undefined) {
    mapped = mapUser(user, 'counterparty');
    // Written once per answer wherever it appears (`SharedTree`); typed as the tree it stands for.
    if (users) users.set(user, new SharedTree(mapped) as unknown as ApiUser);
  }
  return mapped;
}

/** A list of orders as one viewer sees them (a page of `GET /orders/:actor/:state`, a checkout). */
export function mapOrders(views: OrderView[], idViewer: number): ApiOrder[] {
  const users = new Map<ShownUser, ApiUser>();
  // Each order's XML is joined into one flat text as soon as it is written (`SharedTree`): a page of
  // 100 orders is otherwise one string of some 60,000 pieces that encoding it for the socket walks
  // again, piece by piece, long after they left the cache. JSON writes the tree as it is.
  return views.map((v) => new SharedTree(mapOrder(v, idViewer, users)) as unknown as ApiOrder);
}

function request(reason: string | null, date: number | null) {
  return reason === null ? null : { reason, date: timestamp(date) };
}

/**
 * The Order entity (reference §2.11), fields in the reference's order, as the order's buyer or
 * seller (`idViewer`) sees it: both parties with name, address and contact; the articles with
 * the count and price they were bought at.
 */
export function mapOrder(v: OrderView, idViewer: number, users?: Map<ShownUser, ApiUser>): ApiOrder {
  const o = v.order;
  const isSeller = o.idSeller === idViewer;
  return {
    idOrder: o.idOrder,
    isBuyer: o.idBuyer === idViewer,
    seller: counterparty(v.seller, users),
    buyer: counterparty(v.buyer, users),
    state: mapState(o, v.evaluation !== undefined),
    shippingMethod: mapShippingMethod({
      idShippingMethod: o.idShippingMethod,
      name: o.shippingMethodName,
      price: o.shippingPrice,
      isLetter: o.isLetter,
      isInsured: o.isInsured,
    }),
    // Strings, never null, as recorded responses have them (`""` until the seller gives one).
    trackingNumber: o.trackingNumber ?? '',
    // The address the seller writes to about this order (the real API relays through one of its
    // own; this marketplace has no relay, so it is the buyer's); the buyer gets an empty string.
    temporaryEmail: isSeller ? v.buyer.email : '',
    // No presale articles exist here. Present in every state, as recorded responses show it even
    // on evaluated orders (the reference's "only while bought or paid" is not what clients see).
    isPresale: false,
    shippingAddress: mapAddress({
      name: o.shippingName,
      extra: o.shippingExtra,
      street: o.shippingStreet,
      zip: o.shippingZip,
      city: o.shippingCity,
      country: o.shippingCountry,
    }),
    articleCount: o.articleCount,
    note: o.note,
    evaluation: v.evaluation ? mapEvaluation(v.evaluation) : null,
    article: v.lines.map((line) => mapArticle(line, { context: 'order' })),
    articleValue: money(o.articleValue),
    totalValue: money(o.totalValue),
    idCurrency: 1,
    currencyCode: 'EUR',
    phoneNumber: v.buyer.phoneNumber,
    vatCollectedByCm: null,
    cancellationRequests: {
      cancellationRequestBuyer: request(o.cancellationRequestBuyer, o.cancellationRequestBuyerDate),
      cancellationRequestSeller: request(o.cancellationRequestSeller, o.cancellationRequestSellerDate),
    },
    links: [link('self', `/order/${o.idOrder}`)],
  };
}
