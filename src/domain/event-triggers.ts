import { badRequest, preconditionFailed } from '../errors.js';
import { mapEvent } from '../mappers/event.js';
import type { UserEvent } from '../store/schema.js';
import { latestUserEventId } from '../store/user-events.js';
import { addMoneyBalance, findUserByUsername } from '../store/users.js';
import { evaluateOrder } from './evaluations.js';
import { exportBuildsSettled, requestExport } from './exports.js';
import { actOnOrder, payOrderInTx, setTrackingNumber } from './orders.js';
import { SIMULATED_BUYER, simulatePurchase } from './simulate.js';
import { increaseArticles } from './stock.js';
import { sendSystemMessage } from './system-messages.js';
import type { TradingContext } from './trading.js';
import { EVENT_KIND_NAMES, EVENT_KINDS, type EventKind, isEventKind, readEventFeed } from './user-events.js';
import { createWantslists, updateWantslist } from './wants.js';

/**
 * Sandbox: makes the marketplace produce a public event of a kind, for real, through the same
 * domain functions a request would run (a purchase by the simulated buyer, a system message, an
 * export…), so the event is the one a client would receive, delivered to webhooks and the feed.
 * Reached from `cardbazaar events trigger` and the control API. (The events are answered as the
 * feed shows them, through their mapper: an upward import, as the feed's own encoding is.)
 *
 * Overrides are the inputs of the action behind the event, by name: `user` (whose event; for
 * orders and articles the seller whose stock is bought), and per kind the fields of `TRIGGER_FIELDS`.
 * An unknown field is refused by name.
 */
export interface TriggerContext extends TradingContext {
  events: { deliverPending(): Promise<unknown> };
}

const ORDER_FIELDS = ['count'] as const;

/** The fields each kind takes beside `user`. */
export const TRIGGER_FIELDS: Record<EventKind, readonly string[]> = {
  [EVENT_KINDS.messageReceived]: ['text'],
  [EVENT_KINDS.orderStateChanged]: [...ORDER_FIELDS, 'paid'],
  [EVENT_KINDS.articleReserved]: ORDER_FIELDS,
  [EVENT_KINDS.articleSold]: ORDER_FIELDS,
  [EVENT_KINDS.orderTrackingNumberSet]: [...ORDER_FIELDS, 'trackingNumber'],
  [EVENT_KINDS.orderCancellationRequested]: [...ORDER_FIELDS, 'reason'],
  [EVENT_KINDS.orderEvaluated]: [
    ...ORDER_FIELDS,
    'evaluationGrade',
    'itemDescription',
    'packaging',
    'comment',
  ],
  [EVENT_KINDS.wantOfferFound]: ['count'],
  [EVENT_KINDS.exportReady]: ['idGame'],
};

export type TriggeredEvent = ReturnType<typeof mapEvent>;

function wholeNumber(
  overrides: Record<string, string>,
  field: string,
  fallback: number,
  max = 100_000,
): number {
  const raw = overrides[field];
  if (raw === undefined) return fallback;
  if (!/^\d{1,9}$/.test(String(raw).trim()) || Number(raw) < 1 || Number(raw) > max) {
    throw badRequest(`${field} must be a whole number from 1 to ${max}.`, { field });
  }
  return Number(raw);
}

function yesNo(overrides: Record<string, string>, field: string, fallback: boolean): boolean {
  const raw = overrides[field];
  if (raw === undefined) return fallback;
  const v = String(raw).trim().toLowerCase();
  if (v === 'true' || v === '1' || v === 'yes') return true;
  if (v === 'false' || v === '0' || v === 'no') return false;
  throw badRequest(`${field} is true or false.`, { field });
}

/**
 * Produces an event of `kind` and answers the public events of that kind it raised for the user
 * (at least one, or a 412 saying why none came).
 */
export async function triggerEvent(
  ctx: TriggerContext,
  kind: string,
  overrides: Record<string, string | number | boolean> = {},
): Promise<TriggeredEvent[]> {
  if (!isEventKind(kind)) {
    throw badRequest(`Unknown event kind "${kind}" (known: ${EVENT_KIND_NAMES.join(', ')}).`, {
      field: 'kind',
    });
  }
  const fields = TRIGGER_FIELDS[kind];
  const given: Record<string, string> = {};
  const unknown: string[] = [];
  for (const [k, v] of Object.entries(overrides ?? {})) {
    if (k !== 'user' && !fields.includes(k)) unknown.push(k);
    else given[k] = String(v);
  }
  if (unknown.length > 0) {
    throw badRequest(
      `${kind} has no field ${unknown.join(', ')}; its fields: user${fields.map((f) => `, ${f}`).join('')}.`,
      { field: unknown[0] },
    );
  }
  const username = given.user?.trim();
  if (!username) throw badRequest('Name the user the event concerns (user=NAME).', { field: 'user' });
  const user = await findUserByUsername(ctx.database.db, username);
  if (!user) throw badRequest(`There is no user ${username}.`, { field: 'user' });
  const since = await latestUserEventId(ctx.database.db, user.idUser);
  const count = () => wholeNumber(given, 'count', 1);

  /** The orders the trigger made: the answer keeps to their events (a payment below raises others). */
  const made = new Set<number>();
  /** A purchase of the user's stock by the simulated buyer; the order that holds it. */
  const purchase = async (pay: boolean) => {
    // A checkout merges into an unpaid order between the same two users, which changes no state:
    // an unpaid order an earlier trigger left is paid first, so this purchase is an order of its own.
    await payLeftOrders(ctx, user.idUser);
    const { buyer, orders } = await simulatePurchase(ctx, username, count(), pay);
    const idOrder = orders[0]!.order.idOrder;
    made.add(idOrder);
    return { buyer, idOrder };
  };

  switch (kind) {
    case EVENT_KINDS.messageReceived: {
      const text = given.text ?? 'A test message from `cardbazaar events trigger`.';
      if (text.trim() === '' || text.length > 5000) {
        throw badRequest('text is 1 to 5000 characters.', { field: 'text' });
      }
      await ctx.database.transaction((tx) => sendSystemMessage(tx, ctx.clock.now(), user.idUser, text));
      break;
    }
    case EVENT_KINDS.orderStateChanged:
      await purchase(yesNo(given, 'paid', false));
      break;
    case EVENT_KINDS.articleReserved:
    case EVENT_KINDS.articleSold:
      await purchase(false);
      break;
    case EVENT_KINDS.orderTrackingNumberSet: {
      const { idOrder } = await purchase(true);
      await setTrackingNumber(ctx, user.idUser, idOrder, given.trackingNumber ?? `TEST-${ctx.clock.now()}`);
      break;
    }
    case EVENT_KINDS.orderCancellationRequested: {
      const { buyer, idOrder } = await purchase(true);
      await actOnOrder(ctx, buyer.idUser, idOrder, {
        action: 'requestCancellation',
        reason: given.reason ?? 'A test cancellation request from `cardbazaar events trigger`.',
      });
      break;
    }
    case EVENT_KINDS.orderEvaluated: {
      const { buyer, idOrder } = await purchase(true);
      await actOnOrder(ctx, user.idUser, idOrder, { action: 'send' });
      await actOnOrder(ctx, buyer.idUser, idOrder, { action: 'confirmReception' });
      const grade = (field: string) => {
        const raw = given[field];
        if (raw === undefined) return 1;
        const n = Number(raw);
        if (!Number.isInteger(n)) throw badRequest(`${field} is a grade: 1, 2, 3, 4 or 10.`, { field });
        return n;
      };
      await evaluateOrder(ctx, buyer.idUser, idOrder, {
        evaluationGrade: grade('evaluationGrade'),
        itemDescription: grade('itemDescription'),
        packaging: grade('packaging'),
        speed: undefined,
        comment: given.comment ?? '',
        complaint: [],
      });
      break;
    }
    case EVENT_KINDS.wantOfferFound:
      await offerForWant(ctx, user.idUser, count());
      break;
    case EVENT_KINDS.exportReady: {
      const idGame = given.idGame === undefined ? undefined : wholeNumber(given, 'idGame', 1, 2_147_483_647);
      await requestExport(ctx, user.idUser, { type: 'stock', resourceId: user.idUser, idGame });
      await ctx.events.deliverPending();
      await exportBuildsSettled();
      break;
    }
  }
  // Derive the public events here rather than wait for a server to: the outbox claim makes sure
  // each is derived once, whichever process gets it.
  await ctx.events.deliverPending();
  const { events: rows } = await readEventFeed(ctx, user.idUser, since, 100);
  const produced = (rows as UserEvent[]).map(mapEvent).filter((e) => {
    const idOrder = orderOf(e);
    return e.type === kind && (made.size === 0 || idOrder === undefined || made.has(idOrder));
  });
  if (produced.length === 0) throw preconditionFailed(`No ${kind} event was produced for ${username}.`);
  return produced;
}

/** The order an event is about (`order.…` events carry it, `article.sold` its id), if any. */
function orderOf(e: TriggeredEvent): number | undefined {
  const d = e.data as { order?: { idOrder?: number }; idOrder?: number } | undefined;
  return d?.order?.idOrder ?? d?.idOrder;
}

/** Pays the simulated buyer's unpaid orders from this seller (topping its balance up, as a purchase does). */
async function payLeftOrders(ctx: TriggerContext, idSeller: number): Promise<void> {
  await ctx.database.transaction(async (tx) => {
    const buyer = await findUserByUsername(tx, SIMULATED_BUYER);
    if (!buyer) return;
    const unpaid = await tx
      .selectFrom('orders')
      .selectAll()
      .where('idBuyer', '=', buyer.idUser)
      .where('idSeller', '=', idSeller)
      .where('state', '=', 'bought')
      .where('wasMergedInto', 'is', null)
      .execute();
    const now = ctx.clock.now();
    for (const order of unpaid) {
      await addMoneyBalance(tx, buyer.idUser, order.totalValue);
      await payOrderInTx(tx, order, now);
    }
  });
}

/**
 * `wantslist.offerFound`: another seller's offer becomes available again for a want of the user.
 * The cheapest offer of someone else's on a product the user wants is increased by `count` copies
 * (as `PUT /stock/increase` would); with no such want, one is added first (a list named after the
 * trigger, any language and condition, no wish price) for the cheapest product on offer.
 */
async function offerForWant(ctx: TriggerContext, idUser: number, count: number): Promise<void> {
  const db = ctx.database.db;
  const base = db
    .selectFrom('articles as a')
    .innerJoin('products as p', 'p.idProduct', 'a.idProduct')
    .innerJoin('users as s', 's.idUser', 'a.idUser')
    .select(['a.idArticle', 'a.idUser', 'a.idProduct', 'p.idGame'])
    .where('a.idUser', '!=', idUser)
    .where('a.count', '>', 0)
    .where('s.onVacation', '=', 0)
    .orderBy('a.price')
    .orderBy('a.idArticle')
    .limit(1);
  let offer = await base
    .where('a.idProduct', 'in', (eb) =>
      eb
        .selectFrom('wants as w')
        .innerJoin('wantslists as l', 'l.idWantslist', 'w.idWantslist')
        .select('w.idProduct')
        .where('l.idUser', '=', idUser)
        .where('w.idProduct', 'is not', null)
        .where('w.wishPrice', '=', 0),
    )
    .executeTakeFirst();
  if (!offer) {
    offer = await base.executeTakeFirst();
    if (!offer) throw preconditionFailed('Nobody else has an article on offer: there is no offer to find.');
    const name = `events trigger ${ctx.clock.now()}`;
    const { created, failed } = await createWantslists(ctx, idUser, [{ idGame: String(offer.idGame), name }]);
    if (created.length === 0)
      throw preconditionFailed(failed[0]?.error ?? 'The wants list could not be made.');
    await updateWantslist(ctx, idUser, created[0]!.idWantslist, {
      action: 'addItem',
      items: [
        {
          label: `<product> 1 (idProduct ${offer.idProduct})`,
          target: { type: 'product', idProduct: offer.idProduct },
          count: 1,
          mailAlert: false,
          languages: [],
          flags: {},
        },
      ],
    });
  }
  const [result] = await increaseArticles(ctx, offer.idUser, [
    { tried: { idArticle: offer.idArticle, count }, input: { idArticle: offer.idArticle, count } },
  ]);
  if (result && 'success' in result && result.success === false) {
    throw preconditionFailed(`The offer could not be increased: ${JSON.stringify(result)}`);
  }
}
