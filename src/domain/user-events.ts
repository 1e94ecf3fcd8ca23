import { randomUUID } from 'node:crypto';
import { loadArticleViews, loadSoldArticleView } from '../store/articles.js';
import type { Executor, Tx } from '../store/db.js';
import { findExport } from '../store/exports.js';
import type { Export, Message } from '../store/schema.js';
import { insertUserEvents, userEventsAfter } from '../store/user-events.js';
import { findUserById } from '../store/users.js';
import { anyEnabledEndpoint, endpointsHearing, insertDeliveries } from '../store/webhooks.js';
import { mapArticle } from '../mappers/article.js';
import { encodeEventData } from '../mappers/event.js';
import { mapExport } from '../mappers/export.js';
import { mapMessage } from '../mappers/message.js';
import { mapOrder, mapOrderLines } from '../mappers/order.js';
import { mapUser } from '../mappers/user.js';
import type { DomainContext } from './context.js';
import { type AfterCommit, EVENTS, type EventDispatcher } from './events.js';
import { loadOrderView, type OrderView } from './order-views.js';

/**
 * The public events (docs/api.md, "Events and webhooks"): what apps hear through the feed
 * (`GET /events`) and webhooks. Each is derived from an outbox row by its handler, in the
 * transaction that delivers that row, so a public event exists exactly when its cause committed.
 * The data is the changed entity mapped for the receiving user as the API shows it to them, at the
 * moment the event is derived (within a second of the change on a running server).
 */
export const EVENT_KINDS = {
  /** An order of mine (as buyer or seller) changed state, `lost` included: { previousState, order }. */
  orderStateChanged: 'order.stateChanged',
  /** Buyer or seller asked to cancel an order of mine: { requestedBy, order }. */
  orderCancellationRequested: 'order.cancellationRequested',
  /** The buyer evaluated an order of mine: { order }. */
  orderEvaluated: 'order.evaluated',
  /** The seller gave an order of mine a tracking number: { order }. */
  orderTrackingNumberSet: 'order.trackingNumberSet',
  /** A message arrived for me: { partner, message }. */
  messageReceived: 'message.received',
  /** Copies of my article went into someone's shopping cart: { count, article }. */
  articleReserved: 'article.reserved',
  /** Copies of my article were bought (one event per order line): { idOrder, article }. */
  articleSold: 'article.sold',
  /** An offer matching a want of mine became available or cheaper: { wants, article }. */
  wantOfferFound: 'wantslist.offerFound',
  /** An export I requested is ready to download: { export }. */
  exportReady: 'export.ready',
} as const;

export type EventKind = (typeof EVENT_KINDS)[keyof typeof EVENT_KINDS];
export const EVENT_KIND_NAMES: readonly EventKind[] = Object.values(EVENT_KINDS);

export function isEventKind(text: string): text is EventKind {
  return (EVENT_KIND_NAMES as readonly string[]).includes(text);
}

export interface RaisedEvent {
  idUser: number;
  type: EventKind;
  data: unknown;
  /** `encodeEventData(data)`, when the derivation has it already. */
  encoded?: string;
}

/** What the derivation needs beyond the database: the export links (server key, public address). */
export interface UserEventOptions {
  exportUrl: (e: Export) => string | null;
  /** Called after a transaction that queued webhook deliveries committed. */
  deliveriesQueued?: () => void;
}

/**
 * Records events for their users and queues one delivery per endpoint that hears the user and
 * wants the kind. Called in the transaction of the outbox delivery.
 */
export async function raiseUserEvents(tx: Executor, now: number, events: RaisedEvent[]): Promise<boolean> {
  const inserted = await insertUserEvents(
    tx,
    events.map((e) => ({ idUser: e.idUser, type: e.type, payload: e.encoded ?? encodeEventData(e.data) })),
    now,
  );
  if (inserted.length === 0 || !(await anyEnabledEndpoint(tx))) return false;
  const hearing = new Map<number, Awaited<ReturnType<typeof endpointsHearing>>>();
  const deliveries: Array<{ idEndpoint: number; idEvent: number }> = [];
  for (const { idEvent, idUser, type } of inserted) {
    let endpoints = hearing.get(idUser);
    if (!endpoints) {
      endpoints = await endpointsHearing(tx, idUser, now);
      hearing.set(idUser, endpoints);
    }
    for (const endpoint of endpoints) {
      if (wantsKind(endpoint.kinds, type)) deliveries.push({ idEndpoint: endpoint.idEndpoint, idEvent });
    }
  }
  await insertDeliveries(tx, deliveries, now);
  return deliveries.length > 0;
}

export function wantsKind(kinds: string, type: string): boolean {
  return kinds === '*' || kinds.split(',').includes(type);
}

/**
 * The order's events to buyer and seller; `sold` adds the seller's `article.sold` events of a new
 * order from the same read and the same mapping (a checkout's order has a hundred lines: reading
 * and mapping it twice was a fifth of the outbox pass that follows a checkout). The lines are the
 * same to both parties: mapped once and encoded once for both orders and the sold events.
 */
async function orderEvents(
  tx: Executor,
  idOrder: number,
  type: EventKind,
  extra: (role: 'buyer' | 'seller') => Record<string, unknown>,
  sold = false,
): Promise<RaisedEvent[]> {
  const view = await loadOrderView(tx, idOrder);
  // An order merged into another is never shown; its survivor's events tell the story.
  const merged = view.order.wasMergedInto !== null;
  const raised: RaisedEvent[] = [];
  if (merged && !sold) return raised;
  const lines = mapOrderLines(view);
  const encoded = lines.map((a) => encodeEventData(a));
  if (!merged) {
    for (const role of ['buyer', 'seller'] as const) {
      const idUser = role === 'buyer' ? view.order.idBuyer : view.order.idSeller;
      const order = mapOrder(view, idUser, undefined, lines);
      const data = { ...extra(role), order };
      raised.push({ idUser, type, data, encoded: encodeAroundLines(data, order, encoded) });
    }
  }
  if (sold) raised.push(...soldEventsOf(view, lines, encoded));
  return raised;
}

/**
 * Stands for an order's lines while the rest of its event is encoded: a control character (which
 * stored texts never hold) and a per-process random id. Exported for its test only.
 */
export const LINES_MARK = `\u0001lines:${randomUUID()}`;
/** The mark as the encoded text holds it. */
const LINES_MARK_TEXT = JSON.stringify(LINES_MARK);

/**
 * `encodeEventData(data)` of an event whose `order` has these encoded lines: the rest is encoded
 * with a mark in the lines' place and the lines written in, instead of encoding them a second time
 * (a checkout's hundred lines were encoded three times: buyer's order, seller's order, sold events).
 */
export function encodeAroundLines(data: Record<string, unknown>, order: unknown, lines: string[]): string {
  const shown = order as Record<string, unknown>;
  if (!Array.isArray(shown.article) || lines.length === 0) return encodeEventData(data);
  // The mark takes the lines' own key, so every key keeps its place.
  const text = encodeEventData({ ...data, order: { ...shown, article: LINES_MARK } });
  const at = text.indexOf(LINES_MARK_TEXT);
  if (at === -1 || text.indexOf(LINES_MARK_TEXT, at + 1) !== -1) return encodeEventData(data);
  return `${text.slice(0, at)}[${lines.join(',')}]${text.slice(at + LINES_MARK_TEXT.length)}`;
}

/** Every copy line of a new order, as the order shows it (`mapOrderLines`), to its seller. */
function soldEventsOf(view: OrderView, lines: unknown[], encoded?: string[]): RaisedEvent[] {
  const idOrderShown = view.order.wasMergedInto ?? view.order.idOrder;
  return lines.map((article, i) => ({
    idUser: view.order.idSeller,
    type: EVENT_KINDS.articleSold,
    data: { idOrder: idOrderShown, article },
    // As `encodeEventData` writes `{ idOrder, article }`.
    encoded:
      encoded?.[i] === undefined
        ? undefined
        : `{"idOrder":${JSON.stringify(idOrderShown)},"article":${encoded[i]}}`,
  }));
}

async function soldEvents(tx: Executor, idOrder: number): Promise<RaisedEvent[]> {
  const view = await loadOrderView(tx, idOrder);
  return soldEventsOf(view, mapOrderLines(view));
}

async function messageEvents(tx: Executor, seq: number): Promise<RaisedEvent[]> {
  const message = (await tx.selectFrom('messages').selectAll().where('seq', '=', seq).executeTakeFirst()) as
    Message | undefined;
  if (!message) return [];
  const sender = await findUserById(tx, message.idSender);
  if (!sender) return [];
  return [
    {
      idUser: message.idReceiver,
      type: EVENT_KINDS.messageReceived,
      data: { partner: mapUser(sender, 'public'), message: mapMessage(message, message.idReceiver) },
    },
  ];
}

async function reservedEvents(tx: Executor, idArticle: number, count: number): Promise<RaisedEvent[]> {
  // A checkout that sold the last copies deleted the article before this was derived: the seller
  // still hears of the reservation, with the article as the order line keeps it.
  const [view] = await loadArticleViews(tx, [idArticle]);
  const reserved = view ?? (await loadSoldArticleView(tx, idArticle));
  if (!reserved) return [];
  return [
    {
      idUser: reserved.idUser,
      type: EVENT_KINDS.articleReserved,
      data: { count, article: mapArticle(reserved, { context: 'stock', inShoppingCart: true }) },
    },
  ];
}

type Payload = Record<string, unknown>;

/** The handlers that turn outbox rows into public events. */
export function registerUserEventHandlers(events: EventDispatcher, options: UserEventOptions): void {
  const raise =
    (derive: (ctx: DomainContext, tx: Tx, p: Payload) => Promise<RaisedEvent[]>) =>
    async (ctx: DomainContext, tx: Tx, payload: unknown): Promise<AfterCommit | undefined> => {
      const raised = await derive(ctx, tx, payload as Payload);
      if (raised.length === 0) return undefined;
      const queued = await raiseUserEvents(tx, ctx.clock.now(), raised);
      return queued ? options.deliveriesQueued : undefined;
    };

  events.on(
    EVENTS.orderStateChanged,
    raise(async (_ctx, tx, p) => {
      const isNew = p.from === null && p.to === 'bought';
      return orderEvents(
        tx,
        p.idOrder as number,
        EVENT_KINDS.orderStateChanged,
        () => ({ previousState: (p.from as string | null) ?? null }),
        isNew,
      );
    }),
  );
  events.on(
    EVENTS.orderMerged,
    raise(async (_ctx, tx, p) => soldEvents(tx, p.idOrder as number)),
  );
  events.on(
    EVENTS.orderChanged,
    raise(async (_ctx, tx, p) => {
      const idOrder = p.idOrder as number;
      switch (p.change) {
        case 'cancellationRequested':
          return orderEvents(tx, idOrder, EVENT_KINDS.orderCancellationRequested, () => ({
            requestedBy: p.by as string,
          }));
        case 'evaluated':
          return orderEvents(tx, idOrder, EVENT_KINDS.orderEvaluated, () => ({}));
        case 'trackingNumber':
          return orderEvents(tx, idOrder, EVENT_KINDS.orderTrackingNumberSet, () => ({}));
        default:
          return [];
      }
    }),
  );
  events.on(
    EVENTS.messageSent,
    raise(async (_ctx, tx, p) => messageEvents(tx, p.seq as number)),
  );
  events.on(
    EVENTS.articleReserved,
    raise(async (_ctx, tx, p) => reservedEvents(tx, p.idArticle as number, p.count as number)),
  );
  events.on(
    EVENTS.exportFinished,
    raise(async (_ctx, tx, p) => {
      const e = await findExport(tx, p.idRequest as number);
      if (e?.status !== 'finished') return [];
      return [
        {
          idUser: e.idUser,
          type: EVENT_KINDS.exportReady,
          data: { export: mapExport(e, options.exportUrl(e)) },
        },
      ];
    }),
  );
}

export const FEED_PAGE = 100;

/** `GET /events`: a user's events after `since`, oldest first (docs/api.md, "Events and webhooks"). */
export async function readEventFeed(ctx: DomainContext, idUser: number, since: number, limit: number) {
  return userEventsAfter(ctx.database.db, idUser, since, limit);
}
