import { ApiError, badRequest } from '../errors.js';
import type { Services } from '../services.js';
import type { UserEvent } from '../store/schema.js';
import { latestUserEventId } from '../store/user-events.js';
import { findUserByUsername } from '../store/users.js';
import { exportBuildsSettled, requestExport } from './exports.js';
import { setTrackingNumber } from './orders.js';
import { simulatePurchase } from './simulate.js';
import { sendSystemMessage } from './system-messages.js';
import { EVENT_KIND_NAMES, EVENT_KINDS, type EventKind, isEventKind, readEventFeed } from './user-events.js';

/**
 * Sandbox: the marketplace made to produce a public event of a kind, for real (a purchase by a
 * simulated buyer, a message, an export…), so a client's webhook receiver sees what it will see in
 * use. One function for `cardbazaar events trigger` and `POST /_cardbazaar/events/trigger`.
 */

/** The kinds one user's action here can produce (the others need a counterpart's action). */
export const TRIGGERABLE_KINDS: readonly EventKind[] = [
  EVENT_KINDS.messageReceived,
  EVENT_KINDS.orderStateChanged,
  EVENT_KINDS.articleReserved,
  EVENT_KINDS.articleSold,
  EVENT_KINDS.orderTrackingNumberSet,
  EVENT_KINDS.exportReady,
];

/** The fields a trigger may set, by kind: what the event then carries instead of a made-up value. */
const OVERRIDABLE: Partial<Record<EventKind, readonly string[]>> = {
  [EVENT_KINDS.messageReceived]: ['text'],
  [EVENT_KINDS.orderTrackingNumberSet]: ['trackingNumber'],
};

export interface TriggerInput {
  kind: string;
  /** The user the event concerns (for orders and articles: the seller, whose article is bought). */
  user: string;
  override?: Record<string, unknown>;
}

/** Makes the marketplace produce events of `kind` for the user; answers them, oldest first. */
export async function triggerEvent(services: Services, input: TriggerInput): Promise<UserEvent[]> {
  if (services.config.mode === 'production') {
    throw new ApiError(403, 'Triggering events is a sandbox helper: production refuses it.');
  }
  const { kind } = input;
  if (typeof kind !== 'string' || !isEventKind(kind)) {
    throw badRequest(`Unknown event kind "${String(kind)}" (known: ${EVENT_KIND_NAMES.join(', ')}).`, {
      field: 'kind',
    });
  }
  if (!TRIGGERABLE_KINDS.includes(kind)) {
    throw badRequest(
      `${kind} cannot be triggered (it needs a counterpart's action); triggerable: ${TRIGGERABLE_KINDS.join(', ')}.`,
      { field: 'kind' },
    );
  }
  const override = readOverride(kind, input.override);
  const user = await findUserByUsername(services.database.db, String(input.user ?? ''));
  if (!user) throw badRequest(`There is no user "${String(input.user)}".`, { field: 'user' });
  const since = await latestUserEventId(services.database.db, user.idUser);
  switch (kind) {
    case EVENT_KINDS.messageReceived:
      await services.database.transaction((tx) =>
        sendSystemMessage(
          tx,
          services.clock.now(),
          user.idUser,
          override.text ?? 'A test message from `cardbazaar events trigger`.',
        ),
      );
      break;
    case EVENT_KINDS.orderStateChanged:
    case EVENT_KINDS.articleReserved:
    case EVENT_KINDS.articleSold:
      await simulatePurchase(services, user.username, 1, false);
      break;
    case EVENT_KINDS.orderTrackingNumberSet: {
      const { orders } = await simulatePurchase(services, user.username, 1, true);
      await setTrackingNumber(
        services,
        user.idUser,
        orders[0]!.order.idOrder,
        override.trackingNumber ?? `TEST-${services.wallClock.now()}`,
      );
      break;
    }
    case EVENT_KINDS.exportReady:
      await requestExport(services, user.idUser, { type: 'stock', resourceId: user.idUser });
      await services.events.deliverPending();
      await exportBuildsSettled();
      break;
  }
  // Derive the public events now rather than wait for the delivery loop: the outbox claim makes
  // sure each is derived once, whichever process gets it.
  await services.events.deliverPending();
  const { events } = await readEventFeed(services, user.idUser, since, 100);
  const produced = (events as UserEvent[]).filter((e) => e.type === kind);
  if (produced.length === 0) throw new ApiError(500, `No ${kind} event was produced.`);
  return produced;
}

function readOverride(kind: EventKind, raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw badRequest('"override" is an object of field names and values.', { field: 'override' });
  }
  const allowed = OVERRIDABLE[kind] ?? [];
  const out: Record<string, string> = {};
  for (const [field, value] of Object.entries(raw)) {
    if (!allowed.includes(field)) {
      throw badRequest(
        `${kind} takes ${allowed.length > 0 ? `only ${allowed.join(', ')}` : 'no field'} as an override, not "${field}".`,
        { field: `override.${field}` },
      );
    }
    if (typeof value !== 'string' || value.trim() === '' || value.length > 500) {
      throw badRequest(`override.${field} is a text of 1 to 500 characters.`, { field: `override.${field}` });
    }
    out[field] = value;
  }
  return out;
}
