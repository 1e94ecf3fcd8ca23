import type { Kysely } from 'kysely';

// An endpoint's strict order (docs/api.md, "Events and webhooks"): 1 holds an endpoint's later
// deliveries back while an earlier one is pending (retrying), so the receiver gets its events in
// order; 0 (the default, and every endpoint made before) lets later events overtake a failing one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhookEndpoints')
    .addColumn('strictOrder', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
