import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

// Events delivered (README, "Events and webhooks"): the public events each user receives, derived
// from the outbox in the transaction that delivers the outbox row (so an event exists exactly when
// its cause committed), the webhook endpoints apps register, one delivery per event and endpoint,
// and every attempt at it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('userEvents'), 'idEvent')
    .addColumn('idUser', 'integer', (c) => c.notNull().references('users.idUser'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .execute();
  // The feed reads one user's events after an id; the pruning reads by age.
  await db.schema
    .createIndex('user_events_by_user')
    .on('userEvents')
    .columns(['idUser', 'idEvent'])
    .execute();
  await db.schema.createIndex('user_events_by_age').on('userEvents').columns(['createdAt']).execute();

  await withId(db, db.schema.createTable('webhookEndpoints'), 'idEndpoint')
    .addColumn('idApp', 'integer', (c) => c.notNull().references('apps.idApp'))
    .addColumn('url', 'text', (c) => c.notNull())
    // Comma-separated event kinds; `*` for every kind.
    .addColumn('kinds', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    // The signing secret is derived from this and the server key, like app credentials.
    .addColumn('salt', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    // Since when every attempt has failed (null after a success); three days of it disable.
    .addColumn('failingSince', 'bigint')
    .addColumn('disabledAt', 'bigint')
    .execute();
  await db.schema.createIndex('webhook_endpoints_by_app').on('webhookEndpoints').columns(['idApp']).execute();

  await withId(db, db.schema.createTable('webhookDeliveries'), 'idDelivery')
    .addColumn('idEndpoint', 'integer', (c) => c.notNull().references('webhookEndpoints.idEndpoint'))
    .addColumn('idEvent', 'integer', (c) => c.notNull().references('userEvents.idEvent'))
    // pending, delivered, failed (gave up after three days or the endpoint was disabled)
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('createdAt', 'bigint', (c) => c.notNull())
    // Marketplace time of the next attempt.
    .addColumn('nextAttemptAt', 'bigint', (c) => c.notNull())
    // Real time until which an instance holds the delivery; a killed instance's claim runs out.
    .addColumn('leaseUntil', 'bigint')
    .addColumn('leaseToken', 'text')
    .addColumn('finishedAt', 'bigint')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhookDeliveries')
    .columns(['state', 'nextAttemptAt'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_by_endpoint')
    .on('webhookDeliveries')
    .columns(['idEndpoint', 'idDelivery'])
    .execute();

  await withId(db, db.schema.createTable('webhookAttempts'), 'idAttempt')
    .addColumn('idDelivery', 'integer', (c) => c.notNull().references('webhookDeliveries.idDelivery'))
    .addColumn('idEndpoint', 'integer', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    // The HTTP status; null when no answer came (refused, timed out).
    .addColumn('status', 'integer')
    .addColumn('durationMs', 'integer', (c) => c.notNull())
    // The first 1 KB of the answer, or what went wrong.
    .addColumn('response', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_attempts_by_endpoint')
    .on('webhookAttempts')
    .columns(['idEndpoint', 'idAttempt'])
    .execute();
  await db.schema
    .createIndex('webhook_attempts_by_delivery')
    .on('webhookAttempts')
    .columns(['idDelivery'])
    .execute();
  await db.schema.createIndex('webhook_attempts_by_age').on('webhookAttempts').columns(['at']).execute();
}
