import { type Static, Type } from '@sinclair/typebox';
import type { UserEvent } from '../store/schema.js';
import { Money, storedJson, timestamp, TimestampSchema } from './values.js';

export const EventSchema = Type.Object(
  {
    idEvent: Type.Integer({ minimum: 1 }),
    type: Type.String({
      description: 'The kind, e.g. `order.stateChanged` (docs/api.md, "Events and webhooks").',
    }),
    created: TimestampSchema,
    idUser: Type.Integer({ minimum: 1 }),
    data: Type.Object(
      {},
      { additionalProperties: true, description: 'The changed entity as the API shows it to this user.' },
    ),
  },
  { $id: 'Event', description: 'A public event (an extension).' },
);

/**
 * The Event entity (an extension; docs/api.md, "Events and webhooks"): `idEvent, type, created,
 * idUser, data`, where `data` holds the changed entity as the API shows it to that user. The data
 * is stored mapped, as it was when the event happened, with money kept as cents so that XML still
 * writes two decimals and JSON a number.
 */
export function mapEvent(e: UserEvent): Static<typeof EventSchema> {
  return {
    idEvent: e.idEvent,
    type: e.type,
    created: timestamp(e.createdAt),
    idUser: e.idUser,
    data: decodeEventData(e.payload) as Record<string, unknown>,
  };
}

const CENTS = '$cents';

/** `{"$cents":n}` as `encodeEventData` writes it. Inside a JSON string every `"` is escaped, so this never matches text. */
const STORED_MONEY = /\{"\$cents":(-?[0-9.eE+-]+)\}/g;

/**
 * The Event entity in JSON, byte for byte what `JSON.stringify(mapEvent(e))` writes, built from the
 * stored text without parsing it: a webhook delivery sends one for every event, and parsing the
 * data back into objects (and money into `Money`) only to write it again was most of its cost.
 */
export function eventJson(e: UserEvent): string {
  const data = e.payload.replace(STORED_MONEY, (_, cents: string) => String(Number(cents) / 100));
  return `{"idEvent":${e.idEvent},"type":${JSON.stringify(e.type)},"created":${JSON.stringify(timestamp(e.createdAt))},"idUser":${e.idUser},"data":${data}}`;
}

/** The stored form of a mapped tree: JSON, with every `Money` as `{"$cents": n}`. */
export function encodeEventData(tree: unknown): string {
  return storedJson(tree);
}

export function decodeEventData(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const keys = Object.keys(value);
      if (keys.length === 1 && keys[0] === CENTS) return new Money((value as Record<string, number>)[CENTS]!);
    }
    return value;
  });
}
