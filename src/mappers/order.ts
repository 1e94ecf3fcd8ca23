import type { OrderView } from '../domain/order-views.js';
import type { Order, OrderEvaluation } from '../store/schema.js';
import { type Static, Type } from '@sinclair/typebox';
import { addressTo, AddressSchema, mapAddress } from './address.js';
import { ArticleSchema, mapArticle, orderLineTo } from './article.js';
import {
  boolTo,
  intTo,
  intXml,
  moneyTo,
  type Tag,
  tag,
  textTo,
  textXml,
  timestampTo,
  timestampXml,
  WrittenOnce,
} from './compiled-xml.js';
import { mapShippingMethod, ShippingMethodSchema, shippingMethodTo } from './shipping-method.js';
import type { ShownUser } from '../store/users.js';
import { type ApiUser, counterpartyTo, mapUser, UserSchema } from './user.js';
import { CompiledTree, SharedTree, xmlElement, xmlBytes, type XmlWriter } from '../http/xml.js';
import {
  BoolSchema,
  link,
  LinksSchema,
  MappedOnce,
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

/**
 * A list of orders as one viewer sees them (a page of `GET /orders/:actor/:state`, a checkout).
 * XML is written straight from the views by the writer compiled below (a page of 100 orders was
 * some 20,000 elements built as objects, walked, and joined from tens of thousands of pieces);
 * JSON writes the tree `mapOrder` gives, built when it is asked for.
 */
export function mapOrders(views: OrderView[], idViewer: number): ApiOrder[] {
  const page: OrderPage = {
    idViewer,
    users: new Map(),
    once: new MappedOnce(),
    written: new WrittenOnce(),
  };
  // Typed as the tree it stands for: both writers render it as that tree.
  return views.map(
    (view) => new CompiledOrder({ view, page }, undefined, undefined, orderTo) as unknown as ApiOrder,
  );
}

/** What the orders of one answer share: the viewer, and each party and product mapped once. */
interface OrderPage {
  idViewer: number;
  users: Map<ShownUser, ApiUser>;
  once: MappedOnce;
  /** Each party's bytes, written once in an answer (the seller of every order on a seller's page). */
  written: WrittenOnce<ShownUser>;
}

interface OrderSource {
  view: OrderView;
  page: OrderPage;
}

class CompiledOrder extends CompiledTree<OrderSource> {
  // JSON (and anything else that reads the tree) gets `mapOrder`'s tree.
  override toJSON(): OrderSource {
    const { view, page } = this.tree;
    return mapOrder(view, page.idViewer, page.users) as unknown as OrderSource;
  }
}

const T = {
  idOrder: tag('idOrder'),
  isBuyer: tag('isBuyer'),
  state: tag('state'),
  dateBought: tag('dateBought'),
  datePaid: tag('datePaid'),
  dateSent: tag('dateSent'),
  dateReceived: tag('dateReceived'),
  dateLost: tag('dateLost'),
  dateCancelled: tag('dateCancelled'),
  reason: tag('reason'),
  wasMergedInto: tag('wasMergedInto'),
  trackingNumber: tag('trackingNumber'),
  temporaryEmail: tag('temporaryEmail'),
  articleCount: tag('articleCount'),
  note: tag('note'),
  evaluationGrade: tag('evaluationGrade'),
  itemDescription: tag('itemDescription'),
  packaging: tag('packaging'),
  speed: tag('speed'),
  comment: tag('comment'),
  complaint: tag('complaint'),
  articleValue: tag('articleValue'),
  totalValue: tag('totalValue'),
  phoneNumber: tag('phoneNumber'),
  date: tag('date'),
  cancellationRequestBuyer: tag('cancellationRequestBuyer'),
  cancellationRequestSeller: tag('cancellationRequestSeller'),
};

function evaluationXml(e: OrderEvaluation): string {
  const complaints = JSON.parse(e.complaints) as unknown[];
  let out =
    '<evaluation>' +
    intXml(T.evaluationGrade, e.evaluationGrade) +
    intXml(T.itemDescription, e.itemDescription) +
    intXml(T.packaging, e.packaging) +
    intXml(T.speed, e.speed) +
    textXml(T.comment, e.comment);
  // Always present (`presentList`): one empty element when there is none.
  if (complaints.length === 0) out += T.complaint.empty;
  else for (const c of complaints) out += textXml(T.complaint, c);
  return out + '</evaluation>';
}

function requestXml(t: Tag, reason: string | null, date: number | null): string {
  return reason === null
    ? t.empty
    : t.open + textXml(T.reason, reason) + timestampXml(T.date, date) + t.close;
}

/** The markup between the values of the writers into bytes below, encoded once. */
const M = {
  SELLER: xmlBytes('<seller>'),
  SELLER_END_BUYER: xmlBytes('</seller><buyer>'),
  BUYER_END_STATE: xmlBytes('</buyer><state>'),
  STATE_END_SHIPPING: xmlBytes('</state><shippingMethod>'),
  SHIPPING_END: xmlBytes('</shippingMethod>'),
  NO_PRESALE_ADDRESS: xmlBytes('<isPresale>false</isPresale><shippingAddress>'),
  ADDRESS_END: xmlBytes('</shippingAddress>'),
  NO_EVALUATION: xmlBytes('<evaluation/>'),
  ARTICLE: xmlBytes('<article>'),
  ARTICLE_END: xmlBytes('</article>'),
  EUROS: xmlBytes('<idCurrency>1</idCurrency><currencyCode>EUR</currencyCode>'),
  VAT_REQUESTS: xmlBytes('<vatCollectedByCm/><cancellationRequests>'),
  REQUESTS_END: xmlBytes('</cancellationRequests>'),
  SELF_ORDER: xmlBytes('<links><rel>self</rel><href>/order/'),
  GET_END: xmlBytes('</href><method>GET</method></links>'),
};

/** `requestXml` into the answer's bytes: nearly always none. */
function requestTo(out: XmlWriter, t: Tag, reason: string | null, date: number | null): void {
  if (reason === null) out.bytes(t.bytes.empty);
  else out.markup(requestXml(t, reason, date));
}

/**
 * The Order's XML children, compiled for its schema and written straight into the answer's bytes
 * (`CompiledTree.writeTo`): byte for byte what the generic writer gives for `mapOrder`'s tree
 * (`order.test.ts` compares them, in every state and with the optional parts). Its only writer: an
 * order met outside a list is written from that tree.
 */
function orderTo({ view: v, page }: OrderSource, out: XmlWriter): void {
  const o = v.order;
  const idViewer = page.idViewer;
  intTo(out, T.idOrder, o.idOrder);
  boolTo(out, T.isBuyer, o.idBuyer === idViewer);
  out.bytes(M.SELLER);
  page.written.write(out, v.seller, counterpartyTo);
  out.bytes(M.SELLER_END_BUYER);
  page.written.write(out, v.buyer, counterpartyTo);
  out.bytes(M.BUYER_END_STATE);
  textTo(out, T.state, o.state === 'received' && v.evaluation !== undefined ? 'evaluated' : o.state);
  timestampTo(out, T.dateBought, o.dateBought);
  if (o.datePaid !== null) timestampTo(out, T.datePaid, o.datePaid);
  if (o.dateSent !== null) timestampTo(out, T.dateSent, o.dateSent);
  if (o.dateReceived !== null) timestampTo(out, T.dateReceived, o.dateReceived);
  if (o.dateLost !== null) timestampTo(out, T.dateLost, o.dateLost);
  if (o.dateCancelled !== null) timestampTo(out, T.dateCancelled, o.dateCancelled);
  if (o.cancellationReason !== null) textTo(out, T.reason, o.cancellationReason);
  if (o.wasMergedInto !== null) intTo(out, T.wasMergedInto, o.wasMergedInto);
  out.bytes(M.STATE_END_SHIPPING);
  shippingMethodTo(out, {
    idShippingMethod: o.idShippingMethod,
    name: o.shippingMethodName,
    price: o.shippingPrice,
    isLetter: o.isLetter,
    isInsured: o.isInsured,
  });
  out.bytes(M.SHIPPING_END);
  textTo(out, T.trackingNumber, o.trackingNumber ?? '');
  textTo(out, T.temporaryEmail, o.idSeller === idViewer ? v.buyer.email : '');
  out.bytes(M.NO_PRESALE_ADDRESS);
  addressTo(
    out,
    o.shippingName,
    o.shippingExtra,
    o.shippingStreet,
    o.shippingZip,
    o.shippingCity,
    o.shippingCountry,
  );
  out.bytes(M.ADDRESS_END);
  intTo(out, T.articleCount, o.articleCount);
  textTo(out, T.note, o.note);
  if (v.evaluation) out.markup(evaluationXml(v.evaluation));
  else out.bytes(M.NO_EVALUATION);
  for (const line of v.lines) {
    out.bytes(M.ARTICLE);
    orderLineTo(out, line);
    out.bytes(M.ARTICLE_END);
  }
  moneyTo(out, T.articleValue, o.articleValue);
  moneyTo(out, T.totalValue, o.totalValue);
  out.bytes(M.EUROS);
  textTo(out, T.phoneNumber, v.buyer.phoneNumber);
  out.bytes(M.VAT_REQUESTS);
  requestTo(out, T.cancellationRequestBuyer, o.cancellationRequestBuyer, o.cancellationRequestBuyerDate);
  requestTo(out, T.cancellationRequestSeller, o.cancellationRequestSeller, o.cancellationRequestSellerDate);
  out.bytes(M.REQUESTS_END);
  if (typeof o.idOrder === 'number') {
    out.bytes(M.SELF_ORDER);
    out.number(o.idOrder);
    out.bytes(M.GET_END);
  } else out.markup(xmlElement('links', [link('self', `/order/${o.idOrder}`)]));
}

function request(reason: string | null, date: number | null) {
  return reason === null ? null : { reason, date: timestamp(date) };
}

/**
 * An order's lines as `mapOrder` shows them, the same to buyer and seller: a caller mapping the
 * order for both maps its lines once (a checkout's order has a hundred).
 */
export function mapOrderLines(v: OrderView): ApiOrder['article'] {
  return v.lines.map((line) => mapArticle(line, { context: 'order' }));
}

/**
 * The Order entity (reference §2.11), fields in the reference's order, as the order's buyer or
 * seller (`idViewer`) sees it: both parties with name, address and contact; the articles with
 * the count and price they were bought at.
 */
export function mapOrder(
  v: OrderView,
  idViewer: number,
  users?: Map<ShownUser, ApiUser>,
  lines: ApiOrder['article'] = mapOrderLines(v),
): ApiOrder {
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
    article: lines,
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
